"""The map value object and the planning grid: geometry, thresholds, inflation, components."""

from __future__ import annotations

import math

import numpy as np
import pytest
from grid_fixtures import build, kernel, random_grids
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import (
    GoalOutsideMap,
    OccupancyMap,
    PlanningGrid,
    StartOccupied,
    UnsupportedMapError,
    plan,
    plan_world,
)
from grid_planner.grid.components import label_components, label_components_numpy
from grid_planner.grid.costs import obstacle_distance2
from grid_planner.grid.kernels import FREE_CLEARANCE, LETHAL_CLEARANCE
from grid_planner.grid.occupancy import index_points, obstacle_cells, unknown_cells

# --- OccupancyMap -----------------------------------------------------------------------------


def test_map_data_is_a_read_only_flat_int8_copy():
    source = np.array([[0, 100], [-1, 50]])
    occupancy = OccupancyMap.from_rows(source, top_row_first=False)
    assert occupancy.data.dtype == np.int8
    assert occupancy.data.tolist() == [0, 100, -1, 50]
    source[0, 0] = 100
    assert occupancy.data[0] == 0
    with pytest.raises(ValueError):
        occupancy.data[0] = 5


def test_whole_float_values_are_read_as_the_integers_they_are():
    occupancy = OccupancyMap.from_rows(np.array([[0.0, 100.0, -1.0]]))
    assert occupancy.data.tolist() == [0, 100, -1]


def test_from_rows_puts_the_first_printed_row_at_the_top():
    occupancy = OccupancyMap.from_rows([[100, 0], [0, 0]])
    assert occupancy.value(0, 1) == 100
    assert occupancy.value(0, 0) == 0
    assert occupancy.cell_index(1, 1) == 3
    assert occupancy.index_cell(3) == (1, 1)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"width": 2, "height": 2, "resolution": 0.1, "data": [0, 0, 0]}, "expected"),
        ({"width": 0, "height": 2, "resolution": 0.1, "data": []}, "positive"),
        ({"width": 1, "height": 1, "resolution": 0.0, "data": [0]}, "resolution"),
        ({"width": 1, "height": 1, "resolution": math.nan, "data": [0]}, "resolution"),
        ({"width": 1, "height": 1, "resolution": 1.0, "data": [300]}, "int8"),
        ({"width": 1, "height": 1, "resolution": 1.0, "data": [0], "origin_x": math.inf}, "finite"),
        # A NaN was cast to 0 (free) and 64.9 to 64 (free under 65): a plan crossed them.
        ({"width": 2, "height": 1, "resolution": 1.0, "data": [0.0, math.nan]},
         "map values must be whole numbers, got nan"),
        ({"width": 2, "height": 1, "resolution": 1.0, "data": [0.0, 64.9]},
         "map values must be whole numbers, got 64.9"),
        ({"width": 1, "height": 1, "resolution": 1.0, "data": [0], "raw_costs": [252.5]},
         "raw costs must be whole numbers, got 252.5"),
        ({"width": 1, "height": 1, "resolution": 1.0, "data": [0], "raw_costs": [256]},
         "raw costs must fit in uint8"),
        ({"width": 2, "height": 1, "resolution": 1.0, "data": ["0", "100"]},
         "map values must be numbers, got an array of <U3"),
    ],
)
def test_invalid_maps_are_refused_with_a_reason(kwargs, words):
    with pytest.raises(UnsupportedMapError, match=words):
        OccupancyMap(**kwargs)


