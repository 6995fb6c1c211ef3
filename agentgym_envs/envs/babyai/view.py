"""What the agent sees, in words, and the high-level actions it has there.

This follows AgentGym's BabyAI server (``agentenv-babyai``, commit 3ef9235) rule for rule, so
that the same grid gives the same text and the same action list:

* the view is minigrid's 7x7 egocentric image; objects are listed nearest first (Manhattan
  distance, ties in scan order: far rows first, left to right), numbered per name within
  the view; walls count as "objects" for the opening sentence but are not listed;
* the nearest wall or box on the line straight ahead is the barrier (``You are facing ...``);
* a macro's low-level plan is a breadth-first search over the view's bounding box that only
  avoids the walls, boxes, balls, keys and lava it can see (doors and unseen cells are free);
  the search keeps AgentGym's visiting order and parent bookkeeping, so equal-length paths
  come out the same;
* macros are numbered by their own counters (a ``pickup`` counter only advances on objects
  with a path), and refused actions get AgentGym's wording.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE = 0, 1, 2, 3, 4, 5
DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))
# minigrid's encoding (minigrid.core.constants), fixed since BabyAI's first release.
_KINDS = {2: "wall", 4: "door", 5: "key", 6: "ball", 7: "box", 8: "goal", 9: "lava"}
_COLORS = ("red", "green", "blue", "purple", "yellow", "grey")
_DOOR_STATES = ("open", "closed", "locked")
#: Kinds a macro's path may not cross (AgentGym matches these words in the object's name).
_BLOCKING = frozenset(("wall", "box", "lava", "ball", "key"))

NOT_RECOGNIZED = "The action is not recognized. Please check valid actions."
NO_CHANGE = "No change in state."
CHECK_PREFIX = "You can take the following actions: "


@dataclass
class Thing:
    """One visible cell holding something: a wall, door, key, ball, box, goal or lava."""

    kind: str
    color: str
    name: str  # ``red ball``, ``grey locked door``, ``green wall``
    pos: tuple[int, int]
    dist: int  # Manhattan distance from the agent
    front: int
    right: int


@dataclass
class View:
    """The description of one view and the actions it offers."""

    things: list[Thing]
    text: str
    #: Action name -> low-level minigrid actions, in AgentGym's listing order.
    actions: dict[str, list[int]] = field(default_factory=dict)
    #: Refused action name -> AgentGym's explanation.
    errors: dict[str, str] = field(default_factory=dict)
    #: Object action name -> the thing it acts on.
    targets: dict[str, Thing] = field(default_factory=dict)


def _bounds(start: int, end: int) -> range:
    """AgentGym's coordinate range between a view corner and the cell past the other corner."""
    return range(end, start + 1) if end < start else range(start, end)


def look(mg: Any, image: Any) -> View:
    """Describe minigrid env ``mg`` as seen in its egocentric ``image`` (``obs["image"]``)."""
    size = mg.agent_view_size
    px, py = int(mg.agent_pos[0]), int(mg.agent_pos[1])
    d = int(mg.agent_dir)
    fx, fy = DIR_VEC[d]
    rx, ry = -fy, fx
    half = size // 2
    tlx, tly = px + fx * (size - 1) - rx * half, py + fy * (size - 1) - ry * half
    xs = _bounds(tlx, tlx + size * (rx - fx))
    ys = _bounds(tly, tly + size * (ry - fy))
    cells = image.tolist()
    things: list[Thing] = []
    barriers: list[tuple[str, int]] = []
    for vj in range(size):
        for vi in range(size):
            ax, ay = tlx - fx * vj + rx * vi, tly - fy * vj + ry * vi
            dist = abs(px - ax) + abs(py - ay)
            if ax < 0 or ay < 0 or dist == 0:
                continue
            code, color_code, state = cells[vi][vj]
            kind = _KINDS.get(code)
            if kind is None:
                continue
            color = _COLORS[color_code]
            name = f"{color} {_DOOR_STATES[state]} door" if kind == "door" else f"{color} {kind}"
            relx, rely = ax - px, ay - py
            front, right = fx * relx + fy * rely, rx * relx + ry * rely
            things.append(Thing(kind, color, name, (ax, ay), dist, front, right))
            if kind in ("box", "wall") and fx * rely - fy * relx == 0:
                barriers.append((kind, front))
    things.sort(key=lambda t: t.dist)
    barriers.sort(key=lambda b: b[1])
    view = View(things, _describe(things, barriers, mg.carrying))
    _offer_actions(view, mg, (px, py), d, barriers, xs, ys)
    return view


