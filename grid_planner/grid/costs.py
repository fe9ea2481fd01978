"""Cost models: which cells of the planning grid block, and what a step onto a cell costs.

Costs use Nav2's raw scale (0..255): 0 free, 1..252 a scaled cost, 253 inscribed (the robot's
centre there would touch an obstacle), 254 lethal, 255 unknown. The model is the parameter
`cost_model`:

- ``uniform`` (the default): no cost field. Lethal is an occupancy value >= the threshold or
  outside -1..100 (`occupancy.obstacle_cells`), and unknown unless `allow_unknown`; cells
  within `robot_radius` of an obstacle are inflated (blocked), and every step onto a free cell
  costs the same.
- ``inflation``: the same blocked cells, plus a cost field made by our own inflation layer (Nav2's
  formula): 254 on an obstacle, 253 within the inscribed radius (= `robot_radius`), beyond it
  ``int(252 * exp(-cost_scaling_factor * (d - robot_radius)))`` up to `inflation_radius`, with
  d the distance in metres from the nearest obstacle cell centre. The nearest obstacle gives the
  highest cost, so each cell keeps the maximum that reaches it; an unknown cell keeps 255 unless
  253 or more reaches it.
- ``costmap``: the map *is* a Nav2 costmap. An OccupancyGrid costmap (0 free, 1..98 scaled, 99
  inscribed, 100 lethal, -1 unknown; any other value lethal) is read back onto the raw scale
  with `costmap_raw`; a nav2_msgs/Costmap carries the raw bytes themselves
  (`OccupancyMap.raw_costs`). 254 is lethal, 253 blocked, 255 lethal unless `allow_unknown`,
  and `robot_radius` (default 0) may inflate the lethal cells further. `occupied_threshold`
  does not apply.

In `inflation` and `costmap` a step onto a cell of raw cost c costs
``step * (1 + cost_travel_multiplier * c / 252)`` (Smac Planner 2D's rule; `step` 1 or sqrt 2),
an allowed unknown cell costs as 255 does; with the multiplier 0 every step costs its length.
`uniform` ignores the multiplier: its steps cost 1 or sqrt 2, unknown cells included.
"""

from __future__ import annotations

import math

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, njit

from .occupancy import UNKNOWN

COST_MODELS = ("uniform", "inflation", "costmap")
DEFAULT_COST_MODEL = "uniform"
# Nav2's inflation layer and Smac Planner 2D defaults.
DEFAULT_INFLATION_RADIUS = 0.55
DEFAULT_COST_SCALING_FACTOR = 10.0
DEFAULT_COST_TRAVEL_MULTIPLIER = 1.0
# The largest multiplier: the weighted searches keep a ring of buckets 16 x the dearest step
# long, so at 1e7 one plan allocated 2.3 GB and at 1e9 it failed (Smac's profiles use 0-10).
MAX_COST_TRAVEL_MULTIPLIER = 1000.0

FREE_COST = 0
MAX_NON_OBSTACLE = 252
INSCRIBED = 253
LETHAL = 254
NO_INFORMATION = 255

# Relative slack when a length in metres becomes cells (0.15 m at 0.05 m is 3 cells). A map
# that comes over ROS carries its resolution as a float32, 0.05 as 0.0500000007, so without it
# 0.3 m read 5.9999999 cells (a goal 0.3 m from a wall passed a 0.3 m robot) and 0.15 m
# 2.9999999; float32 rounds a value by at most 6e-8 of itself.
CELL_SLACK = 1e-6
# How far (cells) a costmap's inscribed band is measured from its lethal cells, for the
# inflated-start rule; deeper band cells all read this depth.
COSTMAP_BAND_SCAN_CELLS = 8
SQRT2 = math.sqrt(2.0)


def cells_reached(length: float, resolution: float) -> float:
    """How many cells `length` metres reaches, a float32 resolution's rounding forgiven: 0.3 m
    reaches 6 cells at 0.05 m/cell even when 0.05 arrived as 0.0500000007."""
    return length / resolution * (1.0 + CELL_SLACK)


def cells_within(cells: float, most: int) -> bool:
    """Whether `cells` (a length over a resolution) is at most `most`, a float32 resolution's
    rounding forgiven: 3.0 m at 0.03 m/cell is 100 cells, not 100.0000023."""
    return cells <= most * (1.0 + CELL_SLACK)


def radius_refusal(name: str, radius: float, resolution: float, most: int,
                   bound: str) -> str | None:
    """Why `radius` metres (the value called `name`) spans too many cells at `resolution`
    (None when it spans at most `most`); `bound` says what sets `most`."""
    cells = radius / resolution
    if cells_within(cells, most):
        return None
    return f"{name} {radius} m is {cells:.4g} cells at {resolution:.6g} m/cell, more than {bound}"


