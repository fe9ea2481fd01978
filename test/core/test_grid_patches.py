"""Partial map updates: a patched grid equals the grid built from scratch on the patched map,
and a patch that does not fit is refused with the reason, the grid untouched."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid.components import label_components, patch_labels
from grid_planner.grid.costs import costmap_raw, costmap_value
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import (
    MapPatch,
    PatchError,
    changed_region,
    patch_grid,
    patch_map,
    regrid,
)
from grid_planner.grid.planning_grid import PlanningGrid

CELL_VALUES = (0, 0, 0, 0, 0, 0, 100, 100, -1, 30, 70, 99, 50, -5)
RAW_COSTS = (0, 0, 0, 10, 200, 252, 253, 254, 255)
ARRAYS = ("obstacle_mask", "lethal_mask", "inflated_mask", "blocked_mask", "free_mask",
          "clearance", "padded_keys")

SIDE = 120  # the local box (the region and 16 cells round it) is a small share of the map
CELLS = SIDE * SIDE


def open_grid() -> PlanningGrid:
    return PlanningGrid(OccupancyMap.from_rows(np.zeros((SIDE, SIDE), dtype=np.int8)))


@st.composite
def maps_and_patches(draw):
    width, height = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    values = np.array(draw(st.lists(st.sampled_from(CELL_VALUES), min_size=width * height,
                                    max_size=width * height)), dtype=np.int8)
    raw = None
    if draw(st.booleans()):  # a nav2_msgs/Costmap: exact raw costs beside the values
        raw = np.array(draw(st.lists(st.sampled_from(RAW_COSTS),
                                     min_size=width * height, max_size=width * height)),
                       dtype=np.uint8)
    occupancy = OccupancyMap(width=width, height=height, resolution=0.1, data=values,
                             raw_costs=raw)
    patches = []
    for _ in range(draw(st.integers(1, 3))):
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        w, h = draw(st.integers(1, width - x)), draw(st.integers(1, height - y))
        if draw(st.booleans()):  # a nav2_msgs/CostmapUpdate: raw costs and their values
            window = np.array(draw(st.lists(st.sampled_from(RAW_COSTS), min_size=w * h,
                                            max_size=w * h)), dtype=np.uint8)
            patches.append(MapPatch(x, y, w, h, costmap_value(window), window))
            continue
        cells = draw(st.lists(st.sampled_from(CELL_VALUES), min_size=w * h, max_size=w * h))
        patches.append(MapPatch(x, y, w, h, np.array(cells, dtype=np.int8)))
    grid_settings = {
        "cost_model": draw(st.sampled_from(("uniform", "inflation", "costmap"))),
        "allow_unknown": draw(st.booleans()),
        "robot_radius": draw(st.sampled_from((0.0, 0.0, 0.1, 0.15, 0.22, 0.3))),
        "inflation_radius": draw(st.sampled_from((0.0, 0.2, 0.35))),
        "cost_scaling_factor": draw(st.sampled_from((1.0, 10.0))),
        "occupied_threshold": draw(st.sampled_from((65, 25, 100))),
    }
    return occupancy, patches, grid_settings


def numbered_by_first_cell(labels: np.ndarray) -> np.ndarray:
    """The same partition, its components numbered in the order of their lowest cell."""
    members = labels >= 0
    _, first, inverse = np.unique(labels[members], return_index=True, return_inverse=True)
    renumbered = np.full(labels.shape, -1, dtype=np.int64)
    renumbered[members] = np.argsort(np.argsort(first))[inverse.reshape(-1)]
    return renumbered


def assert_same_components(patched: PlanningGrid, scratch: PlanningGrid) -> None:
    """The same partition of the free cells, each cell's component of the same size, the same
    count; a patched grid's labels may be numbered otherwise, and unused labels have size 0."""
    labels, expected = patched.component_labels, scratch.component_labels
    np.testing.assert_array_equal(numbered_by_first_cell(labels), expected)
    members = labels >= 0
    np.testing.assert_array_equal(patched.component_sizes[labels[members]],
                                  scratch.component_sizes[expected[members]])
    used = np.zeros(patched.component_sizes.size, dtype=np.bool_)
    used[labels[members]] = True
    assert not patched.component_sizes[~used].any()
    assert patched.component_count == scratch.component_count


