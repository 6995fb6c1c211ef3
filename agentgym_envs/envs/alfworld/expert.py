"""ALFWorld's scripted expert: search receptacles in a sensible order, then transform and place.

The expert sees what a player sees -- the observations, the admissible commands, and the task's
parameters (object, receptacle and lamp classes, as ALFWorld's handcoded expert reads them from
``traj_data.json``) -- so it plays the native engine and the alfworld backend alike. It
remembers every list it has read; it searches for an object among the receptacles that can
hold it, the likeliest classes first (tables and counters before cabinets and drawers), opens
what is closed, takes the object, cleans / heats / cools it at the nearest appliance, finds the
lamp or the target receptacle the same way, and finishes the task.
"""

from __future__ import annotations

import re
from typing import Any

from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.env import AlfWorldEnv

_ROOM = re.compile(r"Looking quickly around you, you see (.*?)\.(?:\n|$)")
_ON = re.compile(r"On the ([a-z]+ \d+), you see (.*?)\.(?:\s|$)")
_IN = re.compile(r"The ([a-z]+ \d+) is open\. In it, you see (.*?)\.(?:\s|$)")
_CLOSED = re.compile(r"The ([a-z]+ \d+) is closed\.")
_CLASS_OF = {c.lower(): c for c in list(vocab.CAN_CONTAIN) + list(vocab.OPENABLE)}
_TRANSFORM = {
    "pick_clean_then_place_in_recep": ("clean", "sinkbasin"),
    "pick_heat_then_place_in_recep": ("heat", "microwave"),
    "pick_cool_then_place_in_recep": ("cool", "fridge"),
}


def parse_list(text: str) -> list[str]:
    """``a apple 2, and a knife 1`` -> ``['apple 2', 'knife 1']`` (``nothing`` -> [])."""
    text = text.strip()
    if not text or text == "nothing":
        return []
    out = []
    for part in text.split(", "):
        part = part.removeprefix("and ").strip()
        out.append(part[2:] if part.startswith("a ") else part)
    return out


def cls_of(name: str) -> str:
    return name.rsplit(" ", 1)[0]


def _num(name: str) -> int:
    tail = name.rsplit(" ", 1)[-1]
    return int(tail) if tail.isdigit() else 0