def test_cell_centres_and_floor_conversion():
    occupancy = OccupancyMap.from_rows(np.zeros((4, 5)), resolution=0.5, origin=(-1.0, 2.0, 0.0))
    assert occupancy.cell_to_world(0, 0) == (-0.75, 2.25)
    assert occupancy.cell_to_world(4, 3) == (1.25, 3.75)
    assert occupancy.world_to_cell(-1.0, 2.0) == (0, 0)
    assert occupancy.world_to_cell(-1.0001, 1.9999) == (-1, -1)
    assert occupancy.world_to_cell(1.4999, 3.9999) == (4, 3)
    assert occupancy.world_to_cell(1.5, 4.0) == (5, 4)
    assert not occupancy.contains_cell(5, 0)
    np.testing.assert_allclose(occupancy.indices_to_world([0, 19]), [[-0.75, 2.25], [1.25, 3.75]])
    with pytest.raises(IndexError):
        occupancy.cell_index(5, 0)


def test_a_point_too_far_for_any_cell_number_is_far_outside_not_an_overflow():
    occupancy = OccupancyMap.from_rows(np.zeros((4, 5)), resolution=0.05)
    far = 1 << 62
    assert occupancy.world_to_cell(1e308, -1e308) == (far, -far)
    assert occupancy.worlds_to_cells(np.array([[1e308, -1e308], [0.06, 0.11]])).tolist() == [
        [far, -far], [1, 2],
    ]
    assert not occupancy.contains_cell(far, 0)
    # A far origin on a rotated map: the offset is infinite and the rotation made it NaN, which
    # raised ValueError (planner_node answered 200 UNKNOWN instead of GOAL_OUTSIDE_MAP).
    rotated = OccupancyMap(5, 4, 0.05, np.zeros(20), origin_x=-1e308, origin_y=-1e308,
                           origin_yaw=math.pi / 4)
    assert rotated.world_to_cell(1e308, 1e308) == (far, far)
    assert rotated.worlds_to_cells(np.array([[1e308, 1e308]])).tolist() == [[far, far]]
    with pytest.raises(GoalOutsideMap, match="lies outside the map"):
        plan_world(PlanningGrid(rotated), (-1e308, -1e308), (1e308, 1e308))


@given(
    x=st.integers(0, 4095),
    y=st.integers(0, 4095),
    resolution=st.sampled_from((0.01, 0.025, 0.05, 0.1, 0.3, 1.0)),
    ox=st.floats(-500, 500, allow_nan=False),
    oy=st.floats(-500, 500, allow_nan=False),
    yaw=st.sampled_from((0.0, 0.0, 0.3, -1.2, math.pi / 2, math.pi)),
)
@settings(max_examples=300, deadline=None)
def test_cell_to_world_to_cell_round_trips(x, y, resolution, ox, oy, yaw):
    occupancy = OccupancyMap(
        width=1, height=1, resolution=resolution, data=[0], origin_x=ox, origin_y=oy, origin_yaw=yaw
    )
    wx, wy = occupancy.cell_to_world(x, y)
    assert occupancy.world_to_cell(wx, wy) == (x, y)
    # Any point strictly inside the cell maps back to it (away from the float-fuzzy edge).
    for fx, fy in ((0.01, 0.01), (0.99, 0.5), (0.5, 0.99)):
        lx, ly = (x + fx) * resolution, (y + fy) * resolution
        c, s = math.cos(yaw), math.sin(yaw)
        px, py = ox + c * lx - s * ly, oy + s * lx + c * ly
        assert occupancy.world_to_cell(px, py) == (x, y)


@given(st.floats(1e-3, 10.0), st.floats(-1e4, 1e4), st.floats(-1e4, 1e4),
       st.sampled_from([0.0, 0.7, -math.pi / 2, 3.0]))
@settings(max_examples=100, deadline=None)
def test_indices_to_world_is_cell_to_world_to_the_bit(resolution, ox, oy, yaw):
    # The compiled pass makes cell_to_world's operations in its order: the same floats.
    occupancy = OccupancyMap.from_rows(np.zeros((3, 4)), resolution=resolution,
                                       origin=(ox, oy, yaw))
    expected = [occupancy.cell_to_world(*occupancy.index_cell(i)) for i in range(12)]
    assert occupancy.indices_to_world(np.arange(12)).tolist() == [list(p) for p in expected]
    every_other = np.repeat(np.arange(12, dtype=np.int32), 2)[::2]  # not int64, strided
    assert occupancy.indices_to_world(every_other).tolist() == [list(p) for p in expected]


