"""Helpers for the grid tests: independent brute-force rules, a reference BFS, path checks.

Everything here re-derives the planner's definitions from the SPEC text on plain Python lists,
without the production arrays, so the tests compare two independent implementations.
"""

from __future__ import annotations

import heapq
import itertools
import math
import os
from collections import deque

import numpy as np
import pytest
from hypothesis import strategies as st

from grid_planner.grid import NUMBA_AVAILABLE, OccupancyMap, PlanningGrid
from grid_planner.search.registry import GRID, domain_algorithms

# Without numba the compiled backend is absent: its tests skip and loops use the reference only.
needs_numba = pytest.mark.skipif(not NUMBA_AVAILABLE, reason="numba is not installed")
# With NUMBA_DISABLE_JIT=1 the kernels run as plain Python: tests of compilation itself skip.
JIT_DISABLED = os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0")
needs_compilation = pytest.mark.skipif(
    not NUMBA_AVAILABLE or JIT_DISABLED, reason="needs numba to compile (not NUMBA_DISABLE_JIT)"
)
# Tests of the compiled kernels that `make test` runs again with NUMBA_DISABLE_JIT=1.
kernel = pytest.mark.kernel
BACKENDS = ("numba", "reference") if NUMBA_AVAILABLE else ("reference",)
BACKEND_PARAMS = (pytest.param("numba", marks=needs_numba), "reference")
# The algorithms the registry offers on the grid, in their order.
GRID_ALGORITHMS = domain_algorithms(GRID)

TUTORIAL_TEXT = """\
0 0 0 0 0 0 0 1 0 0
0 1 1 1 0 0 0 1 0 0
0 0 0 1 0 1 0 0 0 0
0 1 0 0 0 1 0 1 1 0
0 1 0 1 0 0 0 0 1 0
0 0 0 1 0 1 1 0 0 0
1 1 0 0 0 0 0 1 0 0
0 0 0 1 1 0 0 0 0 0"""


def tutorial_values() -> np.ndarray:
    """The tutorial grid as occupancy values (0 / 100), top printed row first."""
    rows = [[int(v) * 100 for v in line.split()] for line in TUTORIAL_TEXT.splitlines()]
    return np.array(rows, dtype=np.int8)


def tutorial_map() -> OccupancyMap:
    """The tutorial grid as a map with 1 m cells at the origin."""
    return OccupancyMap.from_rows(tutorial_values(), resolution=1.0)


