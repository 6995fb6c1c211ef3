"""BabyAI's scripted expert: a planner on the true grid that acts through the text actions.

It reads the mission's verifier (which sub-instruction is still pending), plans a shortest
route on the real grid (opening doors on the way, fetching keys for locked doors, taking
keys out of boxes, moving blockers aside without cutting the room in two) and answers with
the env's own actions: a macro (``go to red ball 1``, ``pickup grey key 2``,
``toggle and go through blue closed door 1``) when its target, or a waypoint on its route,
is in view, else one primitive step (``turn left``, ``move forward``, ``toggle``, ``drop``).
"""

from __future__ import annotations

import heapq
from typing import Any

from agentgym_envs.envs.babyai import view as V
from agentgym_envs.envs.babyai.env import BabyAIEnv

_DIR_VEC = ((1, 0), (0, 1), (-1, 0), (0, -1))
_MOVABLE = ("key", "ball", "box")


def pending(instr: Any) -> Any:
    """The atomic instruction the mission waits for next (minigrid's verifier state)."""
    kind = type(instr).__name__
    if kind == "BeforeInstr":
        return pending(instr.instr_a if instr.a_done != "success" else instr.instr_b)
    if kind == "AfterInstr":
        return pending(instr.instr_b if instr.b_done != "success" else instr.instr_a)
    if kind == "AndInstr":
        return pending(instr.instr_a if instr.a_done != "success" else instr.instr_b)
    return instr


def search(
    mg: Any, goals: set[tuple[int, int]], mode: int
) -> list[tuple[int, tuple[int, int] | None]] | None:
    """Cheapest low-level route to face a cell in ``goals``: a list of ``(action, cell entered)``.

    ``mode`` 0 crosses closed doors (and locked ones whose key is carried); 1 also crosses
    locked doors; 2 also crosses movable objects. Crossing costs more than walking, so a
    route avoids what it would have to clear.
    """
    width, height, cells = mg.width, mg.height, mg.grid.grid
    carrying = mg.carrying
    key = carrying.color if carrying is not None and carrying.type == "key" else None

    def enter(x: int, y: int) -> int | None:
        if not (0 <= x < width and 0 <= y < height):
            return None
        c = cells[y * width + x]
        if c is None:
            return 1
        t = c.type
        if t == "door":
            if c.is_open:
                return 1
            if not c.is_locked or key == c.color:
                return 2
            return 12 if mode >= 1 else None
        if t in _MOVABLE:
            return 25 if mode >= 2 else None
        if c.can_overlap() and t != "lava":
            return 1
        return None

    start = (int(mg.agent_pos[0]), int(mg.agent_pos[1]), int(mg.agent_dir))
    best = {start: 0}
    parent: dict[tuple[int, int, int], tuple[tuple[int, int, int], int]] = {}
    heap = [(0, 0, start)]
    tick = 0
    while heap:
        cost, _, state = heapq.heappop(heap)
        if cost > best[state]:
            continue
        x, y, d = state
        dx, dy = _DIR_VEC[d]
        if (x + dx, y + dy) in goals:
            route = []
            while state != start:
                state, action = parent[state]
                route.append(action)
            route.reverse()
            out, (cx, cy, cd) = [], start
            for action in route:
                if action == V.FORWARD:
                    ddx, ddy = _DIR_VEC[cd]
                    cx, cy = cx + ddx, cy + ddy
                    out.append((action, (cx, cy)))
                else:
                    cd = (cd - 1) % 4 if action == V.LEFT else (cd + 1) % 4
                    out.append((action, None))
            return out
        step = enter(x + dx, y + dy)
        for action, nxt, c in (
            (V.LEFT, (x, y, (d - 1) % 4), 1),
            (V.RIGHT, (x, y, (d + 1) % 4), 1),
            (V.FORWARD, (x + dx, y + dy, d), step),
        ):
            if c is None:
                continue
            new = cost + c
            if new < best.get(nxt, 1 << 30):
                best[nxt] = new
                parent[nxt] = (state, action)
                tick += 1
                heapq.heappush(heap, (new, tick, nxt))
    return None


