"""Cost models: which cells of the planning grid block, and what a step onto a cell costs.

Costs use Nav2's raw scale (0..255): 0 free, 1..252 a scaled cost, 253 inscribed (the robot's
centre there would touch an obstacle), 254 lethal, 255 unknown. The model is the parameter
`cost_model`:

- ``uniform`` (the default): no cost field. Lethal is an occupancy value >= the threshold (and
  unknown unless `allow_unknown`), cells within `robot_radius` of an obstacle are inflated
  (blocked), and every step onto a free cell costs the same.
- ``inflation``: the same blocked cells, plus a cost field made by our own inflation layer (Nav2's
  formula): 254 on an obstacle, 253 within the inscribed radius (= `robot_radius`), beyond it
  ``int(252 * exp(-cost_scaling_factor * (d - robot_radius)))`` up to `inflation_radius`, with
  d the distance in metres from the nearest obstacle cell centre. The nearest obstacle gives the
  highest cost, so each cell keeps the maximum that reaches it; an unknown cell keeps 255 unless
  253 or more reaches it.
- ``costmap``: the map *is* a Nav2 costmap. An OccupancyGrid costmap (0 free, 1..98 scaled, 99
  inscribed, 100 lethal, -1 unknown) is read back onto the raw scale with `costmap_raw`; a
  nav2_msgs/Costmap carries the raw bytes themselves (`OccupancyMap.raw_costs`). 254 is lethal,
  253 blocked, 255 lethal unless `allow_unknown`, and `robot_radius` (default 0) may inflate the
  lethal cells further. `occupied_threshold` does not apply.

In `inflation` and `costmap` a step onto a cell of raw cost c costs
``step * (1 + cost_travel_multiplier * c / 252)`` (Smac Planner 2D's rule; `step` 1 or sqrt 2),
an allowed unknown cell costs as 255 does; with the multiplier 0 every step costs its length.
`uniform` ignores the multiplier: its steps cost 1 or sqrt 2, unknown cells included.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

COST_MODELS = ("uniform", "inflation", "costmap")
DEFAULT_COST_MODEL = "uniform"
# Nav2's inflation layer and Smac Planner 2D defaults.
DEFAULT_INFLATION_RADIUS = 0.55
DEFAULT_COST_SCALING_FACTOR = 10.0
DEFAULT_COST_TRAVEL_MULTIPLIER = 1.0

FREE_COST = 0
MAX_NON_OBSTACLE = 252
INSCRIBED = 253
LETHAL = 254
NO_INFORMATION = 255

# Slack when comparing squared cell distances with a radius (0.15 m at 0.05 m is 3 cells).
RADIUS_SLACK_CELLS2 = 1e-6
# How far (cells) a costmap's inscribed band is measured from its lethal cells, for the
# inflated-start rule; deeper band cells all read this depth.
COSTMAP_BAND_SCAN_CELLS = 8
SQRT2 = math.sqrt(2.0)


def radius_limit_cells2(radius: float, resolution: float) -> float:
    """The largest squared cell distance (cells^2) that counts as "within `radius` metres"."""
    if radius <= 0.0:
        return 0.0
    return (radius / resolution) ** 2 + RADIUS_SLACK_CELLS2


def obstacle_distance2(obstacles: np.ndarray, max_offset: int) -> np.ndarray:
    """Squared distance (cells^2) from each cell centre to the nearest `obstacles` cell centre.

    Exact wherever the true value is <= `max_offset`^2 plus anything that rounds down to it
    (every offset of a nearest obstacle is then <= max_offset); elsewhere the result is some
    value > the true limit. Two passes: the vertical distance to the nearest obstacle in each
    column (capped at max_offset + 1), then the minimum of `dx^2 + column^2` over the shifted
    columns |dx| <= max_offset. O(area * max_offset), NumPy only.
    """
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
    return best


# --- Nav2's formulas ------------------------------------------------------------------------


def inflation_cost(distance: float, inscribed_radius: float, cost_scaling_factor: float) -> int:
    """Nav2's inflation cost of a cell `distance` metres from the nearest obstacle centre.

    >>> inflation_cost(0.0, 0.22, 3.0), inflation_cost(0.22, 0.22, 3.0)
    (254, 253)
    >>> inflation_cost(0.3, 0.2255, 3.0), inflation_cost(0.5, 0.2255, 10.0)
    (201, 16)
    """
    if distance == 0.0:
        return LETHAL
    if distance <= inscribed_radius:
        return INSCRIBED
    return int(MAX_NON_OBSTACLE * math.exp(-cost_scaling_factor * (distance - inscribed_radius)))


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
    (98 <-> 252). 0 -> 0, 99 -> 253, 100 -> 254, any negative value -> 255.

    >>> costmap_raw(np.array([0, 1, 2, 50, 97, 98, 99, 100, -1])).tolist()
    [0, 1, 4, 128, 250, 252, 253, 254, 255]
    """
    values = np.asarray(values, dtype=np.int64)
    scaled = 1 + (251 * (values - 1) + 96) // 97
    raw = np.where(values <= 0, FREE_COST, scaled)
    raw = np.where(values >= 99, INSCRIBED, raw)
    raw = np.where(values >= 100, LETHAL, raw)
    raw = np.where(values < 0, NO_INFORMATION, raw)
    return raw.astype(np.uint8)


