"""The per-cell arrays of a planning grid, made from a map's values under one cost model.

`cost_layers` runs the stages the node and the benchmark time: *threshold* (which cells are
obstacles or unknown) and *layers*: the capped squared distance to the nearest obstacle
(`costs.obstacle_distance2`) and from it, row by row in the same pass, the free cells, the
move rule's padded keys for the kernels (`kernels.keys`) and the raw cost field. Every cell's
result depends only on the values within `CostLayers.margin` cells of it, which is what lets a
patch recompute a window plus that margin alone (`patching`). Compiled where numba is available,
else NumPy.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from grid_planner.jit import njit

from .costs import (
    COSTMAP_BAND_SCAN_CELLS,
    FREE_COST,
    INSCRIBED,
    LETHAL,
    MAX_NON_OBSTACLE,
    NO_INFORMATION,
    check_cost_model,
    compiled_distances,
    costmap_raw,
    obstacle_distance2_numpy,
    radius_limit_cells2,
    row_distance2,
    runs_down,
)
from .kernels import FREE_CLEARANCE, LETHAL_CLEARANCE, LETHAL_KEY, encode_keys, key_dtype, pad_keys
from .kernels.layout import free_key_of
from .occupancy import obstacle_cells, unknown_cells
from .timing import StageClock

# The farthest an inflation layer reaches (cells): its table holds a cost for each squared
# distance up to that, so a 5 km radius at 0.05 m asked for 74.5 GiB. PlanningGrid refuses
# radii beyond it before any layer is made.
MAX_INFLATION_REACH_CELLS = 2048


class CostLayers(NamedTuple):
    """What a cost model makes of a map (flat arrays in OccupancyGrid order, writable).

    `obstacle`: the cells that inflate (and that smoothed paths keep `robot_radius` from);
    `lethal`: never entered; `inflated`: blocked but not lethal; `free`: neither (made in the
    same pass, so the grid needs no further pass over the map); `clearance`: the planning
    grid's step key (FREE_CLEARANCE, the squared distance for inflated cells, or
    LETHAL_CLEARANCE); `padded`: its keys (`kernels.keys`) framed by a lethal border, the
    kernels' layout; `raw`: the raw cost of every cell (uint8), None for `uniform`;
    `margin`: how many cells around a cell its result depends on. `lethal`,
    `inflated` and `clearance` are None when left out (`cost_layers` and patches leave them
    out): the grid derives them from `free` and `padded` on first use; `obstacle` is None when
    a patch leaves it out (the grid makes it on first use, see `PlanningGrid.obstacle_mask`).
    """

    obstacle: np.ndarray | None
    lethal: np.ndarray | None
    inflated: np.ndarray | None
    free: np.ndarray
    clearance: np.ndarray | None
    padded: np.ndarray
    raw: np.ndarray | None
    margin: int


def cost_layers(
    values: np.ndarray,
    shape: tuple[int, int],
    resolution: float,
    *,
    cost_model: str,
    occupied_threshold: int,
    allow_unknown: bool,
    robot_radius: float,
    inflation_radius: float,
    cost_scaling_factor: float,
    raw_costs: np.ndarray | None = None,
    timings: dict[str, float] | None = None,
) -> CostLayers:
    """The layers of `values` (flat occupancy values, `shape` rows x columns) under
    `cost_model`; see `costs` for the models.

    `raw_costs` (uint8, costmap only) are exact raw costs that replace the values' reading.
    `timings`, when given, receives the seconds of the stages threshold and layers.
    """
    clock = StageClock(timings)
    check_cost_model(cost_model)
    radius_limit = radius_limit_cells2(robot_radius, resolution)
    if cost_model == "costmap":
        raw = raw_costs if raw_costs is not None else costmap_raw(values)
        obstacle = obstacle_layer(values, cost_model, occupied_threshold, raw)
        unknown = raw == NO_INFORMATION
        scan = max(math.isqrt(math.floor(radius_limit)), COSTMAP_BAND_SCAN_CELLS)
    else:
        raw = None
        obstacle = obstacle_layer(values, cost_model, occupied_threshold, raw)
        unknown = unknown_cells(values)
        limit = radius_limit
        if cost_model == "inflation":
            limit = max(limit, radius_limit_cells2(inflation_radius, resolution))
        scan = math.isqrt(math.floor(limit))
    clock.lap("threshold")
    inscribed = raw == INSCRIBED if cost_model == "costmap" else np.zeros(0, dtype=np.bool_)
    dtype = keys_dtype(cost_model, scan, radius_limit)
    table = np.zeros(0, dtype=np.uint8)
    if cost_model == "inflation":
        table = inflation_table(scan, resolution, robot_radius, inflation_radius,
                                cost_scaling_factor)
    cells = cell_arrays if compiled_distances(scan) else cell_arrays_numpy
    free, padded, costs = cells(
        obstacle, unknown, inscribed, scan, radius_limit, bool(allow_unknown), table,
        dtype, shape[1], shape[0],
    )
    if cost_model == "inflation":
        raw = costs
    clock.lap("layers")
    return CostLayers(obstacle, None, None, free, None, padded, raw, scan)


def obstacle_layer(
    values: np.ndarray, cost_model: str, occupied_threshold: int, raw: np.ndarray | None
) -> np.ndarray:
    """The cells that inflate: lethal raw costs (`raw`) for a costmap, else the occupancy
    obstacles (`occupancy.obstacle_cells`)."""
    if cost_model == "costmap":
        return raw == LETHAL
    return obstacle_cells(values, occupied_threshold)


def keys_dtype(cost_model: str, scan: int, radius_limit: float) -> type[np.unsignedinteger]:
    """The dtype of a grid's keys: the smallest that holds the deepest clearance a band cell
    can have, the robot's reach, or for a costmap (whose inscribed cells are band cells
    wherever they lie) the cap of the distances measured `scan` cells out. It depends on the
    settings alone, so a patch's window gets the grid's dtype."""
    cap = (scan + 1) ** 2
    return key_dtype(cap if cost_model == "costmap" else min(math.floor(radius_limit), cap))


def inflation_table(
    scan: int, resolution: float, robot_radius: float, inflation_radius: float,
    cost_scaling_factor: float,
) -> np.ndarray:
    """The inflation layer's raw cost (uint8) by squared distance 0 .. (scan + 1)^2 cells^2.

    0 is an obstacle (254), up to the robot radius inscribed (253), up to the inflation radius
    Nav2's `int(252 exp(-cost_scaling_factor (d - robot_radius)))`, d in metres, beyond it
    free; an unknown cell reads 255 unless it is inscribed (`cell_arrays`). One table per
    grid, so every cell at a distance gets the same float result. `scan` is at most
    MAX_INFLATION_REACH_CELLS (PlanningGrid bounds the radii).
    """
    distance2 = np.arange((scan + 1) ** 2 + 1)
    distance = np.sqrt(distance2.astype(np.float64)) * resolution
    with np.errstate(over="ignore"):  # a huge factor overflows within the inscribed radius
        scaled = MAX_NON_OBSTACLE * np.exp(-cost_scaling_factor * (distance - robot_radius))
    inscribed = distance2 <= radius_limit_cells2(robot_radius, resolution)
    reach = ~inscribed & (distance2 <= radius_limit_cells2(inflation_radius, resolution))
    table = np.where(reach, scaled, FREE_COST).astype(np.uint8)
    table[inscribed] = INSCRIBED
    table[0] = LETHAL
    return table


def cell_arrays(
    obstacle: np.ndarray, unknown: np.ndarray, inscribed: np.ndarray, scan: int,
    radius_limit: float, allow_unknown: bool, table: np.ndarray,
    dtype: type[np.unsignedinteger], width: int, height: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(free, padded keys, raw) in one compiled pass that also measures the distances
    (`costs.obstacle_distance2`, capped at `scan` cells): each row's cells are made as soon as
    its distances are known, so no map of distances is kept. The lethal, inflated and unpadded
    clearance arrays are left for the grid to derive when something reads them.

    `inscribed` (empty or one flag a cell) marks cells a costmap already calls inscribed;
    `table` (empty, or `inflation_table`) gives the inflation model's raw costs (else `raw` is
    empty); `dtype` is the keys' (`keys_dtype`). NumPy allocates the arrays: on Linux it
    asks for huge pages, where numba's own allocator would fault in every 4 KB page of a large
    map.
    """
    count = width * height
    stride = width + 2
    arrays = (
        np.empty(count, dtype=np.bool_),
        np.empty((height + 2) * stride, dtype=dtype),
        np.empty(count if table.size else 0, dtype=np.uint8),
    )
    down = np.empty((height, width) if scan > 0 else (0, width), dtype=np.uint16)
    _cell_arrays_kernel(obstacle, unknown, inscribed, int(scan), radius_limit, allow_unknown,
                        table, width, height, down, *arrays)
    return arrays


