"""Straight segments on the grid: the cells one sweeps, whether it keeps clear, what it costs.

Points are in cell coordinates: cell (x, y)'s centre is the point (x, y) and its square spans
x +- 0.5, y +- 0.5. A segment is *clear* when every cell it sweeps (a corner it passes exactly
through counts for the cells on both sides) is free and every point of it lies farther than
`robot_radius` from every obstacle cell centre: the planning grid's own inflation rule, applied
to each point instead of cell centres only. A blocked-cell test alone would let a point sit up
to half a cell diagonal too close. A cell all of whose points keep that distance is *safe* and
needs no exact test; for the others the obstacle centres nearby are measured exactly.

The cost of a segment is the integral of the cost factor along it: `table[raw[cell]]` per unit
length, the cost model's straight step cost of each cell it sweeps (a straight step between two
cell centres costs half of each cell's factor).
Compiled with numba where available, like the search kernels.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from grid_planner.jit import njit

from .costs import obstacle_distance2, radius_limit_cells2

HALF_DIAGONAL = math.sqrt(0.5)
# Parameter slack when two cell borders are crossed at once (the segment meets a corner).
_CORNER_EPS = 1e-12


class SweepMasks(NamedTuple):
    """What the segment tests read (flat, OccupancyGrid order): `free`, `safe`, `obstacle`
    (bool), the squared clearance limit in cells^2, and how many cells around a cell an exact
    test must look (`reach`)."""

    free: np.ndarray
    safe: np.ndarray
    obstacle: np.ndarray
    limit2: float
    reach: int


def sweep_masks(
    free: np.ndarray, obstacle: np.ndarray, shape: tuple[int, int], robot_radius: float,
    resolution: float,
) -> SweepMasks:
    """The masks of a grid (O(area x radius) once); see SweepMasks."""
    limit2 = radius_limit_cells2(robot_radius, resolution)
    # Obstacle centres farther than the radius plus half a cell diagonal from a cell's centre
    # cannot come within the radius of any point of the cell.
    reach = math.ceil(math.sqrt(limit2) + HALF_DIAGONAL)
    safe = free.copy()
    if limit2 > 0.0 and obstacle.any():
        distance2 = obstacle_distance2(obstacle.reshape(shape), reach).reshape(-1)
        safe &= np.sqrt(distance2) > math.sqrt(limit2) + HALF_DIAGONAL
    for array in (free, safe, obstacle):
        array.setflags(write=False)
    return SweepMasks(free, safe, obstacle, limit2, reach)


@njit(cache=True, nogil=True, inline="always")
def _distance2_to_segment(ox, oy, px, py, dx, dy, length2):
    """Squared distance from point (ox, oy) to the segment from (px, py) along (dx, dy)."""
    t = 0.0
    if length2 > 0.0:
        t = ((ox - px) * dx + (oy - py) * dy) / length2
        t = min(1.0, max(0.0, t))
    ex = px + t * dx - ox
    ey = py + t * dy - oy
    return ex * ex + ey * ey


@njit(cache=True, nogil=True, inline="always")
def _on_map(x, y, width, height):
    """Whether point (x, y), in cell coordinates, lies in a cell of the map (False for NaN)."""
    return 0.0 <= x + 0.5 < width and 0.0 <= y + 0.5 < height


@njit(cache=True, nogil=True)
def _cell_clear(x, y, width, height, free, safe, obstacle, limit2, reach, px, py, dx, dy):
    """Whether the segment may pass through cell (x, y): free, and clear of the obstacles."""
    if x < 0 or y < 0 or x >= width or y >= height:
        return False
    cell = y * width + x
    if not free[cell]:
        return False
    if safe[cell]:
        return True
    length2 = dx * dx + dy * dy
    for oy in range(max(0, y - reach), min(height, y + reach + 1)):
        for ox in range(max(0, x - reach), min(width, x + reach + 1)):
            if obstacle[oy * width + ox] and (
                _distance2_to_segment(ox, oy, px, py, dx, dy, length2) <= limit2
            ):
                return False
    return True


@njit(cache=True, nogil=True)
def segment_walk(
    px, py, qx, qy, width, height, free, safe, obstacle, limit2, reach, raw, table
):
    """Walk the segment (px, py) -> (qx, qy): `(clear, cost)`.

    Stops at the first cell that is not clear (`clear` False, cost so far). A one-entry `raw`
    (a grid without a cost field) costs `table[0]` per unit length everywhere. An end off the
    map (or not finite) is not clear: its cell number would not fit an integer.
    """
    if not (_on_map(px, py, width, height) and _on_map(qx, qy, width, height)):
        return False, 0.0
    dx = qx - px
    dy = qy - py
    length = math.sqrt(dx * dx + dy * dy)
    weighted = raw.shape[0] > 1
    x = math.floor(px + 0.5)
    y = math.floor(py + 0.5)
    end_x = math.floor(qx + 0.5)
    end_y = math.floor(qy + 0.5)
    step_x = 1 if dx > 0 else -1
    step_y = 1 if dy > 0 else -1
    next_x = ((x + 0.5 * step_x) - px) / dx if dx != 0.0 else np.inf
    next_y = ((y + 0.5 * step_y) - py) / dy if dy != 0.0 else np.inf
    delta_x = abs(1.0 / dx) if dx != 0.0 else np.inf
    delta_y = abs(1.0 / dy) if dy != 0.0 else np.inf
    t = 0.0
    cost = 0.0
    for _ in range(abs(end_x - x) + abs(end_y - y) + 1):
        if not _cell_clear(x, y, width, height, free, safe, obstacle, limit2, reach,
                           px, py, dx, dy):
            return False, cost
        leave = min(next_x, next_y, 1.0)
        cost += (leave - t) * length * table[raw[y * width + x] if weighted else 0]
        if x == end_x and y == end_y:
            break
        if abs(next_x - next_y) <= _CORNER_EPS:
            # Through a corner: the two cells beside it are touched too.
            if not (
                _cell_clear(x + step_x, y, width, height, free, safe, obstacle, limit2, reach,
                            px, py, dx, dy)
                and _cell_clear(x, y + step_y, width, height, free, safe, obstacle, limit2,
                                reach, px, py, dx, dy)
            ):
                return False, cost
            t = next_x
            x += step_x
            y += step_y
            next_x += delta_x
            next_y += delta_y
        elif next_x < next_y:
            t = next_x
            x += step_x
            next_x += delta_x
        else:
            t = next_y
            y += step_y
            next_y += delta_y
    return True, cost


@njit(cache=True, nogil=True)
def polyline_costs(points, width, height, free, safe, obstacle, limit2, reach, raw, table):
    """The cost of each segment of `points` ((n, 2)), and whether every segment is clear."""
    count = points.shape[0]
    costs = np.zeros(max(count - 1, 0))
    clear = True
    for i in range(count - 1):
        ok, cost = segment_walk(points[i, 0], points[i, 1], points[i + 1, 0], points[i + 1, 1],
                                width, height, free, safe, obstacle, limit2, reach, raw, table)
        costs[i] = cost
        clear = clear and ok
    return costs, clear