def step_cost_tables(cost_model: str, multiplier: float) -> tuple[np.ndarray, np.ndarray]:
    """The cost of a straight and of a diagonal step onto a cell, by its raw cost (256 each).

    `uniform` costs 1 and sqrt 2 everywhere; the cost-aware models scale by
    1 + multiplier * c / 252. The kernels and the reference problem read these same tables, so
    their sums agree to the bit.
    """
    check_cost_model(cost_model)
    if not (math.isfinite(multiplier) and multiplier >= 0.0):
        raise ValueError(f"cost_travel_multiplier must be a finite number >= 0, got {multiplier}")
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


# --- the layers of a planning grid ----------------------------------------------------------


class CostLayers(NamedTuple):
    """What a cost model makes of a map (flat arrays in OccupancyGrid order).

    `obstacle`: the cells that inflate (and that smoothed paths keep `robot_radius` from);
    `lethal`: never entered; `inflated`: blocked but not lethal; `distance2`: squared cells to
    the nearest obstacle centre for the inflated cells (their clearance key); `raw`: the raw
    cost of every cell (uint8), None for `uniform`.
    """

    obstacle: np.ndarray
    lethal: np.ndarray
    inflated: np.ndarray
    distance2: np.ndarray
    raw: np.ndarray | None


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
) -> CostLayers:
    """The layers of `values` (flat occupancy values) under `cost_model`; see the module doc.

    `raw_costs` (uint8, costmap only) are exact raw costs that replace the values' reading.
    """
    check_cost_model(cost_model)
    radius_limit = radius_limit_cells2(robot_radius, resolution)
    if cost_model == "costmap":
        raw = raw_costs if raw_costs is not None else costmap_raw(values)
        obstacle = raw == LETHAL
        unknown = raw == NO_INFORMATION
        scan = max(math.isqrt(math.floor(radius_limit)), COSTMAP_BAND_SCAN_CELLS)
    else:
        raw = None
        obstacle = values >= occupied_threshold
        unknown = values < 0
        limit = radius_limit
        if cost_model == "inflation":
            limit = max(limit, radius_limit_cells2(inflation_radius, resolution))
        scan = math.isqrt(math.floor(limit))
    lethal = obstacle | unknown if not allow_unknown else obstacle.copy()
    distance2 = np.full(values.size, np.iinfo(np.int32).max, dtype=np.int32)
    if scan >= 1 and obstacle.any():
        distance2 = obstacle_distance2(obstacle.reshape(shape), scan).reshape(-1)
        np.minimum(distance2, (scan + 1) ** 2, out=distance2)
    inflated = ~lethal & (distance2 <= radius_limit)
    if cost_model == "costmap":
        inflated |= ~lethal & (raw == INSCRIBED)
    elif cost_model == "inflation":
        inscribed = ~obstacle & (distance2 <= radius_limit)
        raw = _inflation_raw(
            distance2, obstacle, unknown, inscribed, resolution, robot_radius, inflation_radius,
            cost_scaling_factor,
        )
    return CostLayers(obstacle, lethal, inflated, distance2, raw)


def _inflation_raw(
    distance2: np.ndarray,
    obstacle: np.ndarray,
    unknown: np.ndarray,
    inscribed: np.ndarray,
    resolution: float,
    robot_radius: float,
    inflation_radius: float,
    cost_scaling_factor: float,
) -> np.ndarray:
    """The inflation layer's raw costs (see `inflation_cost`, vectorised); `inscribed` marks the
    cells within the inscribed radius, unknown ones included (253 overwrites 255)."""
    reach = ~inscribed & ~obstacle & (
        distance2 <= radius_limit_cells2(inflation_radius, resolution)
    )
    distance = np.sqrt(distance2[reach].astype(np.float64)) * resolution
    scaled = MAX_NON_OBSTACLE * np.exp(-cost_scaling_factor * (distance - robot_radius))
    raw = np.where(unknown, NO_INFORMATION, FREE_COST).astype(np.uint8)
    raw[reach & ~unknown] = scaled[~unknown[reach]].astype(np.uint8)
    raw[inscribed] = INSCRIBED
    raw[obstacle] = LETHAL
    return raw
