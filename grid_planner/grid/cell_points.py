"""A path's cells as points, in cell units and in the world, and a polyline's length: one
compiled pass each.

With numpy each is several passes over arrays as long as the path (a division or a product,
a floor, a subtraction, a stack of two columns; differences, squares, a root and a sum), each
pass writing a temporary: on the benchmark maze's path of 39,144 cells the three took about a
sixth of a whole weighted plan. The loops make the same operations on each element in the
same order, so the points are the same bits; the length is summed in path order.
"""

from __future__ import annotations

import numpy as np

from grid_planner.jit import njit

# Lengths whose squares stay well inside the float range; outside, a segment is measured
# with hypot, which never overflows or underflows.
SQUARE_SAFE = (1e-150, 1e150)


@njit(cache=True, nogil=True)
def index_points_kernel(flat, width):
    """The `(n, 2)` cells (x, y) of the flat indices `flat` (int64) on a map `width` wide.

    The row is a product, not a division: (i + 0.5) / width lies at least 0.5 / width from
    an integer, far more than the product's rounding error, so the floor is exact."""
    points = np.empty((flat.shape[0], 2))
    per_row = 1.0 / width
    for i in range(flat.shape[0]):
        row = np.floor((flat[i] + 0.5) * per_row)
        points[i, 0] = flat[i] - row * width
        points[i, 1] = row
    return points


@njit(cache=True, nogil=True)
def world_points_kernel(points, resolution, origin_x, origin_y, cos_yaw, sin_yaw, rotated):
    """World coordinates `(n, 2)` of `points` in cell units (cell (x, y)'s centre is the point
    (x, y)): `origin + R(yaw) (point + 0.5) resolution`, the rotation only when `rotated`."""
    world = np.empty((points.shape[0], 2))
    for i in range(points.shape[0]):
        lx = (points[i, 0] + 0.5) * resolution
        ly = (points[i, 1] + 0.5) * resolution
        if rotated:
            lx, ly = cos_yaw * lx - sin_yaw * ly, sin_yaw * lx + cos_yaw * ly
        world[i, 0] = origin_x + lx
        world[i, 1] = origin_y + ly
    return world


@njit(cache=True, nogil=True)
def polyline_length_kernel(points):
    """The length of the polyline `points` `(n, 2)`: sqrt(dx^2 + dy^2) per segment (hypot
    where a square may have left the float range), summed from the first segment on."""
    total = 0.0
    for i in range(points.shape[0] - 1):
        # Python floats where this runs uncompiled: numpy's scalars warn on an overflow.
        dx = float(points[i + 1, 0] - points[i, 0])
        dy = float(points[i + 1, 1] - points[i, 1])
        length = np.sqrt(dx * dx + dy * dy)
        if not (SQUARE_SAFE[0] <= length <= SQUARE_SAFE[1]):
            length = np.hypot(dx, dy)
        total += length
    return total