@given(st.integers(1, 200_000), st.lists(st.integers(0, 2**40), max_size=50))
@settings(max_examples=300, deadline=None)
def test_index_points_are_the_columns_and_rows_of_a_division(width, indices):
    # Rows come from a product, not a division: exact for any width and index up to 2^40.
    rows, columns = np.divmod(np.array(indices, dtype=np.int64), width)
    points = index_points(indices, width)
    assert points.shape == (len(indices), 2)
    assert points[:, 0].tolist() == columns.tolist()
    assert points[:, 1].tolist() == rows.tolist()


def test_rotated_origin_turns_the_grid_about_the_origin():
    occupancy = OccupancyMap.from_rows(np.zeros((2, 2)), resolution=1.0, origin=(1, 1, math.pi / 2))
    wx, wy = occupancy.cell_to_world(0, 0)
    assert (wx, wy) == pytest.approx((0.5, 1.5))
    assert occupancy.world_to_cell(0.5, 1.5) == (0, 0)
    assert occupancy.world_to_cell(0.5, 2.6) == (1, 0)


# --- thresholds and unknown -------------------------------------------------------------------


def test_lethal_cells_follow_the_threshold_and_allow_unknown():
    occupancy = OccupancyMap.from_rows([[0, 64, 65, 100, -1]])
    grid = PlanningGrid(occupancy)
    assert grid.lethal_mask.tolist() == [False, False, True, True, True]
    grid = PlanningGrid(occupancy, occupied_threshold=100, allow_unknown=True)
    assert grid.lethal_mask.tolist() == [False, False, False, True, False]
    assert grid.blocked_mask.tolist() == grid.lethal_mask.tolist()
    assert grid.clearance.tolist() == [FREE_CLEARANCE] * 3 + [LETHAL_CLEARANCE, FREE_CLEARANCE]


def test_obstacle_cells_is_the_threshold_or_a_value_below_minus_one_for_every_byte():
    values = np.arange(-128, 128, dtype=np.int8)
    for threshold in range(1, 101):
        expected = [int(v) >= threshold or int(v) < -1 for v in values]
        assert obstacle_cells(values, threshold).tolist() == expected, threshold
    assert unknown_cells(values).tolist() == [int(v) == -1 for v in values]
    wide = np.array([-300, -2, -1, 0, 64, 65, 300], dtype=np.int16)  # not bytes: compared as is
    assert obstacle_cells(wide, 65).tolist() == [True, True, False, False, False, True, True]
    assert unknown_cells([-1, 0]).tolist() == [True, False]


@pytest.mark.parametrize("model", ["uniform", "inflation", "costmap"])
def test_values_outside_minus_one_to_100_are_obstacles_not_unknown(model):
    """nav_msgs defines no value below -1 or above 100; Nav2's static layer reads such a byte
    as lethal, and so do the grid, its cost models and its messages, even where unknown space
    may be crossed."""
    occupancy = OccupancyMap.from_rows([[0, -2, 0, -128, 0, 127, -1]])
    assert occupancy.value_counts() == {"free": 3, "occupied": 3, "unknown": 1, "other": 0}
    grid = PlanningGrid(occupancy, allow_unknown=True, robot_radius=1.0, cost_model=model)
    assert grid.lethal_mask.tolist() == [False, True, False, True, False, True, False]
    assert grid.blocked_mask[[0, 2, 4]].all()  # inflated by their neighbours
    with pytest.raises(StartOccupied, match=r"lethal: occupied \(value -2\)"):
        plan(grid, (1, 0), (0, 0))


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"occupied_threshold": 0}, "1..100"),
        ({"occupied_threshold": 101}, "1..100"),
        ({"occupied_threshold": 6.5}, "integer"),
        ({"occupied_threshold": True}, "integer"),
        ({"robot_radius": -0.1}, "robot_radius"),
        ({"robot_radius": math.inf}, "robot_radius"),
    ],
)
def test_bad_grid_parameters_are_refused(kwargs, words):
    with pytest.raises(ValueError, match=words):
        PlanningGrid(OccupancyMap.from_rows([[0]]), **kwargs)


