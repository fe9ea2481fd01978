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
def nearest_obstacle_distances(points, obstacle, width, height):
    """The distance (cells) from each point (cell coordinates) to the nearest obstacle centre.

    Searches square rings of cells around the point until no nearer obstacle can lie outside
    them; infinity on a map without obstacles.
    """
    result = np.full(points.shape[0], np.inf)
    limit = max(width, height)
    for i in range(points.shape[0]):
        px = points[i, 0]
        py = points[i, 1]
        cx = math.floor(px + 0.5)
        cy = math.floor(py + 0.5)
        best2 = np.inf
        for ring in range(limit + 1):
            # Every cell of this ring lies at least ring - 0.5 cells from the point.
            if best2 < np.inf and (ring - 0.5) ** 2 > best2:
                break
            for oy in range(cy - ring, cy + ring + 1):
                if oy < 0 or oy >= height:
                    continue
                step = 1 if oy == cy - ring or oy == cy + ring else 2 * ring
                for ox in range(cx - ring, cx + ring + 1, max(step, 1)):
                    if 0 <= ox < width and obstacle[oy * width + ox]:
                        d2 = (ox - px) ** 2 + (oy - py) ** 2
                        if d2 < best2:
                            best2 = d2
        result[i] = math.sqrt(best2)
    return result


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
    distances = nearest_obstacle_distances(samples, grid.obstacle_mask, grid.width, grid.height)
    resolution = grid.resolution
    return PathQuality(
        length_m=polyline_length(points) * resolution,
        min_clearance_m=float(distances.min()) * resolution,
        mean_clearance_m=float(distances.mean()) * resolution,
        heading_change_deg=math.degrees(total_heading_change(points)),
    )
