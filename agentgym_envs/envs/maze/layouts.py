"""Maze layouts: LMRL-Gym's fixed double-T maze, and seeded perfect mazes."""

from __future__ import annotations

import numpy as np

WALL, FREE = 1, 0

#: LMRL-Gym's ``double_t_maze`` (1 = wall), goal at row 8, column 6.
DOUBLE_T = np.array(
    [
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        [1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1],
        [1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1],
        [1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1],
        [1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1],
        [1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    ],
    dtype=np.uint8,
)
DOUBLE_T_GOAL = (8, 6)


#: AgentGym's start cells for the double-T maze, in the order its server indexes them
#: (``agentenv-lmrlgym``'s maze reset, ``game`` i -> cell i). Its list has a 26th entry, the goal
#: cell itself, which its server cannot start (the reset fails); it is not a task here.
AGENTGYM_STARTS: tuple[tuple[int, int], ...] = (
    (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 7), (1, 8), (1, 9), (1, 10), (1, 11),
    (2, 3), (3, 3), (4, 3), (5, 3), (5, 4), (5, 5), (5, 6), (6, 6), (7, 6),
    (5, 7), (5, 8), (5, 9), (4, 9), (3, 9), (2, 9),
)  # fmt: skip


def double_t_starts() -> list[tuple[int, int]]:
    """The 25 start cells, in AgentGym's order (``maze_i`` starts at the i-th)."""
    return list(AGENTGYM_STARTS)


def perfect_maze(rows: int, cols: int, rng: np.random.Generator) -> np.ndarray:
    """A maze of ``rows`` x ``cols`` rooms with exactly one path between any two rooms.

    Randomised depth-first carving; the grid has walls between rooms, so it is
    ``(2*rows + 1) x (2*cols + 1)`` with room ``(r, c)`` at cell ``(2r + 1, 2c + 1)``.
    """
    grid = np.ones((2 * rows + 1, 2 * cols + 1), dtype=np.uint8)
    seen = np.zeros((rows, cols), dtype=bool)
    stack = [(int(rng.integers(rows)), int(rng.integers(cols)))]
    seen[stack[0]] = True
    grid[2 * stack[0][0] + 1, 2 * stack[0][1] + 1] = FREE
    while stack:
        r, c = stack[-1]
        nbrs = [
            (r + dr, c + dc)
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < rows and 0 <= c + dc < cols and not seen[r + dr, c + dc]
        ]
        if not nbrs:
            stack.pop()
            continue
        nr, nc = nbrs[int(rng.integers(len(nbrs)))]
        seen[nr, nc] = True
        grid[r + nr + 1, c + nc + 1] = FREE  # the wall between the two rooms
        grid[2 * nr + 1, 2 * nc + 1] = FREE
        stack.append((nr, nc))
    return grid


def shortest_path(
    grid: np.ndarray, start: tuple[int, int], goal: tuple[int, int]
) -> list[tuple[int, int]]:
    """Cells from ``start`` to ``goal`` inclusive (breadth-first), or ``[]`` if unreachable."""
    from collections import deque

    prev: dict[tuple[int, int], tuple[int, int] | None] = {start: None}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            path = [cell]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        r, c = cell
        for nxt in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if grid[nxt] == FREE and nxt not in prev:
                prev[nxt] = cell
                queue.append(nxt)
    return []