class AlfWorldExpert:
    """A policy ``(observation, info) -> command`` bound to an :class:`AlfWorldEnv`."""

    def __init__(self, env: AlfWorldEnv) -> None:
        self.env = env
        self._episode = -1

    # -- memory -------------------------------------------------------------------------------
    def _start(self, observation: str) -> None:
        goal = self.env.task.goal  # type: ignore[union-attr]
        self.goal = goal
        self.obj = goal.obj.lower()
        self.recep = goal.recep.lower()
        self.toggle = goal.toggle.lower()
        m = _ROOM.search(observation)
        self.receptacles: list[str] = parse_list(m.group(1)) if m else []
        if not self.receptacles:  # started at a receptacle: the intro shows only where we stand
            actions = self.env.available_actions() or []
            self.receptacles = sorted(
                a.split(" ", 2)[2] if a.startswith("go to ") else a.split(" ", 1)[1]
                for a in actions
                if a.startswith(("go to ", "examine "))
            )
        self.contents: dict[str, list[str]] = {}
        self.holding: str | None = None
        self.transformed = False
        self.target: str | None = None
        self.placed: set[str] = set()
        self.last: str | None = None
        self._episode = self.env.episode

    def _read(self, observation: str) -> None:
        for rx in (_ON, _IN):
            for name, items in rx.findall(observation):
                self.contents[name] = parse_list(items)
        last = self.last
        if last is None:
            return
        if last.startswith("take ") and observation.startswith("You pick up"):
            obj, _, rec = last[5:].partition(" from ")
            self.holding = obj
            if obj in self.contents.get(rec, []):
                self.contents[rec].remove(obj)
        elif (last.startswith("put ") or last.startswith("move ")) and observation.startswith(
            ("You put", "You move")
        ):
            body = last[4:] if last.startswith("put ") else last[5:]
            sep = " in/on " if last.startswith("put ") else " to "
            obj, _, rec = body.partition(sep)
            self.contents.setdefault(rec, []).append(obj)
            self.placed.add(obj)
            self.holding = None
        elif last.split(" ", 1)[0] in ("clean", "heat", "cool") and observation.startswith("You "):
            self.transformed = True

    # -- helpers ------------------------------------------------------------------------------
    def _search_order(self, cls: str, stands: tuple[str, ...] | None = None) -> list[str]:
        def key(name: str) -> tuple:
            rc = _CLASS_OF.get(cls_of(name), "")
            if stands is not None:
                likely = rc in stands
                weight = 1.0
            else:
                likely = _CLASS_OF_OBJ.get(cls, cls) in vocab.CAN_CONTAIN.get(rc, ())
                weight = vocab.PLACEMENT_WEIGHT.get(rc, 1.0)
            return (not likely, -weight, rc in vocab.OPENABLE, cls_of(name), _num(name))

        return sorted(self.receptacles, key=key)

    def _find(
        self, cls: str, exclude: set[str] = frozenset(), avoid_in: str | None = None
    ) -> tuple[str, str] | None:
        """A known ``(object, receptacle)`` of class ``cls``."""
        for rec in self._search_order(cls):
            if rec == avoid_in:
                continue
            for obj in self.contents.get(rec, []):
                if cls_of(obj) == cls and obj not in exclude:
                    return obj, rec
        return None

    def _reach(self, rec: str, actions: list[str]) -> str | None:
        """The command that brings ``rec`` within reach (go there, open it), or None if it is."""
        if f"go to {rec}" in actions:
            return f"go to {rec}"
        if f"open {rec}" in actions:
            return f"open {rec}"
        return None

    def _explore(self, order: list[str], actions: list[str]) -> str | None:
        for rec in order:
            if rec in self.contents:
                continue
            return self._reach(rec, actions) or f"examine {rec}"
        return None

    # -- policy -------------------------------------------------------------------------------
    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        if self._episode != self.env.episode:
            self._start(observation)
        self._read(observation)
        actions = list(info.get("available_actions") or self.env.available_actions() or [])
        action = self._decide(actions)
        if action not in actions:
            action = "look"
        self.last = action
        return action

    def _decide(self, actions: list[str]) -> str:
        tt = self.goal.task_type
        held = self.holding
        if held is not None and cls_of(held) != self.obj:
            # holding something else: put it back where it can go
            for a in actions:
                if a.startswith(("put ", "move ")) and a.split(" ")[1:3] == held.split(" "):
                    return a
        if held is None or cls_of(held) != self.obj:
            return self._get_object(actions)
        if tt == "look_at_obj_in_light":
            return self._use_lamp(actions)
        if tt in _TRANSFORM and not self.transformed:
            verb, appliance = _TRANSFORM[tt]
            for a in actions:
                if a.startswith(f"{verb} {held} with {appliance} "):
                    return a
            sites = sorted((r for r in self.receptacles if cls_of(r) == appliance), key=_num)
            return self._reach(sites[0], actions) or "look"
        return self._place(held, actions)

    def _get_object(self, actions: list[str]) -> str:
        avoid = self.target if self.goal.task_type == "pick_two_obj_and_place" else None
        found = self._find(self.obj, exclude=self.placed, avoid_in=avoid)
        if found is not None:
            obj, rec = found
            take = f"take {obj} from {rec}"
            if take in actions:
                return take
            return self._reach(rec, actions) or take
        return self._explore(self._search_order(self.obj), actions) or "look"

    def _use_lamp(self, actions: list[str]) -> str:
        for rec, items in self.contents.items():
            for obj in items:
                if cls_of(obj) == self.toggle:
                    use = f"use {obj}"
                    if use in actions:
                        return use
                    return self._reach(rec, actions) or use
        stands = vocab.LAMP_STANDS.get(_CLASS_OF_OBJ.get(self.toggle, ""), ())
        return self._explore(self._search_order(self.toggle, stands), actions) or "look"

    def _place(self, held: str, actions: list[str]) -> str:
        if self.target is None:
            sites = [r for r in self.receptacles if cls_of(r) == self.recep]
            sites.sort(key=lambda r: (_CLASS_OF.get(cls_of(r), "") in vocab.OPENABLE, _num(r)))
            self.target = sites[0] if sites else None
        if self.target is None:
            return "look"
        for a in actions:
            if a in (f"put {held} in/on {self.target}", f"move {held} to {self.target}"):
                return a
        return self._reach(self.target, actions) or "look"


#: lowercased object class -> THOR class
_CLASS_OF_OBJ = {
    c.lower(): c
    for c in set().union(
        *vocab.CAN_CONTAIN.values(),
        vocab.TOGGLEABLE,
        *[set(v) for v in vocab.ROOM_OBJECTS.values()],
    )
}