def _describe(things: list[Thing], barriers: list[tuple[str, int]], carrying: Any) -> str:
    if things:
        parts = ["In front of you in this room, you can see several objects: "]
        counts: dict[str, int] = {}
        for t in things:
            if t.kind == "wall":
                continue
            counts[t.name] = counts.get(t.name, 0) + 1
            parts.append(f"There is a {t.name} {counts[t.name]} {where(t.front, t.right)}  ")
        text = "".join(parts)
    else:
        text = "You cannot see any objects within sight."
    text += "The room has walls around you. "
    if barriers:
        text += f"You are facing a {barriers[0][0]} {barriers[0][1]} steps away. "
    if carrying is not None:
        return text + f"You are carrying a {carrying.color} {carrying.type}."
    return text + "You are not carrying anything."


def where(front: int, right: int) -> str:
    """AgentGym's relative position, with its full stop."""
    if right == 0:
        return f"right in front of you {front} steps away."
    side = "right" if right > 0 else "left"
    return f"{front} steps in front of you and {abs(right)} steps to your {side}."


def find_path(
    start: tuple[int, int],
    direction: int,
    goal: tuple[int, int],
    blocked: set[tuple[int, int]],
    xs: range,
    ys: range,
    arrive: bool,
) -> list[int] | None:
    """Low-level actions that leave the agent facing ``goal`` (standing on it when ``arrive``).

    Breadth first over (cell, direction), trying forward, left, right; a state is closed when
    it is dequeued, not when it is queued, and a later queuing overwrites the recorded parent.
    That is AgentGym's search, kept as is: among equally short paths it picks the one its
    server picks (and it can return a longer one, as the server does).
    """
    first = (start, direction)
    queue = deque([first])
    parent: dict[tuple[tuple[int, int], int], tuple[tuple[tuple[int, int], int], int]] = {}
    closed: set[tuple[tuple[int, int], int]] = set()
    gx, gy = goal
    while queue:
        state = queue.popleft()
        closed.add(state)
        (x, y), d = state
        dx, dy = DIR_VEC[d]
        if (x == gx and y == gy) if arrive else (gx - x == dx and gy - y == dy):
            path = []
            while state != first:
                state, action = parent[state]
                path.append(action)
            return path[::-1]
        for action, nxt in (
            (FORWARD, ((x + dx, y + dy), d)),
            (LEFT, ((x, y), (d - 1) % 4)),
            (RIGHT, ((x, y), (d + 1) % 4)),
        ):
            cell = nxt[0]
            if cell[0] not in xs or cell[1] not in ys or nxt in closed or cell in blocked:
                continue
            queue.append(nxt)
            parent[nxt] = (state, action)
    return None


def _offer_actions(
    view: View,
    mg: Any,
    pos: tuple[int, int],
    d: int,
    barriers: list[tuple[str, int]],
    xs: range,
    ys: range,
) -> None:
    """Fill ``view``'s actions, errors and targets in AgentGym's listing order."""
    blocked = {t.pos for t in view.things if t.kind in _BLOCKING}
    offers = _Offers(view, mg.carrying, pos, d, blocked, xs, ys)
    offers.turns_and_forward(barriers)
    if offers.carrying is None:
        offers.numbered("pickup", ("wall", "door", "goal"), [PICKUP])
    offers.drop()
    offers.doors()
    offers.goal()
    offers.numbered("go to", ("wall", "goal"), [])
    view.actions["check available actions"] = []


