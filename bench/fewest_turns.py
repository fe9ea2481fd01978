"""The least total heading change of any 8-connected path between two cells: a reference for the
path-quality goal on turning.

A corner turns as far however smoothly it is rounded, so a route's unavoidable corners bound
what any smoothing can reach. This finds the fewest 45-degree turns an 8-connected path (no
corner cutting, as the planner's) needs from start to goal, the first step's heading free: a
search by turn count over (cell, heading) states, where a step ahead costs nothing and a turn
of 45 degrees in place costs one. A smoothed path is not 8-connected and may turn less where its
route bends by less than 45 degrees; in corridors along the axes, as on the warehouse, it
cannot.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Headings by angle, 45 degrees apart, counter-clockwise from +x.
_DX = np.array([1, 1, 0, -1, -1, -1, 0, 1], dtype=np.int64)
_DY = np.array([0, 1, 1, 1, 0, -1, -1, -1], dtype=np.int64)
DEGREES_PER_TURN = 45


@njit(cache=True)
def _push(stack: np.ndarray, top: int, state: int) -> np.ndarray:
    if top == stack.shape[0]:
        grown = np.empty(2 * stack.shape[0], dtype=np.int64)
        grown[:top] = stack[:top]
        stack = grown
    stack[top] = state
    return stack


@njit(cache=True)
def _fewest_turns(free, width, height, start, goal, dx, dy):
    """Fewest 45-degree turns from flat cell `start` to `goal` over `free`, or -1."""
    settled = np.zeros(free.shape[0] * 8, dtype=np.bool_)
    here = np.empty(1 << 16, dtype=np.int64)
    later = np.empty(1 << 16, dtype=np.int64)
    top = 0
    for heading in range(8):
        here = _push(here, top, start * 8 + heading)
        top += 1
    turns = 0
    while top > 0:
        waiting = 0
        while top > 0:
            top -= 1
            state = here[top]
            if settled[state]:
                continue
            settled[state] = True
            cell, heading = divmod(state, 8)
            if cell == goal:
                return turns
            y, x = divmod(cell, width)
            nx, ny = x + dx[heading], y + dy[heading]
            if 0 <= nx < width and 0 <= ny < height and free[ny * width + nx] and (
                heading % 2 == 0 or (free[y * width + nx] and free[ny * width + x])
            ):
                ahead = (ny * width + nx) * 8 + heading
                if not settled[ahead]:
                    here = _push(here, top, ahead)
                    top += 1
            for turned in ((heading + 1) % 8, (heading + 7) % 8):
                if not settled[cell * 8 + turned]:
                    later = _push(later, waiting, cell * 8 + turned)
                    waiting += 1
        here, later = later, here
        top = waiting
        turns += 1
    return -1


def fewest_turns_deg(free: np.ndarray, width: int, start: tuple[int, int],
                     goal: tuple[int, int]) -> float | None:
    """The least total heading change (degrees) of an 8-connected path from cell `start` to
    `goal` ((x, y)) over the flat bool mask `free`; None when no path exists."""
    height = free.size // width
    turns = _fewest_turns(np.ascontiguousarray(free, dtype=np.bool_).reshape(-1), width, height,
                          start[1] * width + start[0], goal[1] * width + goal[0], _DX, _DY)
    return None if turns < 0 else float(turns * DEGREES_PER_TURN)
