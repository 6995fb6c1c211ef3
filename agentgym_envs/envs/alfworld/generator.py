"""Seeded ALFWorld-style scenes and tasks.

``generate(seed_key, task_type)`` builds a room of one of ALFRED's four types with ALFRED's
vocabulary (receptacle and object classes with the frequencies seen over its 120 floorplans),
THOR-style ids (``Cabinet|-01.25|+00.50|+02.00``) mangled as ALFWorld's problems mangle them,
locations shared by neighbouring drawers, shelves and burners, and one goal of the requested
type written with ALFWorld's templates. Every task is solvable, and its goal does not hold at
the start.
"""

from __future__ import annotations

import random

from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.world import Goal, Item, Receptacle, Scene, mangle

_SHARED_LOCATION = {"Drawer": 0.45, "Shelf": 0.5, "StoveBurner": 0.6, "Cabinet": 0.3}
_HORIZONS = (0, 15, 30, 45, 60)


def _coord(rng: random.Random, lo: float, hi: float) -> str:
    return f"{rng.uniform(lo, hi):+06.2f}"


class _Ids:
    """Unique THOR ids and locations for one scene."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()
        self.cells: set[tuple[int, int, int, int]] = set()

    def thor(self, cls: str, suffix: str = "") -> tuple[str, tuple[float, float]]:
        while True:
            x, y, z = (
                _coord(self.rng, -4.0, 4.0),
                _coord(self.rng, 0.0, 2.0),
                _coord(self.rng, -4.0, 4.0),
            )
            thor = f"{cls}|{x}|{y}|{z}" + (f"|{suffix}" if suffix else "")
            pid = mangle(thor)
            if pid.lower() not in self.used:
                self.used.add(pid.lower())
                return pid, (float(x), float(z))

    def location(self, near: tuple[float, float] | None = None) -> str:
        while True:
            if near is None:
                gx, gz = self.rng.randint(-12, 12), self.rng.randint(-12, 12)
            else:
                gx = round(near[0] / 0.25) + self.rng.randint(-3, 3)
                gz = round(near[1] / 0.25) + self.rng.randint(-3, 3)
            cell = (gx, gz, self.rng.randint(0, 3), self.rng.choice(_HORIZONS))
            if cell not in self.cells:
                self.cells.add(cell)
                return mangle("loc|" + "|".join(str(v) for v in cell))


def _build_scene(rng: random.Random, room: str, task_type: str) -> Scene:
    ids = _Ids(rng)
    needed: set[str] = set()
    if task_type == "pick_clean_then_place_in_recep":
        needed.add("SinkBasin")
    elif task_type == "pick_heat_then_place_in_recep":
        needed.add("Microwave")
    elif task_type == "pick_cool_then_place_in_recep":
        needed.add("Fridge")
    receptacles: list[Receptacle] = []
    positions: dict[str, tuple[float, float]] = {}
    for cls, (p, lo, hi) in vocab.ROOM_RECEPTACLES[room].items():
        if cls not in needed and rng.random() >= p:
            continue
        prev_loc = None
        for _ in range(rng.randint(lo, hi)):
            id_cls = vocab.ID_CLASS.get(cls, cls)
            pid, pos = ids.thor(id_cls, cls if cls in vocab.ID_CLASS else "")
            if prev_loc is not None and rng.random() < _SHARED_LOCATION.get(cls, 0.0):
                loc = prev_loc
            else:
                loc = ids.location(pos)
            prev_loc = loc
            receptacles.append(Receptacle(pid, cls, loc, cls in vocab.OPENABLE))
            positions[pid] = pos
    objects = dict(vocab.ROOM_OBJECTS[room])
    items: list[Item] = []
    # a light task needs a lamp: the room type's usual lamp is always there for it
    forced_lamp = (
        {"LivingRoom": "FloorLamp", "Bedroom": "DeskLamp"}.get(room)
        if task_type == ("look_at_obj_in_light")
        else None
    )
    for cls, (p, lo, hi) in objects.items():
        is_lamp = cls in vocab.TOGGLEABLE
        if rng.random() >= p and cls != forced_lamp:
            continue
        for _ in range(rng.randint(lo, hi)):
            if is_lamp:
                hosts = [r for r in receptacles if r.rtype in vocab.LAMP_STANDS[cls]]
                weights = [1.0] * len(hosts)
            else:
                hosts = [r for r in receptacles if cls in vocab.CAN_CONTAIN.get(r.rtype, ())]
                weights = [vocab.PLACEMENT_WEIGHT.get(r.rtype, 1.0) for r in hosts]
            if not hosts:
                break
            host = rng.choices(hosts, weights=weights)[0]
            pid, _ = ids.thor(cls)
            state = (
                frozenset({"isCool"})
                if host.rtype == "Fridge" and cls in vocab.COOLABLE
                else frozenset()
            )
            items.append(Item(pid, cls, host.id, host.location, vocab.affordances(cls), state))
    start = ids.location()
    rtypes = {r.rtype for r in receptacles}
    otypes = {i.otype for i in items}
    can_contain = frozenset(
        (rt, ot) for rt in rtypes for ot in otypes if ot in vocab.CAN_CONTAIN.get(rt, ())
    )
    locations = tuple(sorted({r.location for r in receptacles} | {start}))
    floorplan = vocab.SCENE_BASE[room] + rng.randint(1, 30)
    return Scene(tuple(receptacles), tuple(items), locations, start, can_contain, room, floorplan)


def _choose_goal(rng: random.Random, scene: Scene, task_type: str) -> Goal | None:
    items, recs = scene.items, scene.receptacles
    rtype_of = {r.id: r.rtype for r in recs}
    counts: dict[str, int] = {}
    for i in items:
        if "pickupable" in i.props:
            counts[i.otype] = counts.get(i.otype, 0) + 1
    if task_type == "look_at_obj_in_light":
        lamps = sorted({i.otype for i in items if "toggleable" in i.props})
        objs = sorted(o for o in counts if o not in vocab.RECEPTACLE_OBJECTS)
        if not lamps or not objs:
            return None
        obj, toggle = rng.choice(objs), rng.choice(lamps)
        template = rng.choice(vocab.TEMPLATES[task_type])
        return Goal(
            task_type, obj, "", toggle, template.format(obj=obj.lower(), toggle=toggle.lower())
        )
    prop = {
        "pick_clean_then_place_in_recep": "cleanable",
        "pick_heat_then_place_in_recep": "heatable",
        "pick_cool_then_place_in_recep": "coolable",
    }.get(task_type)
    need = 2 if task_type == "pick_two_obj_and_place" else 1
    rtypes = sorted({r.rtype for r in recs})
    pairs = []
    for obj, n in sorted(counts.items()):
        if n < need or (prop and prop not in vocab.affordances(obj)):
            continue
        occupied = {rtype_of[i.receptacle] for i in items if i.otype == obj and i.receptacle}
        for rt in rtypes:
            if (
                rt in vocab.NEVER_TARGET
                or rt in vocab.EXCLUDED_TARGETS.get(task_type, ())
                or obj not in vocab.CAN_CONTAIN.get(rt, ())
                or rt in occupied
            ):
                continue
            pairs.append((obj, rt))
    if not pairs:
        return None
    obj, recep = rng.choice(pairs)
    template = rng.choice(vocab.TEMPLATES[task_type])
    return Goal(task_type, obj, recep, "", template.format(obj=obj.lower(), recep=recep.lower()))


def generate(seed_key: str, task_type: str, room: str | None = None) -> tuple[Scene, Goal]:
    """A scene and a goal of ``task_type``, fully determined by ``seed_key``."""
    if task_type not in vocab.TASK_TYPES:
        raise ValueError(
            f"unknown task type {task_type!r}: use one of {', '.join(vocab.TASK_TYPES)}"
        )
    rng = random.Random(f"alfworld/{seed_key}")
    rooms = vocab.GOALS_VALID[task_type]
    if room is not None and room not in rooms:
        raise ValueError(f"{task_type} is not valid in a {room}: use one of {', '.join(rooms)}")
    for _ in range(100):
        chosen = room or rng.choice(rooms)
        scene = _build_scene(rng, chosen, task_type)
        goal = _choose_goal(rng, scene, task_type)
        if goal is not None:
            return scene, goal
    raise RuntimeError(
        f"could not generate a {task_type} task for {seed_key!r}"
    )  # pragma: no cover