class BabyAIExpert:
    """Solves BabyAI missions through :class:`BabyAIEnv`'s text actions (see module docs)."""

    def __init__(self, env: BabyAIEnv) -> None:
        self.env = env
        self._episode = -1
        #: Where the carried object is being taken to be put down (kept until it is dropped).
        self._drop_at: tuple[int, int] | None = None

    # -- entry point ------------------------------------------------------------------------
    def __call__(self, observation: str, info: dict[str, Any]) -> str:
        self.mg = self.env.mg
        if self._episode != self.env.episode:
            self._episode, self._drop_at = self.env.episode, None
        try:
            if self._drop_at is not None:
                if self.mg.carrying is not None and self.mg.grid.get(*self._drop_at) is None:
                    if self._front_pos() == self._drop_at:
                        self._drop_at = None
                        return "drop"
                    return self._face_cells({self._drop_at}, depth=0)
                self._drop_at = None
            return self._decide(pending(self.mg.instrs))
        except _Stuck:
            return "turn left"

    def _decide(self, instr: Any) -> str:
        mg = self.mg
        carrying = mg.carrying
        kind = type(instr).__name__
        if kind == "GoToInstr":
            targets = [o for o in instr.desc.obj_set if o is not carrying]
            if not targets:
                return self._drop_safely()
            return self._face(targets, verb="go to")
        if kind == "PickupInstr":
            # keep what is carried (it may be the key of a door on the way) until the target is reached
            return self._face(list(instr.desc.obj_set), verb="pickup")
        if kind == "OpenInstr":
            doors = list(instr.desc.obj_set)
            openable = [d for d in doors if not d.is_locked or self._has_key(d.color)]
            front = self._front()
            if front is not None and any(front is d for d in openable):
                return "toggle"  # an open door closes now and opens on the next toggle
            if not openable:
                return self._unlock(doors[0], depth=0)
            return self._face(openable, verb="go to")
        if kind == "PutNextInstr":
            if carrying is not None and any(carrying is o for o in instr.desc_move.obj_set):
                spots = self._spots_next_to(instr.desc_fixed.obj_set)
                if self._front_pos() in spots:
                    return "drop"
                return self._face_cells(spots, depth=0)
            spots = self._spots_next_to(instr.desc_fixed.obj_set)
            if spots and search(mg, spots, 0) is None:
                return self._face_cells(spots, depth=0)  # clear the way first, hands free
            return self._face(list(instr.desc_move.obj_set), verb="pickup")
        raise _Stuck(kind)

    # -- reaching things ------------------------------------------------------------------------
    def _face(self, objs: list[Any], verb: str, depth: int = 0) -> str:
        """Next action towards facing (and, for ``pickup``, picking up) one of ``objs``."""
        mg = self.mg
        placed = [o for o in objs if self._where(o) is not None]
        front = self._front()
        if front is not None and any(front is o for o in placed):
            if verb == "pickup":
                return self._drop_safely() if mg.carrying is not None else self._pickup_front()
            if verb == "toggle":
                return "toggle"
        # a macro straight to a visible target, when its planned walk really gets there
        view = self.env.view
        for name, thing in view.targets.items():
            if not name.startswith(("go to ", "pickup ")) or not any(
                thing.pos == self._where(o) for o in placed
            ):
                continue
            if name.startswith("pickup ") and (verb != "pickup" or mg.carrying is not None):
                continue
            plan = view.actions[name]
            walk = plan[:-1] if name.startswith("pickup ") else plan
            if walk and _simulate(mg, walk) is not None and _faces(mg, walk, thing.pos):
                return name
        return self._face_cells({self._where(o) for o in placed}, depth)

    def _face_cells(self, goals: set[tuple[int, int]], depth: int) -> str:
        mg = self.mg
        if not goals or depth > 6:
            raise _Stuck("no goal")
        route = search(mg, goals, 0)
        if route is not None:
            return self._follow(route)
        for mode in (1, 2):
            route = search(mg, goals, mode)
            if route is None:
                continue
            for _action, cell in route:
                if cell is None:
                    continue
                c = mg.grid.get(*cell)
                if c is None:
                    continue
                if c.type == "door" and c.is_locked:
                    # open a door whose key we hold before anything else (its key may be dropped later)
                    return self._unlock(c, depth + 1)
                if c.type in _MOVABLE:
                    return self._clear(c, depth + 1)
        raise _Stuck("unreachable")

    def _follow(self, route: list[tuple[int, tuple[int, int] | None]]) -> str:
        """First step of ``route``, as a macro through the first closed door when it is in view."""
        mg = self.mg
        cells: list[tuple[int, int]] = []  # cells walked, up to the first closed door
        for _action, cell in route:
            if cell is None:
                continue
            c = mg.grid.get(*cell)
            if c is not None and c.type == "door" and not c.is_open:
                view = self.env.view
                for name, thing in view.targets.items():
                    if name.startswith("toggle and go through ") and thing.pos == cell:
                        walk = view.actions[name][:-2]
                        fits = len(walk) + 2 <= _steps_to(route, cell) + 1
                        if fits and _simulate(mg, walk) is not None and _faces(mg, walk, cell):
                            return name
                break
            cells.append(cell)
        if not route:
            return "turn left"
        shortcut = self._waypoint(cells)
        if shortcut is not None:
            return shortcut
        action, cell = route[0]
        if action == V.LEFT:
            return "turn left"
        if action == V.RIGHT:
            return "turn right"
        front = self._front()
        if front is not None and front.type == "door" and not front.is_open:
            return "toggle"
        return "move forward"

    def _waypoint(self, cells: list[tuple[int, int]]) -> str | None:
        """A ``go to`` / ``go through`` macro whose walk ends on ``cells`` (the route) at least
        two cells along it, in no more low-level steps than the route takes to get there."""
        if len(cells) < 2:
            return None
        along = {cell: i for i, cell in enumerate(cells)}
        view, best, best_i = self.env.view, None, 1
        for name in view.targets:
            if not name.startswith(("go to ", "go through ")):
                continue
            plan = view.actions[name]
            end = _simulate(self.mg, plan) if plan else None
            if end is None or along.get(end, -1) <= best_i:
                continue
            if (
                sum(1 for a in plan if a == V.FORWARD) == along[end] + 1
                and len(plan) <= along[end] + 4
            ):
                best, best_i = name, along[end]
        return best

    def _unlock(self, door: Any, depth: int) -> str:
        """Next action towards opening a locked ``door``: fetch its key (from a box if need be)."""
        mg = self.mg
        if self._has_key(door.color):
            if self._front() is door:
                return "toggle"
            return self._face_cells({self._where(door)}, depth)
        door_pos = self._where(door)
        if door_pos is not None and search(mg, {door_pos}, 0) is None:
            return self._face_cells({door_pos}, depth)  # clear the way to the door first
        keys, boxes = [], []
        for obj in mg.grid.grid:
            if obj is None:
                continue
            if obj.type == "key" and obj.color == door.color:
                keys.append(obj)
            elif (
                obj.type == "box"
                and obj.contains is not None
                and obj.contains.type == "key"
                and obj.contains.color == door.color
            ):
                boxes.append(obj)
        if keys:
            return self._face(keys, verb="pickup", depth=depth)
        if boxes:
            return self._face(boxes, verb="toggle", depth=depth)
        raise _Stuck("no key")

    def _clear(self, obj: Any, depth: int) -> str:
        """Next action towards picking up a blocking ``obj`` (it is put down elsewhere later);
        a box with something inside is opened instead (its content may be a key we need)."""
        if obj.type == "box" and obj.contains is not None:
            return self._face([obj], verb="toggle", depth=depth)
        return self._face([obj], verb="pickup", depth=depth)

    # -- putting things down ----------------------------------------------------------------------
    def _drop_safely(self) -> str:
        """Next action towards dropping the carried object where it blocks nothing."""
        mg = self.mg
        reach = reachable_cells(mg)
        doors = set()
        busy = set()
        for i, obj in enumerate(mg.grid.grid):
            if obj is None:
                continue
            x, y = i % mg.width, i // mg.width
            if obj.type == "door":
                doors.update({(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)})
            elif obj.type in _MOVABLE:
                busy.update({(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)})
        agent = (int(mg.agent_pos[0]), int(mg.agent_pos[1]))
        candidates = [c for c in reach if c != agent and c not in doors and mg.grid.get(*c) is None]
        # prefer spots away from other objects, then near the agent
        candidates.sort(key=lambda c: (c in busy, abs(c[0] - agent[0]) + abs(c[1] - agent[1]), c))
        for c in candidates[:12]:
            if self._keeps_connected(reach, c, agent):
                if self._front_pos() == c:
                    return "drop"
                self._drop_at = c
                return self._face_cells({c}, depth=0)
        if self._front() is None and self._front_pos() in reach:
            return "drop"
        return "turn left"

    @staticmethod
    def _keeps_connected(
        reach: set[tuple[int, int]], cell: tuple[int, int], start: tuple[int, int]
    ) -> bool:
        rest = reach - {cell}
        seen = {start}
        stack = [start]
        while stack:
            x, y = stack.pop()
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if n in rest and n not in seen:
                    seen.add(n)
                    stack.append(n)
        return len(seen) == len(rest)

    def _spots_next_to(self, objs: Any) -> set[tuple[int, int]]:
        mg = self.mg
        spots = set()
        for o in objs:
            pos = self._where(o)
            if pos is None:
                continue
            x, y = pos
            for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= n[0] < mg.width and 0 <= n[1] < mg.height and mg.grid.get(*n) is None:
                    spots.add(n)
        return spots

    # -- small helpers ---------------------------------------------------------------------------
    def _where(self, obj: Any) -> tuple[int, int] | None:
        """The cell holding ``obj`` (``cur_pos`` is stale for an object that came out of a box)."""
        grid = self.mg.grid
        pos = obj.cur_pos
        inside = pos is not None and 0 <= pos[0] < grid.width and 0 <= pos[1] < grid.height
        if inside and grid.get(int(pos[0]), int(pos[1])) is obj:
            return int(pos[0]), int(pos[1])
        for i, cell in enumerate(grid.grid):
            if cell is obj:
                return i % grid.width, i // grid.width
        return None

    def _front_pos(self) -> tuple[int, int]:
        fx, fy = self.mg.front_pos
        return int(fx), int(fy)

    def _front(self) -> Any:
        x, y = self._front_pos()
        if 0 <= x < self.mg.width and 0 <= y < self.mg.height:
            return self.mg.grid.get(x, y)
        return None

    def _has_key(self, color: str) -> bool:
        c = self.mg.carrying
        return c is not None and c.type == "key" and c.color == color

    def _pickup_front(self) -> str:
        view = self.env.view
        for name, plan in view.actions.items():
            if name.startswith("pickup ") and plan == [V.PICKUP]:
                return name
        raise _Stuck("front object not in view")