class BruteForceRules:
    """The SPEC's lethal / inflated / move rules, computed cell by cell from the values."""

    def __init__(
        self,
        values_bottom_first: np.ndarray,
        threshold: int = 65,
        allow_unknown: bool = False,
        radius_cells: float = 0.0,
    ) -> None:
        self.height, self.width = values_bottom_first.shape
        values = values_bottom_first.tolist()
        self.values = values
        obstacles = [
            (x, y)
            for y in range(self.height)
            for x in range(self.width)
            if values[y][x] >= threshold or values[y][x] < -1
        ]
        limit = radius_cells * radius_cells + 1e-6 if radius_cells > 0 else -1.0
        self.lethal = {}
        self.inflated = {}
        self.distance2 = {}
        for y in range(self.height):
            for x in range(self.width):
                value = values[y][x]
                # A value below -1 (no occupancy at all) is an obstacle, as Nav2 reads it.
                lethal = value >= threshold or value < -1 or (value == -1 and not allow_unknown)
                best = min(((x - ox) ** 2 + (y - oy) ** 2 for ox, oy in obstacles), default=None)
                self.lethal[(x, y)] = lethal
                self.distance2[(x, y)] = best
                self.inflated[(x, y)] = (not lethal) and best is not None and best <= limit

    def blocked(self, cell: tuple[int, int]) -> bool:
        return self.lethal[cell] or self.inflated[cell]

    def can_step(self, a: tuple[int, int], b: tuple[int, int]) -> bool:
        """Never into lethal; into a free cell always; into inflated only from an inflated cell
        with strictly less clearance."""
        if self.lethal[a] or self.lethal[b]:
            return False
        if not self.inflated[b]:
            return True
        return self.inflated[a] and self.distance2[b] > self.distance2[a]

    def neighbours(self, cell: tuple[int, int]):
        x, y = cell
        for nx, ny in ((x + 1, y), (x, y + 1), (x - 1, y), (x, y - 1)):
            if 0 <= nx < self.width and 0 <= ny < self.height:
                yield (nx, ny)

    def moves(self, cell: tuple[int, int], connectivity: int = 4):
        """(neighbour, length) of every allowed step; a diagonal needs both straight steps it
        passes between allowed too (no corner cutting)."""
        x, y = cell
        for nx, ny in self.neighbours(cell):
            if self.can_step(cell, (nx, ny)):
                yield (nx, ny), 1.0
        if connectivity == 8:
            for dx, dy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
                other, sides = (x + dx, y + dy), ((x + dx, y), (x, y + dy))
                inside = all(0 <= a < self.width and 0 <= b < self.height
                             for a, b in (other, *sides))
                if inside and all(self.can_step(cell, c) for c in (other, *sides)):
                    yield other, math.sqrt(2.0)

    def dijkstra(self, start, connectivity=4, raw=None, multiplier=0.0):
        """Least cost from `start` to every reachable cell: a step of length L onto a cell of
        raw cost c costs L * (1 + multiplier * c / 252) (`raw` None: every c is 0)."""
        if self.lethal[start]:
            return {}
        best = {start: 0.0}
        queue = [(0.0, start)]
        while queue:
            cost, cell = heapq.heappop(queue)
            if cost > best[cell]:
                continue
            for other, length in self.moves(cell, connectivity):
                c = 0 if raw is None else raw[other]
                total = cost + length * (1.0 + multiplier * c / 252.0)
                if total < best.get(other, math.inf) - 1e-12:
                    best[other] = total
                    heapq.heappush(queue, (total, other))
        return best

    def inflation_raw(self, resolution, robot_radius, inflation_radius, scaling):
        """Nav2's inflation costs, cell by cell: 254 obstacle, 253 within robot_radius, then
        int(252 exp(-scaling (d - robot_radius))) up to inflation_radius, unknown 255 unless
        253 or more reaches it."""
        raw = {}
        for cell in self.lethal:
            value = self.values[cell[1]][cell[0]]
            d2 = self.distance2[cell]
            d = math.inf if d2 is None else math.sqrt(d2) * resolution
            if d == 0.0:
                cost = 254
            elif d * d <= robot_radius * robot_radius + 1e-6 * resolution ** 2:
                cost = 253
            elif d * d <= inflation_radius * inflation_radius + 1e-6 * resolution ** 2:
                cost = int(252 * math.exp(-scaling * (d - robot_radius)))
            else:
                cost = 0
            if value == -1 and cost < 253:
                cost = 255
            raw[cell] = cost
        return raw

    def bfs_distances(self, start: tuple[int, int]) -> dict[tuple[int, int], int]:
        """Steps from `start` to every cell it can reach (empty when the start is lethal)."""
        if self.lethal[start]:
            return {}
        dist = {start: 0}
        queue = deque([start])
        while queue:
            cell = queue.popleft()
            for other in self.neighbours(cell):
                if other not in dist and self.can_step(cell, other):
                    dist[other] = dist[cell] + 1
                    queue.append(other)
        return dist


def assert_valid_path(rules: BruteForceRules, cells, start, goal, connectivity=4) -> None:
    """The path runs from start to goal in allowed steps (4- or 8-connected)."""
    assert cells[0] == tuple(start)
    assert cells[-1] == tuple(goal)
    for a, b in itertools.pairwise(cells):
        assert b in dict(rules.moves(a, connectivity)), (a, b)


VALUE_CHOICES = (0, 0, 0, 0, 0, 100, 100, -1, 30, 70, -2, 120)


@st.composite
def random_grids(draw, max_side: int = 12):
    """(values bottom row first, threshold, allow_unknown, radius_cells, start, goal)."""
    width = draw(st.integers(1, max_side))
    height = draw(st.integers(1, max_side))
    flat = draw(
        st.lists(st.sampled_from(VALUE_CHOICES), min_size=width * height, max_size=width * height)
    )
    values = np.array(flat, dtype=np.int8).reshape(height, width)
    threshold = draw(st.sampled_from((65, 65, 25, 100)))
    allow_unknown = draw(st.booleans())
    radius_cells = draw(st.sampled_from((0.0, 0.0, 0.7, 1.0, 1.5, math.sqrt(2), 2.0)))
    start = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    goal = (draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1)))
    return values, threshold, allow_unknown, radius_cells, start, goal


def build(values, threshold=65, allow_unknown=False, radius_cells=0.0, resolution=1.0):
    """A PlanningGrid and the brute-force rules for values given bottom row first."""
    occupancy = OccupancyMap.from_rows(values, resolution=resolution, top_row_first=False)
    grid = PlanningGrid(
        occupancy,
        occupied_threshold=threshold,
        allow_unknown=allow_unknown,
        robot_radius=radius_cells * resolution,
    )
    return grid, BruteForceRules(values, threshold, allow_unknown, radius_cells)


def open_grid(width: int, height: int, **kwargs) -> PlanningGrid:
    """A `width` x `height` grid with no obstacle, built with `kwargs` (PlanningGrid's)."""
    return PlanningGrid(OccupancyMap.from_rows(np.zeros((height, width), dtype=np.int8)), **kwargs)
