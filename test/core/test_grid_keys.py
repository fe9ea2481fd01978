"""The move rule's keys: their dtype by the band's depth, the clearance they stand for, and a
band deeper than bytes hold planned exactly as the reference plans it."""

from __future__ import annotations

import numpy as np
import pytest
from grid_fixtures import BACKENDS, build, kernel, needs_numba
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import search_grid
from grid_planner.grid.kernels import (
    FREE_CLEARANCE,
    LETHAL_CLEARANCE,
    LETHAL_KEY,
    decode_keys,
    encode_keys,
    free_key,
    key_dtype,
    pad_keys,
    padded_keys_of,
    run_search,
)

KERNELS = ("astar", "bfs", "dfs", "dijkstra")


@pytest.mark.parametrize(("deepest", "dtype"), [
    (0, np.uint8), (254, np.uint8), (255, np.uint16), (65534, np.uint16), (65535, np.uint32),
])
def test_keys_take_the_smallest_dtype_whose_free_key_lies_above_every_clearance(deepest, dtype):
    assert key_dtype(deepest) is dtype


def test_a_radius_beyond_every_key_names_the_parameters_and_the_limit():
    assert key_dtype(2**32 - 2) is np.uint32
    with pytest.raises(ValueError) as refused:
        key_dtype(2**32 - 1)
    assert str(refused.value) == (
        "robot_radius and inflation_radius reach 65,536 cells at this map's resolution; a grid "
        "holds clearances of at most 65,535 cells"
    )


@given(st.sampled_from((np.uint8, np.uint16, np.uint32)), st.data())
@settings(max_examples=60, deadline=None)
def test_keys_keep_the_order_of_the_clearances_and_decode_to_them(dtype, data):
    deepest = min(free_key(dtype) - 1, int(FREE_CLEARANCE) - 1)
    clearance = np.array(data.draw(st.lists(
        st.one_of(st.just(int(FREE_CLEARANCE)), st.just(int(LETHAL_CLEARANCE)),
                  st.integers(1, deepest)), min_size=1, max_size=40)), dtype=np.int32)
    keys = encode_keys(clearance, dtype)
    assert keys.dtype == dtype
    np.testing.assert_array_equal(decode_keys(keys), clearance)
    # The rule reads keys as it reads clearances: the same order between every two cells.
    np.testing.assert_array_equal(np.less.outer(keys, keys), np.less.outer(clearance, clearance))
    assert np.all((keys == LETHAL_KEY) == (clearance == LETHAL_CLEARANCE))
    assert np.all((keys == free_key(dtype)) == (clearance == FREE_CLEARANCE))


def test_an_inflated_cell_of_clearance_zero_is_refused():
    clearance = np.array([FREE_CLEARANCE, 0, LETHAL_CLEARANCE], dtype=np.int32)
    with pytest.raises(ValueError, match="an inflated cell's clearance must be at least 1, got 0"):
        padded_keys_of(clearance, 3, 1)


def deep_band_grid():
    """60 x 60 cells, an obstacle block of three cells, a robot 16 cells wide: a band down to
    256 cells^2, one more than byte keys hold. The start is beside the block, inside the band."""
    values = np.zeros((60, 60), dtype=np.int8)
    values[20, 20] = values[20, 21] = values[21, 20] = 100
    grid, rules = build(values, radius_cells=16.0)
    return grid, rules, 20 * 60 + 22, 59 * 60 + 59


def test_a_band_deeper_than_bytes_hold_takes_wider_keys_and_keeps_every_clearance():
    grid, rules, start, _goal = deep_band_grid()
    assert grid.padded_keys.dtype == np.uint16
    assert grid.free_key == 65535
    for y in range(rules.height):
        for x in range(rules.width):
            index = y * rules.width + x
            assert bool(grid.lethal_mask[index]) == rules.lethal[(x, y)]
            assert bool(grid.inflated_mask[index]) == rules.inflated[(x, y)]
            if rules.inflated[(x, y)]:
                assert int(grid.clearance[index]) == rules.distance2[(x, y)]
    assert grid.inflated_mask[start]
    assert int(grid.clearance.max(initial=0, where=grid.inflated_mask)) == 256


@kernel
@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("algorithm", KERNELS)
def test_a_deep_band_is_planned_as_the_reference_plans_it(algorithm, connectivity):
    grid, _rules, start, goal = deep_band_grid()
    found = [search_grid(grid, start, [goal], algorithm, backend=backend,
                         connectivity=connectivity) for backend in BACKENDS]
    assert found[0].result.solved
    for other in found[1:]:
        np.testing.assert_array_equal(other.path, found[0].path)
        assert other.result.nodes_expanded == found[0].result.nodes_expanded


@needs_numba
@kernel
@pytest.mark.parametrize("connectivity", [4, 8])
@pytest.mark.parametrize("algorithm", KERNELS)
def test_the_kernels_search_every_key_width_alike(algorithm, connectivity):
    grid, _rules, start, goal = deep_band_grid()
    inner = grid.padded_keys.reshape(62, 62)[1:-1, 1:-1].reshape(-1)
    outcomes = []
    for dtype in (np.uint16, np.uint32):
        keys = pad_keys(encode_keys(decode_keys(inner), dtype), 60, 60)
        with grid.buffers.lock:
            outcomes.append(run_search(algorithm, keys, 60, 60, grid.buffers, start,
                                       np.array([goal]), connectivity=connectivity))
    wide, wider = outcomes
    np.testing.assert_array_equal(wide.path, wider.path)
    assert (wide.nodes_expanded, wide.nodes_generated, wide.max_frontier) == (
        wider.nodes_expanded, wider.nodes_generated, wider.max_frontier)
