"""`path_steps`: each step's direction and the path's cost, against a plain per-cell walk."""

from __future__ import annotations

import itertools
import math

import numpy as np
from grid_fixtures import kernel
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid.cell_graph import DIRECTIONS
from grid_planner.grid.costs import step_cost_tables
from grid_planner.grid.kernels.path_steps import path_steps


@st.composite
def walks(draw):
    """A map size, an 8-connected walk on it (map indices) and raw costs for its cells."""
    width = draw(st.integers(1, 6))
    height = draw(st.integers(1, 6))
    x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
    cells = [(x, y)]
    for _ in range(draw(st.integers(0, 30))):
        moves = [(dx, dy) for _, dx, dy in DIRECTIONS
                 if 0 <= x + dx < width and 0 <= y + dy < height]
        if not moves:
            break
        dx, dy = draw(st.sampled_from(moves))
        x, y = x + dx, y + dy
        cells.append((x, y))
    raw = np.array(draw(st.lists(st.integers(0, 252), min_size=width * height,
                                 max_size=width * height)), dtype=np.uint8)
    return width, cells, raw


@kernel
@given(walks(), st.sampled_from((0.0, 1.0, 3.0)), st.booleans())
@settings(max_examples=300, deadline=None)
def test_directions_and_cost_match_a_walk_cell_by_cell(walk, multiplier, has_raw):
    width, cells, raw = walk
    straight, diagonal = step_cost_tables("inflation", multiplier)
    path = np.array([y * width + x for x, y in cells], dtype=np.int64)
    directions, cost = path_steps(path, width, straight, diagonal, raw, has_raw)
    expected_directions = []
    expected_cost = 0.0
    for (x0, y0), (x1, y1) in itertools.pairwise(cells):
        direction = [(dx, dy) for _, dx, dy in DIRECTIONS].index((x1 - x0, y1 - y0))
        expected_directions.append(direction)
        level = raw[y1 * width + x1] if has_raw else 0
        expected_cost += (diagonal if direction >= 4 else straight)[level]
    assert directions.tolist() == expected_directions
    assert cost == expected_cost  # the same sums in the same order: equal to the bit


@kernel
def test_a_one_cell_path_has_no_steps_and_costs_nothing():
    straight, diagonal = step_cost_tables("uniform", 1.0)
    directions, cost = path_steps(np.array([5], dtype=np.int64), 3, straight, diagonal,
                                  np.zeros(1, dtype=np.uint8), False)
    assert directions.size == 0 and cost == 0.0


@kernel
def test_a_two_cell_wide_map_tells_east_from_northwest():
    # On a map 2 cells wide both steps change the index by +1.
    straight, diagonal = step_cost_tables("uniform", 1.0)
    no_raw = np.zeros(1, dtype=np.uint8)
    east, cost_east = path_steps(np.array([0, 1], dtype=np.int64), 2, straight, diagonal,
                                 no_raw, False)
    northwest, cost_nw = path_steps(np.array([1, 2], dtype=np.int64), 2, straight, diagonal,
                                    no_raw, False)
    assert DIRECTIONS[east[0]][0] == "east" and cost_east == 1.0
    assert DIRECTIONS[northwest[0]][0] == "northwest" and cost_nw == math.sqrt(2.0)