def test_masks_are_read_only():
    grid = PlanningGrid(OccupancyMap.from_rows([[0, 100]]))
    for mask in (grid.lethal_mask, grid.inflated_mask, grid.blocked_mask, grid.clearance):
        with pytest.raises(ValueError):
            mask[0] = 1


# --- inflation --------------------------------------------------------------------------------


def test_inflation_uses_centre_distance_with_inclusive_radius():
    values = np.zeros((7, 7), dtype=np.int8)
    values[3, 3] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.05), robot_radius=0.1)
    inflated = grid.inflated_mask.reshape(7, 7)
    expected = np.array(
        [
            [(x - 3) ** 2 + (y - 3) ** 2 <= 4 and (x, y) != (3, 3) for x in range(7)]
            for y in range(7)
        ]
    )
    np.testing.assert_array_equal(inflated, expected)
    # 0.15 m at 0.05 m/cell is 2.9999999999999996 cells in floating point: still 3 cells.
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.05), robot_radius=0.15)
    assert grid.inflated_mask.reshape(7, 7)[3, 0]
    assert grid.inflated_mask.reshape(7, 7)[0, 3]
    assert not grid.inflated_mask.reshape(7, 7)[0, 0]


def test_unknown_cells_do_not_inflate_but_obstacles_inflate_into_them():
    values = np.array([[-1, 0, 0, 100, -1]], dtype=np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0, allow_unknown=True)
    assert grid.inflated_mask.tolist() == [False, False, True, False, True]
    grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0)
    assert grid.inflated_mask.tolist() == [False, False, True, False, False]
    assert grid.lethal_mask.tolist() == [True, False, False, True, True]


@given(random_grids(max_side=14))
@settings(max_examples=150, deadline=None)
def test_inflation_and_clearance_match_brute_force(case):
    values, threshold, allow_unknown, radius, _start, _goal = case
    grid, rules = build(values, threshold, allow_unknown, radius)
    for y in range(rules.height):
        for x in range(rules.width):
            index = y * rules.width + x
            assert bool(grid.lethal_mask[index]) == rules.lethal[(x, y)]
            assert bool(grid.inflated_mask[index]) == rules.inflated[(x, y)]
            assert bool(grid.blocked_mask[index]) == rules.blocked((x, y))
            if rules.inflated[(x, y)]:
                assert int(grid.clearance[index]) == rules.distance2[(x, y)]


@given(
    st.integers(1, 30),
    st.integers(1, 30),
    st.integers(0, 8),
    st.data(),
)
@settings(max_examples=80, deadline=None)
def test_obstacle_distance_is_exact_within_the_offset(height, width, max_offset, data):
    obstacles = np.array(
        data.draw(st.lists(st.booleans(), min_size=height * width, max_size=height * width))
    ).reshape(height, width)
    result = obstacle_distance2(obstacles, max_offset)
    points = np.argwhere(obstacles)
    ys, xs = np.mgrid[0:height, 0:width]
    if points.size:
        true = np.min(
            (ys[..., None] - points[:, 0]) ** 2 + (xs[..., None] - points[:, 1]) ** 2, axis=2
        )
    else:
        true = np.full((height, width), np.iinfo(np.int64).max)
    within = true <= max_offset * max_offset
    np.testing.assert_array_equal(result[within], true[within])
    assert np.all(result[~within] > max_offset * max_offset)