def radius_limit_cells2(radius: float, resolution: float) -> float:
    """The largest squared cell distance (cells^2) that counts as "within `radius` metres"."""
    if radius <= 0.0:
        return 0.0
    return cells_reached(radius, resolution) ** 2


def obstacle_distance2(obstacles: np.ndarray, max_offset: int) -> np.ndarray:
    """Squared distance (cells^2) from each cell centre to the nearest `obstacles` cell centre,
    capped at `(max_offset + 1)^2` (int32, the shape of `obstacles`).

    Exact wherever the true value is below the cap, the cap elsewhere: a cell's value depends
    only on the obstacles within `max_offset` cells of it in x and y, which is what lets a
    patch recompute a window and its margin alone. Compiled where numba is available (O(area x
    max_offset), vectorised), else `obstacle_distance2_numpy`.
    """
    obstacles = np.ascontiguousarray(obstacles, dtype=np.bool_)
    if not compiled_distances(max_offset):
        return obstacle_distance2_numpy(obstacles, max_offset)
    # NumPy allocates (with huge pages on Linux, where numba's allocator faults in 4 KB pages).
    down, result = np.empty(obstacles.shape, np.uint16), np.empty(obstacles.shape, np.int32)
    _distance2_kernel(obstacles, int(max_offset), down, result)
    return result


def compiled_distances(max_offset: int) -> bool:
    """Whether the compiled distance passes serve `max_offset` (their runs are uint16)."""
    return NUMBA_AVAILABLE and max_offset < np.iinfo(np.uint16).max


@njit(cache=True, nogil=True)
def _distance2_kernel(obstacles, max_offset, down, result):
    """`obstacle_distance2` into `result` (`down`: uint16 scratch of the same shape)."""
    height = obstacles.shape[0]
    run, column2 = runs_down(obstacles, max_offset, down)
    for y in range(height - 1, -1, -1):
        row_distance2(obstacles[y], down[y], max_offset, run, column2, result[y])


@njit(cache=True, nogil=True)
def runs_down(obstacles, max_offset, down):
    """The first pass of the distances: the capped run of free cells from each cell up its
    column, into `down` (rows x columns), top row first. Returns the scratch of the second
    pass (`row_distance2`): the runs up the columns, every one at the cap below the bottom
    row, and the row's squared column distances, framed by `max_offset` cells at the cap^2
    on either side."""
    height, width = obstacles.shape
    cap = np.int32(max_offset + 1)
    run = np.full(width, cap, dtype=np.int32)
    for y in range(height):
        blocked = obstacles[y]
        row = down[y]
        for x in range(width):
            value = min(np.int32(run[x] + 1), cap)
            run[x] = np.int32(0) if blocked[x] else value
            row[x] = run[x]
    run[:] = cap
    reach = min(max_offset, width - 1)
    return run, np.full(width + 2 * reach, cap * cap, dtype=np.int32)


@njit(cache=True, nogil=True)
def row_distance2(blocked, above, max_offset, run, column2, best):
    """The second pass of the distances for one row, rows taken from the bottom up: `run`
    (the runs up the columns) moves onto this row; `best` receives the row's capped squared
    distances, the least `dx^2 + column^2` within `max_offset` columns.

    Loops start at 0 on row slices and cast every sum back to int32 (numba adds int32s as
    int64), so that the compiler drops numba's negative-index checks and vectorises with
    32-bit lanes: without the casts the pass ran half as fast.
    """
    width = blocked.shape[0]
    cap = np.int32(max_offset + 1)
    limit = np.int32(cap * cap)
    reach = min(max_offset, width - 1)
    middle = column2[reach:reach + width]
    for x in range(width):
        value = min(np.int32(run[x] + 1), cap)
        run[x] = np.int32(0) if blocked[x] else value
        vertical = min(np.int32(above[x]), run[x])
        square = np.int32(vertical * vertical)
        middle[x] = square
        best[x] = min(square, limit)
    for dx in range(1, reach + 1):
        step2 = np.int32(dx * dx)
        left = column2[reach - dx:reach - dx + width]
        right = column2[reach + dx:reach + dx + width]
        for x in range(width):
            best[x] = min(best[x], np.int32(min(left[x], right[x]) + step2))


