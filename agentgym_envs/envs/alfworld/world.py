"""The native ALFWorld engine: a household of receptacles and objects, played as ALFWorld's
TextWorld engine plays it.

A :class:`Scene` is what an ALFWorld PDDL problem states (receptacles at locations, objects in
receptacles with their affordances, ``canContain`` pairs, the agent's start); a :class:`Goal`
is one of the six task formulas. :class:`Engine` plays a scene: the replies, the lists and the
admissible commands are those of alfworld's grammar (``alfred.twl2``) and domain
(``alfred.pddl``), for the 0.3.3 grammar (AgentGym's: ``put X in/on Y``, ``You arrive at loc N.``)
or the 0.4.2 one (``move X to Y``, ``help``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

GRAMMARS = ("0.3.3", "0.4.2")
NOTHING = "Nothing happens."
BANNER = "-= Welcome to TextWorld, ALFRED! =-"
HELP_TEXT = (
    "Available commands:\n"
    "  look:                             look around your current location\n"
    "  inventory:                        check your current inventory\n"
    "  go to (receptacle):               move to a receptacle\n"
    "  open (receptacle):                open a receptacle\n"
    "  close (receptacle):               close a receptacle\n"
    "  take (object) from (receptacle):  take an object from a receptacle\n"
    "  move (object) to (receptacle):  place an object in or on a receptacle\n"
    "  examine (something):              examine a receptacle or an object\n"
    "  use (object):                     use an object\n"
    "  heat (object) with (receptacle):  heat an object using a receptacle\n"
    "  clean (object) with (receptacle): clean an object using a receptacle\n"
    "  cool (object) with (receptacle):  cool an object using a receptacle\n"
    "  slice (object) with (object):     slice an object using a sharp object\n"
)


@dataclass(frozen=True)
class Receptacle:
    """A receptacle of the problem: its PDDL id, type (``Cabinet``), location, openable."""

    id: str
    rtype: str
    location: str
    openable: bool = False


@dataclass(frozen=True)
class Item:
    """An object of the problem. ``props`` are affordance predicates (``pickupable``,
    ``heatable``, ...); ``state`` the initially true state predicates (``isCool``, ...)."""

    id: str
    otype: str
    receptacle: str | None
    location: str | None
    props: frozenset[str] = frozenset()
    state: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Scene:
    """Everything an ALFWorld PDDL problem states about a room."""

    receptacles: tuple[Receptacle, ...]
    items: tuple[Item, ...]
    locations: tuple[str, ...]
    start: str
    can_contain: frozenset[tuple[str, str]]
    room: str = ""
    floorplan: int = 0


@dataclass(frozen=True)
class Goal:
    """One of ALFWorld's six goals; ``text`` is the task line (``put a clean knife in drawer``)."""

    task_type: str
    obj: str
    recep: str = ""
    toggle: str = ""
    text: str = ""

    def params(self) -> dict[str, object]:
        """ALFRED's ``pddl_params`` for this goal (as in ``traj_data.json``)."""
        return {
            "object_target": self.obj,
            "parent_target": self.recep,
            "toggle_target": self.toggle,
            "mrecep_target": "",
            "object_sliced": False,
        }


# -- names --------------------------------------------------------------------------------
def mangle(thor_id: str) -> str:
    """A THOR id (``Cabinet|-00.40|+00.50|-02.20``) as an ALFWorld PDDL id."""
    return (
        thor_id.replace("|", "_bar_")
        .replace("-", "_minus_")
        .replace("+", "_plus_")
        .replace(".", "_dot_")
        .replace(",", "_comma_")
    )


