"""planner_node's PlanningMap (no DDS; it lives with the nodes): patches applied to every grid it
keeps, through one patched map, and a patch that changes nothing keeps the map and its grids."""

from __future__ import annotations

import numpy as np

from grid_planner.grid.costs import costmap_value
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import MapPatch
from grid_planner.nodes.planning_map import GridSettings, PlanningMap

UNIFORM = GridSettings(65, False, 0.2)
COSTMAP = GridSettings(65, True, 0.0, "costmap")


def planning_map(raw: np.ndarray | None = None) -> PlanningMap:
    values = np.zeros(40 * 30, dtype=np.int8) if raw is None else costmap_value(raw)
    maps = PlanningMap()
    occupancy = OccupancyMap(width=40, height=30, resolution=0.1, data=values, raw_costs=raw)
    maps.replace(occupancy, 1, UNIFORM)
    maps.grid(COSTMAP)
    return maps


def test_a_patch_reaches_every_grid_through_one_map() -> None:
    maps = planning_map()
    raw = np.full(6, 254, dtype=np.uint8)
    maps.apply(MapPatch(10, 10, 3, 2, costmap_value(raw), raw), 2)
    uniform, costmap = maps.peek(UNIFORM), maps.peek(COSTMAP)
    assert uniform.map is costmap.map is maps.current
    assert maps.current.raw_costs.reshape(30, 40)[10:12, 10:13].tolist() == [[254] * 3] * 2
    assert uniform.lethal_mask.reshape(30, 40)[10:12, 10:13].all()
    assert costmap.lethal_mask.reshape(30, 40)[10:12, 10:13].all()


def test_a_patch_that_changes_nothing_keeps_the_map_and_its_grids() -> None:
    raw = np.zeros(40 * 30, dtype=np.uint8)
    raw[5] = 200
    maps = planning_map(raw)
    before = (maps.current, maps.peek(UNIFORM), maps.peek(COSTMAP))
    window = raw.reshape(30, 40)[0:2, 0:10].reshape(-1).copy()
    maps.apply(MapPatch(0, 0, 10, 2, costmap_value(window), window), 2)
    assert (maps.current, maps.peek(UNIFORM), maps.peek(COSTMAP)) == before
    # The same values without the raw costs would read 200 back as 198: a change.
    maps.apply(MapPatch(0, 0, 10, 2, costmap_value(window)), 3)
    assert maps.current is not before[0]
    assert maps.current.raw_costs[5] == 198
