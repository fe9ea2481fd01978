"""Whether a planned path still holds on a grid: the checks behind is_path_valid and the
`when_blocked` replanning rule.

A point of a path is invalid where its cell is outside the map or blocked
(`PlanningGrid.points_blocked`). Checking starts at the point nearest the robot, so the part
already driven never counts. For replanning, the grid a path was planned on is compared with
the new one: only points that the change newly blocked count, so a robot standing in the
inflated band keeps its path; a path that stops short of its goal (the goal tolerance chose
another cell) is planned again when a cell nearer the goal has become free and reachable.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import NoValidPathFound
from .grid_plan import GridPlan
from .planning_grid import PlanningGrid
from .targets import choose_targets

# A start farther than this many cells (or the robot radius, if larger) from every point of
# the path has left it.
OFF_PATH_CELLS = 2.0


def nearest_index(points: np.ndarray, robot: tuple[float, float]) -> int:
    """The index of the point (rows of `points`, (n, 2)) nearest `robot` (the first of equally
    near ones)."""
    distances = np.hypot(points[:, 0] - robot[0], points[:, 1] - robot[1])
    return int(np.argmin(distances))


def invalid_indices(grid: PlanningGrid, points: np.ndarray, first: int) -> list[int]:
    """Indices from `first` on whose point (a row of `points`, (n, 2)) is missing (NaN: not
    finite, or not to be placed in the map's frame), outside the map or on a blocked cell."""
    rest = points[first:]
    known = np.isfinite(rest).all(axis=1)
    invalid = np.ones(len(rest), dtype=bool)
    if known.any():
        invalid[known] = grid.points_blocked(rest[known])
    return (first + np.flatnonzero(invalid)).tolist()


def off_path_distance(grid: PlanningGrid) -> float:
    """Metres from the path beyond which the start has left it."""
    return max(OFF_PATH_CELLS * grid.resolution, grid.robot_radius)


def replan_reason(
    before: PlanningGrid | None, after: PlanningGrid, path: np.ndarray | None,
    start: tuple[float, float] | None, short_of: ShortOf | None = None,
) -> str | None:
    """Why the path (world points, (n, 2)) planned on `before` must be planned again on
    `after`, or None when it may stay: no path, a new map geometry, a start off the path, a
    point ahead of the robot that the change newly blocked, or, for a path that stops short of
    its goal (`short_of`), a cell nearer the goal that the robot can reach now."""
    if path is None or len(path) == 0:
        return "there is no current path"
    if before is None or not before.map.same_cells(after.map):
        return "the map's geometry changed"
    first = 0
    if start is not None:
        first = nearest_index(path, start)
        if np.hypot(*(path[first] - start)) > off_path_distance(after):
            return "the start has left the path"
    ahead = path[first:]
    newly = after.points_blocked(ahead) & ~before.points_blocked(ahead)
    if newly.any():
        return f"pose {first + int(np.argmax(newly))} of the path is now blocked"
    if short_of is not None and short_of.nearer_reachable(after, path[first]):
        return "a cell nearer the goal than the path's end is free and reachable now"
    return None


@dataclass(frozen=True)
class ShortOf:
    """A path that ends at `reached`, the free cell the goal tolerance chose nearest the goal
    cell `goal` (which was blocked or cut off)."""

    goal: tuple[int, int]
    reached: tuple[int, int]

    @classmethod
    def of(cls, plan: GridPlan | None) -> ShortOf | None:
        """Where `plan` stops short of its goal; None when it reaches it (or is None)."""
        if plan is None or not plan.goal_adjusted:
            return None
        return cls(plan.requested_goal_cell, plan.goal_cell)

    def nearer_reachable(self, grid: PlanningGrid, origin: np.ndarray) -> bool:
        """Whether, on `grid`, a path from the world point `origin` (where the robot is on the
        path) can reach a free cell nearer the goal than `reached` (Euclidean, as the tolerance
        window ranks cells): a plan would now end nearer, or at the goal (a map that uncovers
        unknown space, a door that opens). When the path was planned, no such cell was."""
        x, y = grid.world_to_cell(float(origin[0]), float(origin[1]))
        if not grid.contains_cell(x, y):
            return False
        (gx, gy), (rx, ry) = self.goal, self.reached
        # The tolerance window (|dx|, |dy| <= its half-width) holds `reached`, so it holds this
        # square: a cell outside it may lie outside the window, where no plan would end.
        half = max(abs(rx - gx), abs(ry - gy))
        try:
            targets = choose_targets(grid, grid.cell_index(x, y), grid.cell_index(gx, gy), half)
        except NoValidPathFound:  # nothing in the square the robot can reach
            return False
        nx, ny = grid.index_cell(int(targets[0]))
        return (nx - gx) ** 2 + (ny - gy) ** 2 < (rx - gx) ** 2 + (ry - gy) ** 2