@njit(cache=True, nogil=True)
def _cell_arrays_kernel(obstacle, unknown, inscribed, scan, radius_limit, allow_unknown,
                        table, width, height, down, free, padded, raw):
    """`cell_arrays` into the given arrays (`down`: the distances' scratch), rows from the
    bottom up. The band test compares integers (a squared distance is one), rows are slices
    of the flat arrays (a row of a 2-D array made the pass twice as slow), a band cell's key
    is its distance itself (a table lookup there made the pass half as slow again), and the
    cost field has a loop of its own, so that the per-cell loop vectorises."""
    stride = width + 2
    free_key = free_key_of(padded)
    padded[: stride] = LETHAL_KEY
    padded[(height + 1) * stride:] = LETHAL_KEY
    marked = inscribed.shape[0] == width * height
    marks = inscribed if marked else np.zeros(width, dtype=np.bool_)
    refuse_unknown = not allow_unknown
    band_limit = np.int32(min(math.floor(radius_limit), (scan + 1) * (scan + 1)))
    best = np.empty(width, dtype=np.int32)
    if scan > 0:
        run, column2 = runs_down(obstacle.reshape(height, width), scan, down)
    else:
        run, column2 = np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int32)
    for y in range(height - 1, -1, -1):
        cells = slice(y * width, (y + 1) * width)
        blocked = obstacle[cells]
        if scan > 0:
            row_distance2(blocked, down[y], scan, run, column2, best)
        else:
            for x in range(width):
                best[x] = np.int32(0) if blocked[x] else np.int32(1)
        unknowns = unknown[cells]
        band_marks = marks[cells] if marked else marks
        open_row = free[cells]
        inner = (y + 1) * stride + 1
        padded[inner - 1] = LETHAL_KEY
        padded[inner + width] = LETHAL_KEY
        pad_row = padded[inner:inner + width]
        for x in range(width):
            hard = blocked[x] | (unknowns[x] & refuse_unknown)
            distance = best[x]
            band = (distance <= band_limit) | band_marks[x]
            key = distance if band else free_key
            key = LETHAL_KEY if hard else key
            pad_row[x] = key
            open_row[x] = key == free_key
        if table.shape[0] > 0:
            cost_row = raw[cells]
            for x in range(width):
                cost = table[best[x]]
                cost_row[x] = NO_INFORMATION if unknowns[x] and cost != INSCRIBED else cost


def cell_arrays_numpy(
    obstacle: np.ndarray, unknown: np.ndarray, inscribed: np.ndarray, scan: int,
    radius_limit: float, allow_unknown: bool, table: np.ndarray,
    dtype: type[np.unsignedinteger], width: int, height: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The NumPy-only version of `cell_arrays` (same arrays)."""
    distance2 = obstacle_distance2_numpy(obstacle.reshape(height, width), scan).reshape(-1)
    lethal = obstacle | unknown if not allow_unknown else obstacle.copy()
    inflated = ~lethal & (distance2 <= radius_limit)
    if inscribed.size:
        inflated |= ~lethal & inscribed
    clearance = np.where(inflated, distance2, FREE_CLEARANCE).astype(np.int32)
    clearance[lethal] = LETHAL_CLEARANCE
    padded = np.array(pad_keys(encode_keys(clearance, dtype), width, height))
    raw = np.zeros(0, dtype=np.uint8)
    if table.size:
        raw = table[distance2]
        raw[unknown & (raw != INSCRIBED)] = NO_INFORMATION
    return ~(lethal | inflated), padded, raw