def assert_same_grid(patched: PlanningGrid, scratch: PlanningGrid) -> None:
    np.testing.assert_array_equal(patched.map.data, scratch.map.data)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(patched, name), getattr(scratch, name), name)
    assert_same_components(patched, scratch)
    if scratch.raw_costs is None:
        assert patched.raw_costs is None
    else:
        np.testing.assert_array_equal(patched.raw_costs, scratch.raw_costs)
    assert patched.least_raw_cost == scratch.least_raw_cost
    labels = patched.component_labels
    members = labels >= 0
    as_scratch = dict(zip(labels[members].tolist(),
                          numbered_by_first_cell(labels)[members].tolist(), strict=True))
    for cell in range(scratch.cell_count):
        for connectivity in (4, 8):
            reached = patched.reachable_components(cell, connectivity)
            assert {as_scratch[label] for label in reached} == \
                scratch.reachable_components(cell, connectivity)


@given(maps_and_patches(), st.booleans(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_a_patched_grid_equals_the_grid_built_on_the_patched_map(
    case, labelled_first, obstacles_first
):
    """Also when the labels, or the obstacles (which a patch splices in on first use where its
    grid had made them, else makes from the map), were read before each patch."""
    occupancy, patches, grid_settings = case
    grid = PlanningGrid(occupancy, **grid_settings)
    patched_map = occupancy
    for patch in patches:
        if labelled_first:
            grid.component_labels  # noqa: B018 - kept or relabelled, never stale
        if obstacles_first:
            grid.obstacle_mask  # noqa: B018 - spliced or made, never stale
        grid = patch_grid(grid, patch)
        patched_map = patch_map(patched_map, patch)
    assert_same_grid(grid, PlanningGrid(patched_map, **grid_settings))


@given(maps_and_patches())
@settings(max_examples=100, deadline=None)
def test_a_patch_of_raw_costs_gives_the_map_those_costs_sent_whole_give(case):
    """The map a CostmapUpdate's patch makes, built here without `patch_map`: its raw costs in
    the window (over the map's own, or its values read back onto the raw scale when it has
    none) and their translation as its values."""
    occupancy, patches, grid_settings = case
    grid = PlanningGrid(occupancy, **grid_settings)
    for patch in patches:
        if patch.raw_costs is None:
            continue
        before = grid.map
        shape = (before.height, before.width)
        raw = (costmap_raw(before.data) if before.raw_costs is None
               else before.raw_costs.copy()).reshape(shape)
        raw[patch.window] = patch.raw_costs.reshape(patch.height, patch.width)
        values = before.data.copy().reshape(shape)
        values[patch.window] = costmap_value(patch.raw_costs).reshape(patch.height, patch.width)
        sent_whole = replace(before, data=values.reshape(-1), raw_costs=raw.reshape(-1))
        grid = patch_grid(grid, patch)
        np.testing.assert_array_equal(grid.map.raw_costs, sent_whole.raw_costs)
        assert_same_grid(grid, PlanningGrid(sent_whole, **grid_settings))


@given(maps_and_patches())
@settings(max_examples=100, deadline=None)
def test_a_patch_changes_the_map_exactly_when_patching_makes_another_map(case):
    """`changes` reads the window only; the whole maps before and after are the reference. A
    patch of the window's own values changes nothing unless it brings raw costs the map lacks
    or differ from the map's own."""
    occupancy, patches, _settings = case
    for patch in patches:
        after = patch_map(occupancy, patch)
        differs = not np.array_equal(after.data, occupancy.data) or (
            (after.raw_costs is None) != (occupancy.raw_costs is None)
            or (after.raw_costs is not None
                and not np.array_equal(after.raw_costs, occupancy.raw_costs)))
        assert patch.changes(occupancy) == differs
        rows, columns = patch.window
        own_raw = (None if occupancy.raw_costs is None else
                   occupancy.raw_costs.reshape(occupancy.height, occupancy.width)[rows, columns])
        same = MapPatch(patch.x, patch.y, patch.width, patch.height,
                        occupancy.grid2d()[rows, columns].reshape(-1),
                        None if own_raw is None else own_raw.reshape(-1))
        assert not same.changes(occupancy)
        occupancy = after


@given(maps_and_patches(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_a_full_map_that_changed_in_a_small_box_is_prepared_as_a_patch(case, labelled_first):
    occupancy, patches, grid_settings = case
    grid = PlanningGrid(occupancy, **grid_settings)
    if labelled_first:
        grid.component_labels  # noqa: B018
    sent = occupancy
    for patch in patches:
        if patch.raw_costs is not None and occupancy.raw_costs is None:
            continue  # it would give the map raw costs: a map of another kind (from scratch)
        sent = patch_map(sent, patch)
    region = changed_region(occupancy, sent)
    top, bottom, left, right = region
    changed = (occupancy.grid2d() != sent.grid2d())
    if sent.raw_costs is not None:
        changed |= (occupancy.raw_costs != sent.raw_costs).reshape(changed.shape)
    rows, columns = np.nonzero(changed)
    if rows.size:
        assert region == (rows.min(), rows.max() + 1, columns.min(), columns.max() + 1)
    else:
        assert region == (0, 0, 0, 0)
    found = regrid(grid, sent)
    if (bottom - top) * (right - left) * 4 > occupancy.cell_count:
        assert found is None
        return
    regridded, returned_region = found
    assert returned_region == region
    assert regridded.map is sent
    assert_same_grid(regridded, PlanningGrid(sent, **grid_settings))


def test_a_full_map_sent_again_unchanged_keeps_every_array_of_the_grid():
    grid = open_grid()
    labels, buffers = grid.component_labels, grid.buffers
    again = OccupancyMap.from_rows(np.zeros((SIDE, SIDE), dtype=np.int8))
    kept, region = regrid(grid, again)
    assert region == (0, 0, 0, 0)
    assert kept.map is again and grid.map is not again
    assert kept.free_mask is grid.free_mask and kept.component_labels is labels
    assert kept.buffers is buffers


@pytest.mark.parametrize("change", [
    {"width": 90, "height": 160}, {"resolution": 0.1}, {"origin_x": 1.0}, {"origin_yaw": 0.5},
    {"frame_id": "odom"}, {"raw_costs": np.zeros(CELLS, dtype=np.uint8)},
])
def test_a_full_map_of_other_cells_is_built_from_scratch(change):
    grid = open_grid()
    fields = {"width": SIDE, "height": SIDE, "resolution": 0.05,
              "data": np.zeros(CELLS, dtype=np.int8), **change}
    assert changed_region(grid.map, OccupancyMap(**fields)) is None
    assert regrid(grid, OccupancyMap(**fields)) is None


def test_a_full_map_that_changed_in_a_large_box_is_built_from_scratch():
    grid = open_grid()
    values = np.zeros((SIDE, SIDE), dtype=np.int8)
    values[0, 0] = values[SIDE - 1, SIDE - 1] = 100  # two cells, but the box is the map
    assert regrid(grid, OccupancyMap.from_rows(values)) is None


def test_a_patch_leaves_the_grid_it_came_from_as_it_was():
    values = np.zeros((20, 30), dtype=np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.05), robot_radius=0.1)
    before = {name: getattr(grid, name).copy()
              for name in (*ARRAYS, "component_labels", "component_sizes")}
    wall = np.full(5 * 3, 100, dtype=np.int8)
    patched = patch_grid(grid, MapPatch(10, 5, 5, 3, wall))
    for name, array in before.items():
        np.testing.assert_array_equal(getattr(grid, name), array, name)
    assert grid.component_count == 1
    assert patched.lethal_mask.reshape(20, 30)[5:8, 10:15].all()
    # The wall and 2 cells round it, less 3 cells at each corner (farther than 2 cells).
    assert int(patched.blocked_mask.sum()) == (5 + 4) * (3 + 4) - 4 * 3


def test_a_patch_that_keeps_the_free_cells_keeps_the_component_labels():
    values = np.zeros((10, 10), dtype=np.int8)
    values[:, 5] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values), cost_model="inflation",
                        inflation_radius=3.0)
    labels = grid.component_labels
    same_free = patch_grid(grid, MapPatch(5, 0, 1, 2, np.array([100, 100], dtype=np.int8)))
    assert same_free.component_labels is labels
    opened = patch_grid(grid, MapPatch(5, 0, 1, 1, np.array([0], dtype=np.int8)))
    assert opened.component_count == 1
    assert grid.component_count == 2


@given(st.integers(1, 30), st.integers(1, 30), st.sampled_from((0.1, 0.3, 0.5)),
       st.integers(0, 2**32 - 1), st.data())
@settings(max_examples=200, deadline=None)
def test_relabelling_a_region_gives_the_components_of_the_whole_mask_or_declines(
    width, height, density, seed, data
):
    rng = np.random.default_rng(seed)
    before = rng.random((height, width)) >= density
    top, left = data.draw(st.integers(0, height - 1)), data.draw(st.integers(0, width - 1))
    bottom = data.draw(st.integers(top + 1, height))
    right = data.draw(st.integers(left + 1, width))
    after = before.copy()
    after[top:bottom, left:right] = rng.random((bottom - top, right - left)) >= density
    labels, sizes = label_components(before)
    found = patch_labels(labels, sizes, (top, bottom, left, right), after)
    expected, expected_sizes = label_components(after)
    if found is None:  # a join or a possible cut: only the whole map can tell
        return
    patched, counts = found
    np.testing.assert_array_equal(numbered_by_first_cell(patched), expected)
    members = patched >= 0
    np.testing.assert_array_equal(counts[patched[members]], expected_sizes[expected[members]])
    assert np.count_nonzero(counts) == expected_sizes.size


def test_an_obstacle_patched_into_an_open_map_is_labelled_in_its_region_only():
    grid = open_grid()
    grid.component_labels  # noqa: B018
    block = patch_grid(grid, MapPatch(10, 10, 3, 3, np.full(9, 100, dtype=np.int8)))
    base_labels, _sizes, region = block._label_base
    assert base_labels is grid.component_labels and region == (10, 13, 10, 13)
    assert block.component_count == 1
    assert block.component_sizes.tolist() == [CELLS - 9]
    assert (block.component_labels.reshape(SIDE, SIDE)[10:13, 10:13] == -1).all()


def test_a_pocket_patched_in_takes_a_new_label_and_a_vanished_one_leaves_its_label_unused():
    ring = np.full((5, 5), 100, dtype=np.int8)
    ring[1:4, 1:4] = 0  # a wall round a 3 x 3 pocket
    grid = open_grid()
    grid.component_labels  # noqa: B018
    pocket = patch_grid(grid, MapPatch(5, 5, 5, 5, ring.reshape(-1)))
    assert pocket.component_count == 2
    assert pocket.component_sizes.tolist() == [CELLS - 25, 9]
    filled = patch_grid(pocket, MapPatch(6, 6, 3, 3, np.full(9, 100, dtype=np.int8)))
    assert filled.component_count == 1
    assert filled.component_sizes.tolist() == [CELLS - 25, 0]
    assert_same_grid(filled, PlanningGrid(filled.map))


def test_patches_before_any_plan_are_relabelled_together_from_the_last_labels():
    grid = open_grid()
    grid.component_labels  # noqa: B018
    first = patch_grid(grid, MapPatch(2, 2, 2, 2, np.full(4, 100, dtype=np.int8)))
    second = patch_grid(first, MapPatch(8, 9, 3, 1, np.full(3, 100, dtype=np.int8)))
    assert second._label_base[2] == (2, 10, 2, 11)  # the union of both regions
    assert patch_labels(*second._label_base, second.free_mask.reshape(SIDE, SIDE)) is not None
    assert_same_grid(second, PlanningGrid(second.map))


def test_a_patch_that_joins_two_components_is_labelled_from_scratch():
    values = np.zeros((30, 30), dtype=np.int8)
    values[:, 15] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    assert grid.component_count == 2
    door = patch_grid(grid, MapPatch(15, 10, 1, 2, np.zeros(2, dtype=np.int8)))
    assert patch_labels(*door._label_base, door.free_mask.reshape(30, 30), reach=2) is None
    assert door.component_count == 1
    assert door.component_sizes.tolist() == [900 - 28]


def test_component_labels_are_made_on_first_use_from_each_grids_own_free_cells():
    values = np.zeros((10, 10), dtype=np.int8)
    values[:, 5] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    assert "components" not in grid.describe()  # not labelled by building or logging
    opened = patch_grid(grid, MapPatch(5, 3, 1, 1, np.array([0], dtype=np.int8)))
    expected_opened = np.zeros((10, 10), dtype=np.int32)
    expected_opened[:, 5] = -1
    expected_opened[3, 5] = 0
    np.testing.assert_array_equal(opened.component_labels.reshape(10, 10), expected_opened)
    expected = np.zeros((10, 10), dtype=np.int32)
    expected[:, 5] = -1
    expected[:, 6:] = 1
    np.testing.assert_array_equal(grid.component_labels.reshape(10, 10), expected)
    assert grid.component_sizes.tolist() == [50, 40]
    assert grid.describe().endswith("in 2 components")


@pytest.mark.parametrize(
    ("patch", "words"),
    [
        (MapPatch(8, 0, 3, 1, np.zeros(3, dtype=np.int8)), "outside the 10 x 6 map"),
        (MapPatch(0, 5, 1, 2, np.zeros(2, dtype=np.int8)), "outside the 10 x 6 map"),
        (MapPatch(-1, 0, 1, 1, np.zeros(1, dtype=np.int8)), "outside"),
        (MapPatch(0, 0, 2, 2, np.zeros(3, dtype=np.int8)), "has 3 values, expected"),
        (MapPatch(0, 0, 2, 1, np.zeros(2, dtype=np.int8), np.zeros(3, dtype=np.uint8)),
         "has 3 raw costs, expected width \\* height = 2 \\* 1 = 2"),
        (MapPatch(0, 0, 0, 2, np.zeros(0, dtype=np.int8)), "empty"),
    ],
)
def test_a_patch_that_does_not_fit_is_refused_with_the_reason(patch, words):
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((6, 10), dtype=np.int8)))
    with pytest.raises(PatchError, match=words):
        patch_grid(grid, patch)
