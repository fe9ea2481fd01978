"""How good a path is for a robot: length, clearance from obstacles, total turning.

`path_quality` measures a plan's poses the same way for every planner setting, so the
benchmark table, the tests and the CLI compare like with like. Clearance is the distance from
a point of the path to the nearest obstacle cell centre (the cells that inflate, see
`planning_grid`), measured exactly, at points at most a quarter cell apart along the path (the
poses and the segments between them).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from grid_planner.jit import njit

from .planning_grid import PlanningGrid
from .smoothing import polyline_length, subdivide

SAMPLE_SPACING_CELLS = 0.25


@njit(cache=True, nogil=True)
def nearest_obstacle_distances(points, obstacle_x, row_start):
    """The distance (cells) from each point (cell coordinates) to the nearest obstacle centre.

    The obstacles are listed by row (`obstacle_rows`): row y's x values, ascending, are
    `obstacle_x[row_start[y]:row_start[y + 1]]`. Rows are visited outwards from the point's
    until a row lies farther than the nearest obstacle found; in each, the nearest obstacle is
    found by bisection. So the time grows with the distance in rows, not with its square
    (`obstacle_clearances` makes the rows the map's shorter side).
    """
    height = row_start.shape[0] - 1
    result = np.full(points.shape[0], np.inf)
    for i in range(points.shape[0]):
        px = points[i, 0]
        py = points[i, 1]
        first = min(max(math.floor(py + 0.5), 0), height - 1)
        best2 = np.inf
        for direction in (1, -1):
            oy = first if direction == 1 else first - 1
            while 0 <= oy < height:
                dy2 = (oy - py) ** 2
                if dy2 >= best2:
                    break
                low = row_start[oy]
                high = row_start[oy + 1]
                if low < high:
                    # The first obstacle at or right of px, and the one before it.
                    a, b = low, high
                    while a < b:
                        middle = (a + b) >> 1
                        if obstacle_x[middle] < px:
                            a = middle + 1
                        else:
                            b = middle
                    for j in (a - 1, a):
                        if low <= j < high:
                            d2 = (obstacle_x[j] - px) ** 2 + dy2
                            if d2 < best2:
                                best2 = d2
                oy += direction
        result[i] = math.sqrt(best2)
    return result


def obstacle_rows(obstacle: np.ndarray, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """The obstacle cells of the flat mask `obstacle` by row: (their x values, row-major, and
    where each row's run starts, `height + 1` entries)."""
    cells = np.flatnonzero(obstacle)
    row_start = np.searchsorted(cells, np.arange(height + 1, dtype=np.int64) * width)
    return (cells % width).astype(np.int32), row_start.astype(np.int64)


def obstacle_clearances(
    obstacle: np.ndarray, width: int, height: int, points: np.ndarray
) -> np.ndarray:
    """`nearest_obstacle_distances` of `points` ((n, 2) cell coordinates) on the flat mask
    `obstacle`, searched along the map's shorter side (a tall map is read transposed), so a
    point visits at most that many rows; infinity everywhere on a map without obstacles."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if not obstacle.any():
        return np.full(points.shape[0], np.inf)
    if height > width:
        obstacle = obstacle.reshape(height, width).T.reshape(-1)
        width, height = height, width
        points = np.ascontiguousarray(points[:, ::-1])
    return nearest_obstacle_distances(points, *obstacle_rows(obstacle, width, height))


@dataclass(frozen=True)
class PathQuality:
    """A path's length (m), minimum and mean clearance (m) and total heading change (deg)."""

    length_m: float
    min_clearance_m: float
    mean_clearance_m: float
    heading_change_deg: float

    def to_dict(self) -> dict:
        """Plain JSON-ready values."""
        return asdict(self)


def total_heading_change(points: np.ndarray) -> float:
    """The sum of the absolute turns (radians) between the segments of a polyline."""
    deltas = np.diff(np.asarray(points, dtype=np.float64), axis=0)
    deltas = deltas[np.hypot(deltas[:, 0], deltas[:, 1]) > 1e-12]
    if len(deltas) < 2:
        return 0.0
    headings = np.arctan2(deltas[:, 1], deltas[:, 0])
    turns = np.angle(np.exp(1j * np.diff(headings)))
    return float(np.abs(turns).sum())


def path_quality(grid: PlanningGrid, cell_points: np.ndarray) -> PathQuality:
    """The quality of the path through `cell_points` (cell coordinates, `(n, 2)`) on `grid`."""
    points = np.asarray(cell_points, dtype=np.float64).reshape(-1, 2)
    samples = subdivide(points, SAMPLE_SPACING_CELLS)
    distances = obstacle_clearances(grid.obstacle_mask, grid.width, grid.height, samples)
    resolution = grid.resolution
    return PathQuality(
        length_m=polyline_length(points) * resolution,
        min_clearance_m=float(distances.min()) * resolution,
        mean_clearance_m=float(distances.mean()) * resolution,
        heading_change_deg=math.degrees(total_heading_change(points)),
    )