@dataclass
class _Offers:
    """The steps of :func:`_offer_actions`, each adding one group of actions to ``view``."""

    view: View
    carrying: Any
    pos: tuple[int, int]
    d: int
    blocked: set[tuple[int, int]]
    xs: range
    ys: range

    def path_to(self, t: Thing, arrive: bool = False) -> list[int] | None:
        return find_path(self.pos, self.d, t.pos, self.blocked, self.xs, self.ys, arrive)

    def turns_and_forward(self, barriers: list[tuple[str, int]]) -> None:
        actions = self.view.actions
        actions["turn left"] = [LEFT]
        actions["turn right"] = [RIGHT]
        if not barriers or barriers[0][1] > 1:
            actions["move forward"] = [FORWARD]
        else:
            self.view.errors["move forward"] = (
                "There is a barrier in front of you, you can't move forward."
            )

    def numbered(self, verb: str, skip: tuple[str, ...], tail: list[int]) -> None:
        """``<verb> <name> <n>`` for each thing not of a ``skip`` kind, numbered per name; a
        number only advances on things with a path (AgentGym's counters)."""
        actions, errors, targets = self.view.actions, self.view.errors, self.view.targets
        counts: dict[str, int] = {}
        for t in self.view.things:
            if t.kind in skip:
                continue
            path = self.path_to(t)
            first = f"{verb} {t.name} 1"
            if path is not None:
                counts[t.name] = 1 if first not in actions else counts[t.name] + 1
                name = f"{verb} {t.name} {counts[t.name]}"
                actions[name], targets[name] = path + tail, t
            else:
                name = first if first not in actions else f"{verb} {t.name} {counts[t.name] + 1}"
                errors[name] = f"You cannot {name}, as there is no path leading to it."

    def drop(self) -> None:
        errors = self.view.errors
        if self.carrying is None:
            errors["drop"] = "You cannot drop the object, as you are not carrying anything."
            return
        ahead = (self.pos[0] + DIR_VEC[self.d][0], self.pos[1] + DIR_VEC[self.d][1])
        if any(t.pos == ahead and t.kind in _BLOCKING for t in self.view.things):
            errors["drop"] = (
                "You cannot drop the object, as there is already an object in front of you."
            )
        else:
            self.view.actions["drop"] = [DROP]

    def doors(self) -> None:
        doors: dict[str, int] = {}
        for t in self.view.things:
            if t.kind != "door":
                continue
            doors[t.name] = doors.get(t.name, 0) + 1
            label = f"{t.name} {doors[t.name]}"
            state = t.name.split(" ")[1]
            if state == "open":
                self._go_through(t, label)
            else:
                self._toggle_and_go_through(t, label, state, doors)

    def _go_through(self, t: Thing, label: str) -> None:
        path = self.path_to(t, arrive=True)
        name = f"go through {label}"
        if path is not None:
            self.view.actions[name], self.view.targets[name] = path, t
        else:
            self.view.errors[name] = f"You cannot {name}, as there is no path leading to it."

    def _toggle_and_go_through(
        self, t: Thing, label: str, state: str, doors: dict[str, int]
    ) -> None:
        actions, errors, targets = self.view.actions, self.view.errors, self.view.targets
        name = f"toggle and go through {label}"
        carrying = self.carrying
        if state == "locked":
            if carrying is None or carrying.type != "key":
                errors[name] = f"You cannot {name}, as you are not carrying a key."
                return
            if carrying.color != t.color:
                errors[name] = (
                    f"You cannot {name}, as the color of the key you are carrying does not match "
                    "the color of door."
                )
                return
        path = self.path_to(t)
        if path is not None:
            actions[name], targets[name] = path + [TOGGLE, FORWARD], t
        else:
            # AgentGym writes its whole door counter here, not the door's number
            errors[name] = (
                f"You cannot toggle and go through {t.name} {doors}, as there is no path leading to it."
            )
        if path == []:
            actions["toggle"] = [TOGGLE]
            targets["toggle"] = t
        if state == "closed":
            errors[f"go through {label}"] = (
                f"You cannot go through {label}, as it is closed. You should toggle it first."
            )

    def goal(self) -> None:
        for t in self.view.things:
            if t.kind != "goal":
                continue
            path = self.path_to(t, arrive=True)
            if path is not None:
                self.view.actions["go to goal"] = path
            else:
                self.view.errors["go to goal"] = (
                    "You cannot go to the goal, as there is no path leading to it."
                )


def action_line(actions: dict[str, list[int]]) -> str:
    """``\\nAvailable actions: ["turn left", ...]`` as AgentGym's server appends it."""
    return "\nAvailable actions: [" + ", ".join(f'"{a}"' for a in actions) + "]"