def reachable_cells(mg: Any) -> set[tuple[int, int]]:
    """Cells the agent can walk to now (open doors count, closed ones do not)."""
    grid = mg.grid
    cells = grid.grid
    width, height = grid.width, grid.height
    start = (int(mg.agent_pos[0]), int(mg.agent_pos[1]))
    seen = {start}
    stack = [start]
    while stack:
        x, y = stack.pop()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if (nx, ny) in seen or not (0 <= nx < width and 0 <= ny < height):
                continue
            c = cells[ny * width + nx]
            if c is None or (c.can_overlap() and c.type != "lava"):
                seen.add((nx, ny))
                stack.append((nx, ny))
    return seen


def _simulate(mg: Any, plan: list[int]) -> tuple[int, int] | None:
    """The cell a plan of turns and forward steps ends on, on the true grid; ``None`` when a
    forward step would bump into something (the env would stop the macro there)."""
    x, y, d = int(mg.agent_pos[0]), int(mg.agent_pos[1]), int(mg.agent_dir)
    for action in plan:
        if action == V.LEFT:
            d = (d - 1) % 4
        elif action == V.RIGHT:
            d = (d + 1) % 4
        elif action == V.FORWARD:
            x, y = x + _DIR_VEC[d][0], y + _DIR_VEC[d][1]
            if not (0 <= x < mg.width and 0 <= y < mg.height):
                return None
            c = mg.grid.get(x, y)
            if c is not None and not (c.can_overlap() and c.type != "lava"):
                return None
        else:
            return None
    return x, y


