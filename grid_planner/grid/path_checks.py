"""Whether a planned path still holds on a grid: the checks behind is_path_valid and the
`when_blocked` replanning rule.

A point of a path is invalid where its cell is outside the map or blocked
(`PlanningGrid.points_blocked`). Checking starts at the point nearest the robot, so the part
already driven never counts. For replanning, the grid a path was planned on is compared with
the new one: only points that the change newly blocked count, so a robot standing in the
inflated band keeps its path.
"""

from __future__ import annotations

import numpy as np

from .planning_grid import PlanningGrid

# A start farther than this many cells (or the robot radius, if larger) from every point of
# the path has left it.
OFF_PATH_CELLS = 2.0


def nearest_index(points: np.ndarray, robot: tuple[float, float]) -> int:
    """The index of the point (rows of `points`, (n, 2)) nearest `robot` (the first of equally
    near ones)."""
    distances = np.hypot(points[:, 0] - robot[0], points[:, 1] - robot[1])
    return int(np.argmin(distances))


def invalid_indices(grid: PlanningGrid, points: list[tuple[float, float] | None],
                    first: int) -> list[int]:
    """Indices from `first` on whose point is missing (untransformable), outside the map or
    on a blocked cell."""
    rest = points[first:]
    known = [i for i, point in enumerate(rest) if point is not None]
    invalid = np.ones(len(rest), dtype=bool)
    if known:
        invalid[known] = grid.points_blocked(np.array([rest[i] for i in known]))
    return (first + np.flatnonzero(invalid)).tolist()


def off_path_distance(grid: PlanningGrid) -> float:
    """Metres from the path beyond which the start has left it."""
    return max(OFF_PATH_CELLS * grid.resolution, grid.robot_radius)


def replan_reason(
    before: PlanningGrid | None, after: PlanningGrid, path: np.ndarray | None,
    start: tuple[float, float] | None,
) -> str | None:
    """Why the path (world points, (n, 2)) planned on `before` must be planned again on
    `after`, or None when it may stay: no path, a new map geometry, a start off the path, or a
    point ahead of the robot that the change newly blocked."""
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
    return None