def demangle(ids) -> dict[str, str]:
    """Display names of PDDL ids, as alfworld's demangler gives them.

    Names are case-folded (PDDL is case-insensitive); the class is the part before the first
    ``_bar_`` (plus ``basin`` when the id contains it); instances are numbered by sorting the
    ids and handing out numbers from the highest down. Ids without ``_bar_`` keep their name.
    """
    lowered = sorted({i.lower() for i in ids})
    counts: Counter[str] = Counter()
    for i in lowered:
        head, sep, _ = i.partition("_bar_")
        if sep:
            counts[head + ("basin" if "basin" in i else "")] += 1
    names: dict[str, str] = {}
    for i in lowered:
        head, sep, _ = i.partition("_bar_")
        if not sep:
            names[i] = i
            continue
        cls = head + ("basin" if "basin" in i else "")
        names[i] = f"{cls} {counts[cls]}"
        counts[cls] -= 1
    return {orig: names[orig.lower()] for orig in ids}


def listing(names: list[str], article: bool = True) -> str:
    """TextWorld's list: ``a x, a y, and a z``; ``nothing`` when empty."""
    if not names:
        return "nothing"
    parts = [f"a {n}" for n in names] if article else list(names)
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + ", and " + parts[-1]


# -- goals --------------------------------------------------------------------------------
def goal_holds(goal: Goal, state: Engine) -> bool:
    """Whether the goal formula holds in the engine's current state."""
    tt = goal.task_type
    if tt == "look_at_obj_in_light":
        held = state.holding
        if held is None or state.i_type[held] != goal.obj:
            return False
        here = state.loc_recs.get(state.agent, ())
        return any(state.i_type[o] == goal.toggle and state.i_in[o] in here for o in state.toggled)
    need = {
        "pick_clean_then_place_in_recep": state.clean,
        "pick_heat_then_place_in_recep": state.hot,
        "pick_cool_then_place_in_recep": state.cool,
    }.get(tt)
    counts: Counter[int] = Counter()
    for o in state.by_type.get(goal.obj, ()):
        r = state.i_in[o]
        if r is None or state.r_type[r] != goal.recep:
            continue
        if need is not None and (o not in need or goal_prop(tt) not in state.i_props[o]):
            continue
        counts[r] += 1
    want = 2 if tt == "pick_two_obj_and_place" else 1
    return any(n >= want for n in counts.values())


def goal_prop(task_type: str) -> str:
    return {
        "pick_clean_then_place_in_recep": "cleanable",
        "pick_heat_then_place_in_recep": "heatable",
        "pick_cool_then_place_in_recep": "coolable",
    }[task_type]


