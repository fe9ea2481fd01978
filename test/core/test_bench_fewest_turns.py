"""bench/fewest_turns.py, the reference the path-quality report puts beside its heading goals:
the least turning of any 8-connected path, checked against a plain Dijkstra over (cell,
heading) states that charges each step its turn, and against the planner's own paths."""

from __future__ import annotations

import heapq
import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from grid_planner.grid import OccupancyMap, PlanningGrid, plan
from grid_planner.grid.errors import NoValidPathFound
from grid_planner.grid.path_quality import total_heading_change

_SOURCE = Path(__file__).resolve().parents[2] / "bench" / "fewest_turns.py"
# Under its own name, as the bench imports it: numba's cache finds the module by that name.
_SPEC = importlib.util.spec_from_file_location("fewest_turns", _SOURCE)
fewest_turns = sys.modules.setdefault("fewest_turns", importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(fewest_turns)

HEADINGS = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]


def reference_turns(free: np.ndarray, start: tuple[int, int], goal: tuple[int, int]):
    """Least total turning (degrees) over 8-connected paths without corner cutting, or None."""
    height, width = free.shape
    best = {(start, None): 0}
    queue = [(0, start, -1)]
    while queue:
        cost, (x, y), heading = heapq.heappop(queue)
        if (x, y) == goal:
            return 45.0 * cost
        if cost > best[((x, y), None if heading < 0 else heading)]:
            continue
        for index, (dx, dy) in enumerate(HEADINGS):
            nx, ny = x + dx, y + dy
            if not (0 <= nx < width and 0 <= ny < height and free[ny, nx]):
                continue
            if dx and dy and not (free[y, nx] and free[ny, x]):
                continue
            turn = 0 if heading < 0 else min((index - heading) % 8, (heading - index) % 8)
            if cost + turn < best.get(((nx, ny), index), math.inf):
                best[((nx, ny), index)] = cost + turn
                heapq.heappush(queue, (cost + turn, (nx, ny), index))
    return None


@given(st.integers(2, 9), st.integers(2, 9), st.floats(0.0, 0.45), st.integers(0, 2**32 - 1))
@settings(max_examples=300, deadline=None)
def test_fewest_turns_match_a_dijkstra_over_headings(width, height, density, seed):
    rng = np.random.default_rng(seed)
    free = rng.random((height, width)) >= density
    start = (int(rng.integers(width)), int(rng.integers(height)))
    goal = (int(rng.integers(width)), int(rng.integers(height)))
    free[start[1], start[0]] = free[goal[1], goal[0]] = True
    found = fewest_turns.fewest_turns_deg(free.reshape(-1), width, start, goal)
    assert found == reference_turns(free, start, goal)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_no_planned_8_connected_path_turns_less(seed):
    rng = np.random.default_rng(seed)
    rows = np.where(rng.random((12, 14)) < 0.3, 100, 0).astype(np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(rows, top_row_first=False))
    free = ~grid.blocked_mask
    cells = np.flatnonzero(free)
    start, goal = (grid.index_cell(int(cell)) for cell in rng.choice(cells, 2))
    least = fewest_turns.fewest_turns_deg(free, grid.width, start, goal)
    try:
        found = plan(grid, start, goal, "astar", connectivity=8)
    except NoValidPathFound:
        assert least is None
        return
    assert least is not None
    assert math.degrees(total_heading_change(found.points)) >= least - 1e-9


def test_known_routes():
    open_floor = np.ones(25, dtype=np.bool_)
    assert fewest_turns.fewest_turns_deg(open_floor, 5, (0, 0), (4, 4)) == 0.0
    assert fewest_turns.fewest_turns_deg(open_floor, 5, (0, 0), (4, 1)) == 45.0
    # A U: up the left column, across the top, down the right column.
    u_shape = np.zeros((3, 3), dtype=np.bool_)
    u_shape[:, 0] = u_shape[2, :] = u_shape[:, 2] = True
    assert fewest_turns.fewest_turns_deg(u_shape.reshape(-1), 3, (0, 0), (2, 0)) == 180.0
    walled = np.ones((3, 3), dtype=np.bool_)
    walled[:, 1] = False
    assert fewest_turns.fewest_turns_deg(walled.reshape(-1), 3, (0, 0), (2, 2)) is None