def obstacle_distance2_numpy(obstacles: np.ndarray, max_offset: int) -> np.ndarray:
    """The NumPy-only version of `obstacle_distance2` (O(area * max_offset), same values)."""
    height, width = obstacles.shape
    cap = max_offset + 1
    column = np.empty((height, width), dtype=np.int32)
    run = np.full(width, cap, dtype=np.int32)
    for y in range(height):
        run = np.where(obstacles[y], 0, np.minimum(run + 1, cap))
        column[y] = run
    run = np.full(width, cap, dtype=np.int32)
    for y in range(height - 1, -1, -1):
        run = np.where(obstacles[y], 0, np.minimum(run + 1, cap))
        np.minimum(column[y], run, out=column[y])
    column2 = column * column
    best = column2.copy()
    for dx in range(1, min(max_offset, width - 1) + 1):
        shifted = column2 + np.int32(dx * dx)
        np.minimum(best[:, dx:], shifted[:, :-dx], out=best[:, dx:])
        np.minimum(best[:, :-dx], shifted[:, dx:], out=best[:, :-dx])
    np.minimum(best, np.int32(cap * cap), out=best)
    return best


# --- Nav2's formulas ------------------------------------------------------------------------


def costmap_value(raw: np.ndarray) -> np.ndarray:
    """Nav2's translation of raw costs (0..255) to OccupancyGrid costmap values (int8).

    0 -> 0; 1..252 -> 1 + (97 (c - 1)) // 251; 253 -> 99; 254 -> 100; 255 -> -1.

    >>> costmap_value(np.array([0, 1, 3, 4, 128, 251, 252, 253, 254, 255])).tolist()
    [0, 1, 1, 2, 50, 97, 98, 99, 100, -1]
    """
    raw = np.asarray(raw, dtype=np.int64)
    values = np.where(raw == 0, 0, 1 + (97 * (raw - 1)) // 251)
    values = np.where(raw == INSCRIBED, 99, values)
    values = np.where(raw == LETHAL, 100, values)
    values = np.where(raw == NO_INFORMATION, -1, values)
    return values.astype(np.int8)


def costmap_raw(values: np.ndarray) -> np.ndarray:
    """The smallest raw cost (uint8) that Nav2 translates to each costmap value.

    A value v in 1..98 stands for 2 or 3 raw costs; the smallest is 1 + ceil(251 (v - 1) / 97)
    (98 <-> 252). 0 -> 0, 99 -> 253, 100 -> 254, -1 -> 255; a value no costmap holds, above 100
    or below -1, -> 254 (lethal, `occupancy.obstacle_cells`).

    >>> costmap_raw(np.array([0, 1, 2, 50, 97, 98, 99, 100, -1, 101, -2])).tolist()
    [0, 1, 4, 128, 250, 252, 253, 254, 255, 254, 254]
    """
    values = np.asarray(values, dtype=np.int64)
    scaled = 1 + (251 * (values - 1) + 96) // 97
    raw = np.where(values <= 0, FREE_COST, scaled)
    raw = np.where(values >= 99, INSCRIBED, raw)
    raw = np.where(values >= 100, LETHAL, raw)
    raw = np.where(values == UNKNOWN, NO_INFORMATION, raw)
    raw = np.where(values < UNKNOWN, LETHAL, raw)
    return raw.astype(np.uint8)


def step_cost_tables(cost_model: str, multiplier: float) -> tuple[np.ndarray, np.ndarray]:
    """The cost of a straight and of a diagonal step onto a cell, by its raw cost (256 each).

    `uniform` costs 1 and sqrt 2 everywhere; the cost-aware models scale by
    1 + multiplier * c / 252. The kernels and the reference problem read these same tables, so
    their sums agree to the bit.
    """
    check_cost_model(cost_model)
    if not (math.isfinite(multiplier) and 0.0 <= multiplier <= MAX_COST_TRAVEL_MULTIPLIER):
        raise ValueError(
            f"cost_travel_multiplier must be a finite number in [0, "
            f"{MAX_COST_TRAVEL_MULTIPLIER:g}], got {multiplier}"
        )
    if cost_model == "uniform":
        straight = np.ones(256, dtype=np.float64)
    else:
        straight = 1.0 + multiplier * np.arange(256, dtype=np.float64) / MAX_NON_OBSTACLE
    diagonal = SQRT2 * straight
    for table in (straight, diagonal):
        table.setflags(write=False)
    return straight, diagonal


def check_cost_model(cost_model: str) -> None:
    """Refuse an unknown cost model name (ValueError naming the choices)."""
    if cost_model not in COST_MODELS:
        raise ValueError(f"cost_model must be one of {', '.join(COST_MODELS)}, got {cost_model!r}")