def _faces(mg: Any, plan: list[int], target: tuple[int, int]) -> bool:
    """Whether the agent faces ``target`` after the turns and steps of ``plan``."""
    x, y = _walk(mg, plan)
    d = int(mg.agent_dir)
    for action in plan:
        if action == V.LEFT:
            d = (d - 1) % 4
        elif action == V.RIGHT:
            d = (d + 1) % 4
    return (x + _DIR_VEC[d][0], y + _DIR_VEC[d][1]) == target


def _steps_to(route: list[tuple[int, tuple[int, int] | None]], cell: tuple[int, int]) -> int:
    """Low-level steps of ``route`` up to (and including) the step into ``cell``."""
    for i, (_action, c) in enumerate(route):
        if c == cell:
            return i + 1
    return len(route)


def _walk(mg: Any, path: list[int]) -> tuple[int, int]:
    """The cell a path of left / right / forward actions ends on."""
    x, y, d = int(mg.agent_pos[0]), int(mg.agent_pos[1]), int(mg.agent_dir)
    for action in path:
        if action == V.LEFT:
            d = (d - 1) % 4
        elif action == V.RIGHT:
            d = (d + 1) % 4
        else:
            x, y = x + _DIR_VEC[d][0], y + _DIR_VEC[d][1]
    return x, y


class _Stuck(Exception):
    """The planner found no way forward (the env then gets a harmless turn)."""