class Engine:
    """Plays one scene. :meth:`intro` starts it; :meth:`step` applies a command.

    Receptacles and objects are indexed in the sorted order of their (case-folded) ids, which
    is the order every list of the real engine follows.
    """

    def __init__(self, scene: Scene, goal: Goal, grammar: str = "0.3.3") -> None:
        if grammar not in GRAMMARS:
            raise ValueError(f"unknown ALFWorld grammar {grammar!r}: use '0.3.3' or '0.4.2'")
        self.scene, self.goal, self.grammar = scene, goal, grammar
        recs = sorted(scene.receptacles, key=lambda r: r.id.lower())
        items = sorted(scene.items, key=lambda i: i.id.lower())
        names = demangle([r.id for r in recs] + [i.id for i in items] + list(scene.locations))
        loc_ids = {loc.lower(): n for n, loc in enumerate(sorted(scene.locations, key=str.lower))}
        self.loc_names = [names[loc] for loc in sorted(scene.locations, key=str.lower)]
        self.r_name = [names[r.id] for r in recs]
        self.r_type = [r.rtype for r in recs]
        self.r_loc = [loc_ids[r.location.lower()] for r in recs]
        self.r_openable = [r.openable for r in recs]
        self.r_index = {r.id.lower(): n for n, r in enumerate(recs)}
        self.i_name = [names[i.id] for i in items]
        self.i_type = [i.otype for i in items]
        self.i_props = [i.props for i in items]
        self.by_type: dict[str, list[int]] = {}
        for n, i in enumerate(items):
            self.by_type.setdefault(i.otype, []).append(n)
        self.loc_recs: dict[int, tuple[int, ...]] = {}
        for n, loc in enumerate(self.r_loc):
            self.loc_recs[loc] = self.loc_recs.get(loc, ()) + (n,)
        self.can_contain = frozenset((a.lower(), b.lower()) for a, b in scene.can_contain)
        self._fits = [
            [(self.r_type[r].lower(), t.lower()) in self.can_contain for t in self.i_type]
            for r in range(len(recs))
        ]
        self._items = items
        self._start = loc_ids[scene.start.lower()]
        # `go to` commands, sorted, per current location
        self._goto: dict[int, list[tuple[str, tuple]]] = {}
        self.reset()

    # -- state ------------------------------------------------------------------------------
    def reset(self) -> None:
        items = self._items
        self.agent = self._start
        self.holding: int | None = None
        self.opened: set[int] = set()
        self.i_in: list[int | None] = [
            self.r_index[i.receptacle.lower()] if i.receptacle else None for i in items
        ]
        loc_ids = {
            loc.lower(): n for n, loc in enumerate(sorted(self.scene.locations, key=str.lower))
        }
        self.i_at: list[int | None] = [
            loc_ids[i.location.lower()] if i.location else None for i in items
        ]
        self.clean = {n for n, i in enumerate(items) if "isClean" in i.state}
        self.hot = {n for n, i in enumerate(items) if "isHot" in i.state}
        self.cool = {n for n, i in enumerate(items) if "isCool" in i.state}
        self.on = {n for n, i in enumerate(items) if "isOn" in i.state}
        self.toggled = {n for n, i in enumerate(items) if "isToggled" in i.state}
        self.sliced = {n for n, i in enumerate(items) if "isSliced" in i.state}
        self.taken_from: set[tuple[int, int]] = set()
        self.won = False
        self._commands: dict[str, tuple] | None = None

    # -- texts ------------------------------------------------------------------------------
    def contents(self, r: int) -> list[int]:
        return [o for o, rr in enumerate(self.i_in) if rr == r]

    def describe_receptacle(self, r: int) -> str:
        name = self.r_name[r]
        if self.r_openable[r]:
            if r not in self.opened:
                return f"The {name} is closed."
            return f"The {name} is open. In it, you see {listing([self.i_name[o] for o in self.contents(r)])}."
        return f"On the {name}, you see {listing([self.i_name[o] for o in self.contents(r)])}."

    def describe_item(self, o: int) -> str:
        name, props = self.i_name[o], self.i_props[o]
        if "isReceptacleObject" in props:
            return f"This is a normal {name}. In it, you see nothing."
        c, h, k, s = o in self.clean, o in self.hot, o in self.cool, o in self.sliced
        if s:
            if c and h:
                return f"This is a hot and clean sliced {name}."
            if c and k:
                return f"This is a cool and clean sliced {name}."
            if c:
                return f"This is a clean sliced {name}."
            if h:
                return f"This is a hot sliced {name}."
            if k:
                return f"This is a cool sliced {name}."
        if c and h:
            return f"This is a hot and clean {name}."
        if c and k:
            return f"This is a cool and clean {name}."
        if h:
            return f"This is a hot {name}."
        if c:
            return f"This is a clean {name}."
        if k:
            return f"This is a cold {name}."
        if "toggleable" in props:
            return f"This {name} is on." if o in self.toggled else f"This {name} is off."
        if "sliceable" in props and s:
            return f"This is a sliced {name}."
        return f"There's nothing special about {name}."

    def look(self) -> str:
        here = self.loc_recs.get(self.agent, ())
        if not here:
            return "You are in the middle of a room. Looking quickly around you, you see nothing."
        # TextWorld lists an object "next to" the receptacles when it stands here and a
        # `not_inreceptacle(o, r)` fact holds for one of them: it was taken from r and not put
        # back into r since (the PDDL engine keeps the negated fact of a deleted one)
        floor = [
            self.i_name[o]
            for o, at in enumerate(self.i_at)
            if at == self.agent and any((o, r) in self.taken_from for r in here)
        ]
        return (
            f"You are facing the {listing([self.r_name[r] for r in here], article=False)}. "
            f"Next to it, you see {listing(floor)}."
        )

    def intro(self) -> str:
        """The first observation, as the real engine prints it (banner, room, task)."""
        self.reset()
        if self.loc_recs.get(self.agent):  # starting at a receptacle: the look text
            view = self.look()
        else:  # the usual start: every receptacle of the room
            view = f"You are in the middle of a room. Looking quickly around you, you see {listing(list(self.r_name))}."
        return f"{BANNER}\n\n{view}\n\nYour task is to: {self.goal.text}."

    def inventory(self) -> str:
        if self.holding is None:
            return "You are not carrying anything."
        return f"You are carrying: a {self.i_name[self.holding]}."

    # -- admissible commands ------------------------------------------------------------------
    def _gotos(self) -> list[tuple[str, tuple]]:
        cached = self._goto.get(self.agent)
        if cached is None:
            cached = [
                (f"go to {self.r_name[r]}", ("goto", r))
                for r in range(len(self.r_name))
                if self.r_loc[r] != self.agent
            ]
            self._goto[self.agent] = cached
        return cached

    def commands(self) -> dict[str, tuple]:
        """Admissible command -> what it does, in alphabetical order (recomputed each step)."""
        if self._commands is not None:
            return self._commands
        out: list[tuple[str, tuple]] = list(self._gotos())
        out.append(("inventory", ("inventory",)))
        out.append(("look", ("look",)))
        if self.grammar == "0.4.2":
            out.append(("help", ("help",)))
        here = self.loc_recs.get(self.agent, ())
        held = self.holding
        rn, iname = self.r_name, self.i_name
        put = "move {} to {}" if self.grammar == "0.4.2" else "put {} in/on {}"
        for r in here:
            name = rn[r]
            out.append((f"examine {name}", ("examine_r", r)))
            accessible = True
            if self.r_openable[r]:
                if r in self.opened:
                    out.append((f"close {name}", ("close", r)))
                else:
                    out.append((f"open {name}", ("open", r)))
                    accessible = False
            inside = self.contents(r)
            if held is None and accessible:
                for o in inside:
                    if "pickupable" in self.i_props[o]:
                        out.append((f"take {iname[o]} from {name}", ("take", o, r)))
            for o in inside:
                if "toggleable" in self.i_props[o]:
                    out.append((f"use {iname[o]}", ("use", o, r)))
            if held is not None:
                if accessible and self._fits[r][held]:
                    out.append((put.format(iname[held], name), ("put", held, r)))
                rtype, props = self.r_type[r], self.i_props[held]
                if rtype == "Microwave" and "heatable" in props:
                    out.append((f"heat {iname[held]} with {name}", ("heat", held, r)))
                if rtype == "Fridge" and "coolable" in props:
                    out.append((f"cool {iname[held]} with {name}", ("cool", held, r)))
                if rtype == "SinkBasin" and "cleanable" in props:
                    out.append((f"clean {iname[held]} with {name}", ("clean", held, r)))
        if held is not None:
            out.append((f"examine {iname[held]}", ("examine_o", held)))
            if self.i_type[held] in ("Knife", "ButterKnife"):
                for o, at in enumerate(self.i_at):
                    if at == self.agent and "sliceable" in self.i_props[o]:
                        out.append((f"slice {iname[o]} with {iname[held]}", ("slice", o, held)))
        out.sort(key=lambda c: c[0])
        self._commands = dict(out)
        return self._commands

    def admissible(self) -> list[str]:
        return list(self.commands())

    # -- acting ----------------------------------------------------------------------------
    def step(self, command: str) -> str:
        """Apply ``command`` (an admissible command string); return the engine's reply.

        Anything that is not admissible now replies ``Nothing happens.`` and changes nothing.
        """
        act = self.commands().get(command)
        if act is None:
            return NOTHING
        text = self._ACTIONS[act[0]](self, *act[1:])
        # like TextWorld's ``won``: whether the goal holds now (not latched)
        self.won = goal_holds(self.goal, self)
        return text

    def _do_goto(self, r: int) -> str:
        self.agent = self.r_loc[r]
        self._commands = None
        where = self.r_name[r] if self.grammar == "0.4.2" else self.loc_names[self.agent]
        return f"You arrive at {where}. {self.describe_receptacle(r)}"

    def _do_help(self) -> str:
        return HELP_TEXT

    def _do_open(self, r: int) -> str:
        self.opened.add(r)
        self._commands = None
        return f"You open the {self.r_name[r]}. {self.describe_receptacle(r)}"

    def _do_close(self, r: int) -> str:
        self.opened.discard(r)
        self._commands = None
        return f"You close the {self.r_name[r]}."

    def _do_take(self, o: int, r: int) -> str:
        self.i_in[o] = None
        self.i_at[o] = None
        self.holding = o
        self.taken_from.add((o, r))
        self._commands = None
        return f"You pick up the {self.i_name[o]} from the {self.r_name[r]}."

    def _do_put(self, o: int, r: int) -> str:
        self.i_in[o] = r
        self.i_at[o] = self.agent
        self.holding = None
        self.taken_from.discard((o, r))
        self._commands = None
        if self.grammar == "0.4.2":
            return f"You move the {self.i_name[o]} to the {self.r_name[r]}."
        return f"You put the {self.i_name[o]} in/on the {self.r_name[r]}."

    def _do_heat(self, o: int, r: int) -> str:
        self.hot.add(o)
        self.cool.discard(o)
        return f"You heat the {self.i_name[o]} using the {self.r_name[r]}."

    def _do_cool(self, o: int, r: int) -> str:
        self.cool.add(o)
        self.hot.discard(o)
        return f"You cool the {self.i_name[o]} using the {self.r_name[r]}."

    def _do_clean(self, o: int, r: int) -> str:
        self.clean.add(o)
        return f"You clean the {self.i_name[o]} using the {self.r_name[r]}."

    def _do_slice(self, o: int, knife: int) -> str:
        self.sliced.add(o)
        return f"You sliced the {self.i_name[o]} with the {self.i_name[knife]}."

    def _do_use(self, o: int, r: int) -> str:
        if o in self.on:
            self.on.discard(o)
        else:
            self.on.add(o)
        self.toggled.add(o)
        return f"You turn on the {self.i_name[o]}."

    #: What each kind of command (the first element of a :meth:`commands` value) does.
    _ACTIONS = {
        "goto": _do_goto,
        "look": look,
        "inventory": inventory,
        "help": _do_help,
        "examine_r": describe_receptacle,
        "examine_o": describe_item,
        "open": _do_open,
        "close": _do_close,
        "take": _do_take,
        "put": _do_put,
        "heat": _do_heat,
        "cool": _do_cool,
        "clean": _do_clean,
        "slice": _do_slice,
        "use": _do_use,
    }

    # -- helpers for experts and tests -------------------------------------------------------
    def where(self, name: str) -> str | None:
        """Display name of the receptacle holding the object called ``name`` (None if held)."""
        for o, n in enumerate(self.i_name):
            if n == name:
                r = self.i_in[o]
                return None if r is None else self.r_name[r]
        raise KeyError(name)


__all__ = [
    "BANNER",
    "GRAMMARS",
    "HELP_TEXT",
    "NOTHING",
    "Engine",
    "Goal",
    "Item",
    "Receptacle",
    "Scene",
    "demangle",
    "goal_holds",
    "listing",
    "mangle",
]
