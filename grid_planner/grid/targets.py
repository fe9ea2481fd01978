"""Where a grid search aims: the goal tolerance window, reachability, and how to name a cell.

A goal tolerance (metres, as in Nav2's GetPlan) becomes a square window of whole cells around
the goal; the search then aims for the free cells of that window that the start can reach and
that lie nearest to the goal. Reachability comes from the grid's precomputed free components,
so an unreachable goal fails at once, without a search.
"""

from __future__ import annotations

import math

import numpy as np

from grid_planner.report import decimal

from .costs import cells_reached
from .errors import GoalOccupied, NoValidPathFound
from .occupancy import UNKNOWN
from .planning_grid import PlanningGrid

# The widest tolerance window, in cells each way: beyond every map's side.
MAX_WINDOW_CELLS = 1 << 31


def tolerance_window_cells(tolerance: float, resolution: float) -> int:
    """The half-width in cells of the tolerance window: floor(tolerance / resolution), at most
    MAX_WINDOW_CELLS (wider than any map: 1e308 m overflowed to an infinite count)."""
    if not (math.isfinite(tolerance) and tolerance >= 0.0):
        raise ValueError(f"goal tolerance must be a finite number >= 0 m, got {tolerance}")
    cells = cells_reached(tolerance, resolution)
    return MAX_WINDOW_CELLS if cells >= MAX_WINDOW_CELLS else math.floor(cells)


def describe_cell(grid: PlanningGrid, index: int) -> str:
    """'cell (x, y) at (wx, wy) m' for messages."""
    x, y = grid.index_cell(index)
    wx, wy = grid.cell_to_world(x, y)
    return f"cell ({x}, {y}) at ({decimal(wx)}, {decimal(wy)}) m"


def why_blocked(grid: PlanningGrid, index: int) -> str:
    """Why a cell may not be entered: lethal (occupied or unknown) or inflated."""
    value = int(grid.map.data[index])
    if grid.index_is_lethal(index):
        kind = "unknown" if value == UNKNOWN else f"occupied (value {value})"
        return f"lethal: {kind}"
    return f"inflated: within robot_radius {grid.robot_radius} m of an obstacle"


def choose_targets(
    grid: PlanningGrid,
    start: int,
    goal: int,
    window: int,
    reachable: set[int] | None = None,
) -> np.ndarray:
    """The flat cells a search from `start` should aim for, given the goal tolerance window.

    With `window == 0`: the goal itself; a blocked goal raises GoalOccupied and an unreachable
    one NoValidPathFound. With `window > 0` (cells, GetPlan's square: |dx| and |dy| both <=
    window): the free cells of the window that `start` can reach and that lie nearest to the
    goal by Euclidean distance (the goal itself when it is free and reachable). Several cells at
    the same distance are all returned, in index order, so the search picks the one with the
    shortest path (the first found, for DFS). None in the window raises NoValidPathFound.
    """
    if reachable is None:
        reachable = grid.reachable_components(start)
    labels = grid.component_labels
    if window == 0:
        if not grid.free_mask[goal]:
            raise GoalOccupied(
                f"goal {describe_cell(grid, goal)} is blocked ({why_blocked(grid, goal)}) "
                "and the goal tolerance reaches no other cell"
            )
        if int(labels[goal]) not in reachable:
            raise NoValidPathFound(
                f"no path from start {describe_cell(grid, start)} to goal "
                f"{describe_cell(grid, goal)}: the goal is not connected to the start"
            )
        return np.array([goal], dtype=np.int64)

    gx, gy = grid.index_cell(goal)
    x0, x1 = max(0, gx - window), min(grid.width - 1, gx + window)
    y0, y1 = max(0, gy - window), min(grid.height - 1, gy + window)
    window_labels = labels.reshape(grid.height, grid.width)[y0 : y1 + 1, x0 : x1 + 1]
    candidate = np.isin(window_labels, np.fromiter(reachable, dtype=np.int32, count=len(reachable)))
    candidate &= window_labels >= 0
    if not candidate.any():
        state = (
            f"blocked ({why_blocked(grid, goal)})"
            if not grid.free_mask[goal]
            else "not connected to the start"
        )
        raise NoValidPathFound(
            f"goal {describe_cell(grid, goal)} is {state}, and no free cell that the start "
            f"{describe_cell(grid, start)} can reach lies within the tolerance window of "
            f"{window} cells ({window * grid.resolution:.3f} m)"
        )
    dy = np.arange(y0, y1 + 1, dtype=np.int64)[:, None] - gy
    dx = np.arange(x0, x1 + 1, dtype=np.int64)[None, :] - gx
    distance2 = np.where(candidate, dx * dx + dy * dy, np.iinfo(np.int64).max)
    rows, cols = np.nonzero(distance2 == distance2.min())
    return ((rows + y0) * grid.width + (cols + x0)).astype(np.int64)
