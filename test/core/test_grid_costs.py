"""Cost models: Nav2's translation and inflation formulas, the layers a model gives a grid."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from grid_fixtures import build, random_grids
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid
from grid_planner.grid.costs import (
    costmap_raw,
    costmap_value,
    step_cost_tables,
)
from grid_planner.grid.layers import inflation_table

# --- the translation between raw costs and costmap values ---------------------------------------


@pytest.mark.parametrize(
    ("raw", "value"),
    [(0, 0), (1, 1), (2, 1), (3, 1), (4, 2), (128, 50), (250, 97), (251, 97), (252, 98),
     (253, 99), (254, 100), (255, -1)],
)
def test_raw_costs_translate_as_nav2_does(raw, value):
    # 1 + (97 * (c - 1)) / 251 with integer division; 253 -> 99, 254 -> 100, 255 -> -1.
    assert costmap_value(np.array([raw])).tolist() == [value]


@pytest.mark.parametrize(
    ("value", "raw"),
    [(0, 0), (1, 1), (2, 4), (50, 128), (97, 250), (98, 252), (99, 253), (100, 254), (-1, 255)],
)
def test_costmap_values_read_back_as_the_smallest_raw_cost(value, raw):
    assert costmap_raw(np.array([value])).tolist() == [raw]


def test_reading_back_gives_the_smallest_raw_cost_of_every_value():
    raw = np.arange(256)
    values = costmap_value(raw)
    smallest = {int(v): int(raw[values == v].min()) for v in np.unique(values)}
    assert costmap_raw(np.array(list(smallest))).tolist() == list(smallest.values())
    assert (costmap_value(costmap_raw(values)) == values).all()


# --- Nav2's inflation formula -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("distance", "scaling", "cost"),
    # Inscribed radius 0.2255 m (Nav2's for robot_radius 0.22 with its footprint padding).
    [(0.0, 3.0, 254), (0.1, 3.0, 253), (0.25, 3.0, 234), (0.3, 3.0, 201), (0.5, 3.0, 110),
     (0.7, 3.0, 60), (0.25, 10.0, 197), (0.3, 10.0, 119), (0.5, 10.0, 16), (0.7, 10.0, 2),
     (0.75, 3.0, 0)],
)
def test_the_inflation_table_matches_hand_computed_values(distance, scaling, cost):
    # At 0.05 m a distance of k cells is k * 0.05 m; the table is read by squared cells.
    table = inflation_table(15, 0.05, 0.2255, 0.7, scaling)
    assert table[round(distance / 0.05) ** 2] == cost


def test_the_grid_inflation_layer_at_the_edges_of_its_bands():
    # One obstacle at (0, 0) on a 1-row map at 0.1 m: d = 0.1 * x.
    values = np.zeros((1, 12), dtype=np.int8)
    values[0, 0] = 100
    grid = PlanningGrid(
        OccupancyMap.from_rows(values, resolution=0.1), robot_radius=0.2, cost_model="inflation",
        inflation_radius=0.55, cost_scaling_factor=3.0,
    )
    expected = [254, 253, 253]  # d = 0 and d <= inscribed (0.1, 0.2, inclusive)
    expected += [int(252 * math.exp(-3.0 * (0.1 * x - 0.2))) for x in range(3, 6)]
    expected += [0] * 6  # beyond inflation_radius
    assert grid.raw_costs.tolist() == expected
    assert expected[3:6] == [186, 138, 102]  # hand-computed: 252 exp(-3 (d - 0.2))
    assert grid.blocked_mask.tolist() == [True] * 3 + [False] * 9


def test_a_huge_scaling_factor_leaves_only_the_inscribed_band_and_warns_nothing():
    # exp(-1e308 (d - r)) overflowed inside the radius: numpy printed a RuntimeWarning.
    values = np.zeros((1, 6), dtype=np.int8)
    values[0, 0] = 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.1), robot_radius=0.2,
                            cost_model="inflation", inflation_radius=0.55,
                            cost_scaling_factor=1e308)
    assert grid.raw_costs.tolist() == [254, 253, 253, 0, 0, 0]


@given(random_grids(max_side=9), st.sampled_from((0.0, 1.0, 2.5)), st.sampled_from((1.0, 3.0)))
@settings(max_examples=150, deadline=None)
def test_inflation_layer_matches_a_cell_by_cell_computation(case, extra, scaling):
    values, threshold, allow_unknown, radius, _start, _goal = case
    resolution = 0.05
    grid, rules = build(values, threshold, allow_unknown, radius, resolution=resolution)
    inflation_radius = (radius + extra) * resolution
    grid = PlanningGrid(
        grid.map, occupied_threshold=threshold, allow_unknown=allow_unknown,
        robot_radius=radius * resolution, cost_model="inflation",
        inflation_radius=inflation_radius, cost_scaling_factor=scaling,
    )
    expected = rules.inflation_raw(resolution, radius * resolution, inflation_radius, scaling)
    raw = grid.raw_costs.reshape(rules.height, rules.width)
    for (x, y), cost in expected.items():
        assert raw[y, x] == cost, ((x, y), raw[y, x], cost)
    # The same cells block as under the uniform model: the 253 band is the robot's radius.
    uniform, _ = build(values, threshold, allow_unknown, radius, resolution=resolution)
    np.testing.assert_array_equal(grid.blocked_mask, uniform.blocked_mask)


# --- step costs and the costmap model -----------------------------------------------------------


def test_step_costs_follow_smac_and_uniform_ignores_the_multiplier():
    straight, diagonal = step_cost_tables("inflation", 2.0)
    assert straight[0] == 1.0
    assert straight[126] == pytest.approx(2.0)
    assert straight[255] == pytest.approx(1.0 + 2.0 * 255 / 252)
    assert diagonal[100] == pytest.approx(math.sqrt(2.0) * (1.0 + 2.0 * 100 / 252))
    zero, _ = step_cost_tables("costmap", 0.0)
    assert (zero == 1.0).all()
    uniform, uniform_diagonal = step_cost_tables("uniform", 5.0)
    assert (uniform == 1.0).all() and (uniform_diagonal == math.sqrt(2.0)).all()
    with pytest.raises(ValueError, match="cost_travel_multiplier"):
        step_cost_tables("inflation", -1.0)
    # 1e7 made one weighted plan allocate 2.3 GB (its bucket ring grows with the dearest step).
    assert step_cost_tables("inflation", 1000.0)[0][252] == pytest.approx(1001.0)
    with pytest.raises(ValueError, match=r"cost_travel_multiplier must be a finite number in "
                       r"\[0, 1000\], got 1001"):
        step_cost_tables("inflation", 1001.0)
    with pytest.raises(ValueError, match="cost_model must be one of uniform, inflation, costmap"):
        step_cost_tables("smac", 1.0)


def test_a_costmap_blocks_inscribed_and_lethal_cells_and_unknown_unless_allowed():
    values = np.array([[0, 1, 50, 98, 99, 100, -1]], dtype=np.int8)
    for allow_unknown, unknown_blocked in ((False, True), (True, False)):
        grid = PlanningGrid(OccupancyMap.from_rows(values), cost_model="costmap",
                            allow_unknown=allow_unknown, occupied_threshold=1)
        assert grid.raw_costs.tolist() == [0, 1, 128, 252, 253, 254, 255]
        assert grid.lethal_mask.tolist() == [False] * 5 + [True, unknown_blocked]
        assert grid.blocked_mask.tolist() == [False] * 4 + [True, True, unknown_blocked]
        assert grid.obstacle_mask.tolist() == [False] * 5 + [True, False]


def test_exact_raw_costs_replace_the_translated_values():
    raw = np.array([0, 3, 200, 253, 254, 255], dtype=np.uint8)
    occupancy = OccupancyMap(6, 1, 0.05, costmap_value(raw), raw_costs=raw)
    grid = PlanningGrid(occupancy, cost_model="costmap", allow_unknown=True)
    assert grid.raw_costs.tolist() == raw.tolist()
    translated = PlanningGrid(OccupancyMap(6, 1, 0.05, costmap_value(raw)), cost_model="costmap")
    assert translated.raw_costs.tolist() == [0, 1, 198, 253, 254, 255]


def test_robot_radius_inflates_a_costmap_further():
    values = np.zeros((1, 8), dtype=np.int8)
    values[0, 0] = 100
    values[0, 1] = 99
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.1), cost_model="costmap",
                        robot_radius=0.3)
    assert grid.blocked_mask.tolist() == [True] * 4 + [False] * 4
    assert grid.clearance[1:4].tolist() == [1, 4, 9]  # squared cells to the lethal cell


def test_bad_cost_settings_are_refused():
    occupancy = OccupancyMap.from_rows([[0, 0]])
    with pytest.raises(ValueError, match="cost_model"):
        PlanningGrid(occupancy, cost_model="smac")
    with pytest.raises(ValueError, match="inflation_radius"):
        PlanningGrid(occupancy, cost_model="inflation", inflation_radius=-0.1)
    # 5 km at 0.05 m asked for a 74.5 GiB table (MemoryError); now refused before it.
    fine = OccupancyMap.from_rows([[0, 0]], resolution=0.05)
    with pytest.raises(ValueError, match=r"inflation_radius 5000.0 m is 1e\+05 cells at 0.05 "
                       r"m/cell, more than the 2,048 cells the inflation layer reaches"):
        PlanningGrid(fine, cost_model="inflation", inflation_radius=5000.0)
    with pytest.raises(ValueError, match=r"robot_radius 200.0 m is 4000 cells at 0.05 "
                       r"m/cell, more than the 2,048 cells the inflation layer reaches"):
        PlanningGrid(fine, cost_model="inflation", robot_radius=200.0)
    with pytest.raises(ValueError, match="cost_scaling_factor"):
        PlanningGrid(occupancy, cost_model="inflation", cost_scaling_factor=math.nan)
    with pytest.raises(ValueError, match=r"robot_radius 1e\+154 m is 2e\+155 cells at 0.05 m/cell, "
                       "more than the 65,535 cells of clearance a grid holds"):
        PlanningGrid(fine, robot_radius=1e154)  # its square overflowed: OverflowError
