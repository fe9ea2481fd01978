"""Partial map updates: a patched grid equals the grid built from scratch on the patched map,
and a patch that does not fit is refused with the reason, the grid untouched."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import MapPatch, PatchError, patch_grid, patch_map
from grid_planner.grid.planning_grid import PlanningGrid

CELL_VALUES = (0, 0, 0, 0, 0, 0, 100, 100, -1, 30, 70, 99, 50)
ARRAYS = ("obstacle_mask", "lethal_mask", "inflated_mask", "blocked_mask", "free_mask",
          "clearance", "padded_clearance", "padded_free", "component_labels", "component_sizes")


@st.composite
def maps_and_patches(draw):
    width, height = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    values = np.array(draw(st.lists(st.sampled_from(CELL_VALUES), min_size=width * height,
                                    max_size=width * height)), dtype=np.int8)
    raw = None
    if draw(st.booleans()):  # a nav2_msgs/Costmap: exact raw costs beside the values
        raw = np.array(draw(st.lists(st.sampled_from((0, 0, 0, 10, 200, 252, 253, 254, 255)),
                                     min_size=width * height, max_size=width * height)),
                       dtype=np.uint8)
    occupancy = OccupancyMap(width=width, height=height, resolution=0.1, data=values,
                             raw_costs=raw)
    patches = []
    for _ in range(draw(st.integers(1, 3))):
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        w, h = draw(st.integers(1, width - x)), draw(st.integers(1, height - y))
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


def assert_same_grid(patched: PlanningGrid, scratch: PlanningGrid) -> None:
    np.testing.assert_array_equal(patched.map.data, scratch.map.data)
    for name in ARRAYS:
        np.testing.assert_array_equal(getattr(patched, name), getattr(scratch, name), name)
    if scratch.raw_costs is None:
        assert patched.raw_costs is None
    else:
        np.testing.assert_array_equal(patched.raw_costs, scratch.raw_costs)
    assert patched.least_raw_cost == scratch.least_raw_cost
    for cell in range(scratch.cell_count):
        for connectivity in (4, 8):
            assert patched.reachable_components(cell, connectivity) == \
                scratch.reachable_components(cell, connectivity)


@given(maps_and_patches(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_a_patched_grid_equals_the_grid_built_on_the_patched_map(case, labelled_first):
    occupancy, patches, grid_settings = case
    grid = PlanningGrid(occupancy, **grid_settings)
    patched_map = occupancy
    for patch in patches:
        if labelled_first:
            grid.component_labels  # noqa: B018 - kept or relabelled, never stale
        grid = patch_grid(grid, patch)
        patched_map = patch_map(patched_map, patch)
    assert_same_grid(grid, PlanningGrid(patched_map, **grid_settings))


def test_a_patch_leaves_the_grid_it_came_from_as_it_was():
    values = np.zeros((20, 30), dtype=np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values, resolution=0.05), robot_radius=0.1)
    before = {name: getattr(grid, name).copy() for name in ARRAYS}
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
        (MapPatch(0, 0, 0, 2, np.zeros(0, dtype=np.int8)), "empty"),
    ],
)
def test_a_patch_that_does_not_fit_is_refused_with_the_reason(patch, words):
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros((6, 10), dtype=np.int8)))
    with pytest.raises(PatchError, match=words):
        patch_grid(grid, patch)
