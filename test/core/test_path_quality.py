"""`path_quality`'s clearance: the exact distance to the nearest obstacle centre, checked
against a brute-force minimum over every obstacle, inside and outside the map."""

from __future__ import annotations

import math

import numpy as np
import pytest
from grid_fixtures import kernel
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid
from grid_planner.grid.path_quality import obstacle_clearances, path_quality

pytestmark = kernel


def brute_force(points: np.ndarray, obstacle: np.ndarray, width: int) -> np.ndarray:
    ys, xs = np.divmod(np.flatnonzero(obstacle), width)
    if xs.size == 0:
        return np.full(len(points), np.inf)
    dx = points[:, :1] - xs[None, :]
    dy = points[:, 1:] - ys[None, :]
    return np.sqrt(dx * dx + dy * dy).min(axis=1)


@given(
    st.integers(1, 12), st.integers(1, 12), st.floats(0.0, 0.6), st.integers(0, 2**32 - 1),
)
@settings(max_examples=200, deadline=None)
def test_clearance_is_the_distance_to_the_nearest_obstacle_centre(width, height, density, seed):
    rng = np.random.default_rng(seed)
    obstacle = rng.random(width * height) < density
    # Points in the map and up to three cells beyond its edges.
    points = rng.uniform((-3.0, -3.0), (width + 2.0, height + 2.0), size=(40, 2))
    found = obstacle_clearances(obstacle, width, height, points)  # tall maps: transposed
    np.testing.assert_allclose(found, brute_force(points, obstacle, width), rtol=0, atol=1e-12)


@pytest.mark.parametrize("shape", [(1, 2000), (2000, 1)])
def test_a_long_strip_without_obstacles_is_infinitely_clear(shape):
    # The ring search looked for an obstacle ring by ring out to the map's size at every one of
    # 8,000 sample points: `grid-planner plan` spent 43-52 s here after a 0.2 ms search.
    grid = PlanningGrid(OccupancyMap.from_rows(np.zeros(shape, dtype=np.int8)))
    end = (shape[1] - 1.0, shape[0] - 1.0)
    quality = path_quality(grid, np.array([(0.0, 0.0), end]))
    assert quality.min_clearance_m == quality.mean_clearance_m == math.inf
    assert quality.length_m == 1999 * grid.resolution


def test_a_tall_strip_is_searched_along_its_short_side():
    values = np.zeros((3000, 1), dtype=np.int8)
    values[0, 0] = 100  # one obstacle at the bottom
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))
    quality = path_quality(grid, np.array([(0.0, 2999.0), (0.0, 1000.0)]))
    assert quality.min_clearance_m == 1000 * grid.resolution
    assert quality.mean_clearance_m == pytest.approx(1999.5 * grid.resolution, rel=1e-12)


def test_one_far_wall_sets_the_clearance_of_a_path_across_an_open_room():
    values = np.zeros((600, 600), dtype=np.int8)
    values[:, 599] = 100  # a wall along the east edge
    grid = PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False, resolution=0.5))
    quality = path_quality(grid, np.array([(0.0, 300.0), (100.0, 300.0)]))
    assert quality.min_clearance_m == (599 - 100) * 0.5
    assert quality.mean_clearance_m == pytest.approx((599 - 50) * 0.5, rel=1e-12)
    assert quality.heading_change_deg == 0.0
