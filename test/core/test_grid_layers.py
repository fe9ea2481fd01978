"""The compiled cost layers and component labels against their NumPy versions: same arrays."""

from __future__ import annotations

import math

import numpy as np
from grid_fixtures import kernel
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid.components import label_components, label_components_numpy
from grid_planner.grid.costs import (
    costmap_raw,
    obstacle_distance2,
    obstacle_distance2_numpy,
    radius_limit_cells2,
)
from grid_planner.grid.layers import cell_arrays, cell_arrays_numpy, inflation_table, keys_dtype

CELL_VALUES = (0, 0, 0, 0, 100, 100, -1, 30, 70, 99)


@st.composite
def value_grids(draw):
    width, height = draw(st.integers(1, 14)), draw(st.integers(1, 14))
    values = draw(st.lists(st.sampled_from(CELL_VALUES), min_size=width * height,
                           max_size=width * height))
    return np.array(values, dtype=np.int8), width, height


@kernel
@given(value_grids(), st.integers(0, 6))
@settings(max_examples=60, deadline=None)
def test_compiled_distance_matches_numpy(case, max_offset):
    values, width, height = case
    obstacles = (values >= 65).reshape(height, width)
    np.testing.assert_array_equal(
        obstacle_distance2(obstacles, max_offset), obstacle_distance2_numpy(obstacles, max_offset)
    )


@kernel
@given(value_grids(), st.sampled_from(("uniform", "inflation", "costmap")), st.booleans(),
       st.sampled_from((0.0, 1.0, 1.5, 2.0)), st.integers(0, 4), st.booleans())
@settings(max_examples=100, deadline=None)
def test_compiled_cell_arrays_match_numpy(case, model, allow_unknown, radius, extra_scan, wide):
    values, width, height = case
    limit = radius_limit_cells2(radius, 1.0)
    # The scan reaches at least the radius (as cost_layers makes it); 0 takes the pass without
    # distances.
    scan = math.isqrt(math.floor(limit)) + extra_scan
    if model == "costmap":
        raw = costmap_raw(values)
        obstacle, unknown, inscribed = raw == 254, raw == 255, raw == 253
    else:
        obstacle = (values >= 65) | (values < -1)
        unknown, inscribed = values == -1, np.zeros(0, dtype=np.bool_)
    table = (inflation_table(scan, 1.0, radius, 2.5, 1.0) if model == "inflation"
             else np.zeros(0, dtype=np.uint8))
    # Keys wider than the settings need (those of a deeper band) hold the same clearances.
    dtype = np.uint32 if wide else keys_dtype(model, scan, limit)
    arguments = (obstacle, unknown, inscribed, scan, limit, allow_unknown, table, dtype, width,
                 height)
    for compiled, reference in zip(cell_arrays(*arguments), cell_arrays_numpy(*arguments),
                                   strict=True):
        np.testing.assert_array_equal(compiled, reference)


@kernel
@given(st.integers(1, 40), st.integers(1, 40), st.sampled_from((0.2, 0.4, 0.5, 0.6)),
       st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_compiled_component_labels_match_numpy(width, height, density, seed):
    free = np.random.default_rng(seed).random((height, width)) >= density
    compiled, reference = label_components(free), label_components_numpy(free)
    np.testing.assert_array_equal(compiled[0], reference[0])
    np.testing.assert_array_equal(compiled[1], reference[1])
