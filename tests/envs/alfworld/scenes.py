"""Hand-written ALFWorld scenes for the tests (the reference's probe kitchen)."""

from __future__ import annotations

from agentgym_envs.envs.alfworld import vocab
from agentgym_envs.envs.alfworld.world import Goal, Item, Receptacle, Scene, mangle

START = mangle("loc|0|0|0|0")
LOC = {
    name: mangle(f"loc|{n}|{-n}|{n % 4}|30")
    for n, name in enumerate(
        ["cab", "cab1", "counter", "fridge", "micro", "sink", "side", "drawer"], start=1
    )
}


def _r(thor: str, rtype: str, loc: str) -> Receptacle:
    return Receptacle(mangle(thor), rtype, LOC[loc], rtype in vocab.OPENABLE)


RECEPTACLES = (
    _r(
        "Cabinet|-00.40|+00.50|-02.20", "Cabinet", "cab"
    ),  # cabinet 3 (shares a spot with cabinet 2)
    _r("Cabinet|-00.70|+00.50|-02.20", "Cabinet", "cab"),  # cabinet 2
    _r("Cabinet|+01.20|+00.50|-02.20", "Cabinet", "cab1"),  # cabinet 1
    _r("CounterTop|-01.87|+00.95|+00.43", "CounterTop", "counter"),
    _r("Fridge|-02.10|+00.00|+01.07", "Fridge", "fridge"),
    _r("Microwave|+01.00|+00.90|+00.10", "Microwave", "micro"),
    _r("Sink|-01.99|+00.91|-01.50|SinkBasin", "SinkBasin", "sink"),
    _r("SideTable|+00.80|+00.60|+01.50", "SideTable", "side"),
    _r("Drawer|-01.50|+00.70|+00.30", "Drawer", "drawer"),
)
_BY = {r.rtype + (r.id[-3:] if r.rtype == "Cabinet" else ""): r for r in RECEPTACLES}


def _i(thor: str, otype: str, recep: Receptacle, state=frozenset()) -> Item:
    return Item(
        mangle(thor), otype, recep.id, recep.location, vocab.affordances(otype), frozenset(state)
    )


def probe_scene(extra_items=()) -> Scene:
    counter, fridge = _BY["CounterTop"], _BY["Fridge"]
    side, cab3 = _BY["SideTable"], RECEPTACLES[0]
    items = (
        _i("Apple|-01.05|+00.90|-00.22", "Apple", counter),  # apple 2 (sorts first)
        _i("Apple|+00.30|+00.90|+00.50", "Apple", fridge, {"isCool"}),  # apple 1
        _i("Knife|-01.70|+00.95|+00.40", "Knife", counter),
        _i("Mug|+01.10|+00.55|-02.10", "Mug", cab3),
        _i("DeskLamp|+00.80|+00.70|+01.50", "DeskLamp", side),
        _i("AlarmClock|+00.70|+00.70|+01.40", "AlarmClock", side),
    ) + tuple(extra_items)
    rtypes = {r.rtype for r in RECEPTACLES}
    otypes = {i.otype for i in items}
    can = frozenset(
        (rt, ot) for rt in rtypes for ot in otypes if ot in vocab.CAN_CONTAIN.get(rt, ())
    )
    locations = tuple(sorted(set(LOC.values()) | {START}))
    return Scene(RECEPTACLES, items, locations, START, can, "Kitchen", 1)


def goal(task_type: str, obj: str, recep: str = "", toggle: str = "") -> Goal:
    template = vocab.TEMPLATES[task_type][0]
    return Goal(
        task_type,
        obj,
        recep,
        toggle,
        template.format(obj=obj.lower(), recep=recep.lower(), toggle=toggle.lower()),
    )