def test_large_radius_on_a_real_sized_map_matches_a_disc_dilation():
    rng = np.random.default_rng(7)
    values = np.where(rng.random((120, 90)) < 0.01, 100, 0).astype(np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.05), robot_radius=0.5)
    obstacle = values[::-1] >= 65
    dilated = np.zeros_like(obstacle)
    for dy in range(-10, 11):
        for dx in range(-10, 11):
            if dx * dx + dy * dy <= 100:
                shifted = np.zeros_like(obstacle)
                ys = slice(max(dy, 0), obstacle.shape[0] + min(dy, 0))
                yd = slice(max(-dy, 0), obstacle.shape[0] + min(-dy, 0))
                xs = slice(max(dx, 0), obstacle.shape[1] + min(dx, 0))
                xd = slice(max(-dx, 0), obstacle.shape[1] + min(-dx, 0))
                shifted[ys, xs] = obstacle[yd, xd]
                dilated |= shifted
    np.testing.assert_array_equal(grid.blocked_mask.reshape(obstacle.shape), dilated)


# --- components -------------------------------------------------------------------------------


@kernel
@given(random_grids(max_side=16))
@settings(max_examples=100, deadline=None)
def test_component_labels_agree_between_kernel_numpy_and_brute_force(case):
    values, threshold, allow_unknown, radius, _start, _goal = case
    grid, rules = build(values, threshold, allow_unknown, radius)
    free = grid.free_mask.reshape(rules.height, rules.width)
    compiled, reference = label_components(free), label_components_numpy(free)
    np.testing.assert_array_equal(compiled[0], reference[0])
    np.testing.assert_array_equal(compiled[1], reference[1])
    labels = grid.component_labels
    np.testing.assert_array_equal(
        grid.component_sizes, np.bincount(labels[labels >= 0], minlength=grid.component_count)
    )
    for y in range(rules.height):
        for x in range(rules.width):
            if rules.blocked((x, y)):
                assert labels[y * rules.width + x] == -1
                continue
            reach = rules.bfs_distances((x, y))
            same = {c for c in reach if not rules.blocked(c)}
            # A free cell reaches exactly the free cells of its component.
            members = {
                (i % rules.width, i // rules.width)
                for i in np.flatnonzero(labels == labels[y * rules.width + x])
            }
            assert members == same


@given(random_grids(max_side=16))
@settings(max_examples=60, deadline=None)
def test_the_log_summary_counts_the_cells_of_each_mask(case):
    values, threshold, allow_unknown, radius, _start, _goal = case
    grid, _rules = build(values, threshold, allow_unknown, radius)
    counts = (f"{int(grid.lethal_mask.sum())} lethal, {int(grid.inflated_mask.sum())} inflated, "
              f"{int(grid.free_mask.sum())} free cells")
    assert counts in grid.describe()


@pytest.mark.parametrize(("resolution", "shown"), [(0.1, "0.1"), (0.05, "0.05"),
                                                   (0.123456789, "0.1234568")])
def test_the_log_summary_shows_a_float32_resolution_as_sent(resolution, shown):
    # A map message's resolution is a float32: 0.1 arrives as 0.10000000149011612.
    sent = float(np.float32(resolution))
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((2, 3), dtype=np.int8), sent))
    assert grid.describe().startswith(f"3 x 2 cells at {shown} m, cost model uniform")


def test_reachable_components_of_an_inflated_start_are_those_next_to_its_escape():
    # Two free areas separated by a wall; a start in the band beside the wall escapes to the
    # side it stands on only.
    values = np.zeros((5, 9), dtype=np.int8)
    values[:, 4] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False), robot_radius=1.0)
    left = grid.component_labels[2 * 9 + 1]
    start = 2 * 9 + 3  # inflated, left of the wall
    assert grid.inflated_mask[start]
    assert grid.reachable_components(start) == {int(left)}
    assert grid.reachable_components(2 * 9 + 4) == set()  # lethal
