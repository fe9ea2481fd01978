"""The grid planners under test, behind one small interface.

Each planner turns a scenario into a query in `prepare` (the per-map work: the project's
PlanningGrid, the textbook's list of rows, scipy's sparse graph, ...; timed apart) and the query
returns `(path length in steps, nodes expanded or None, seconds of the search alone or None)`;
for the project these come from its RunReport, whose `planning_time` leaves out the API's
per-query work. Peers are
optional: a planner whose module is not importable is skipped with a note.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import textbook
from measure import module_missing
from scenarios import GridScenario, tutorial

Answer = tuple[int, int | None, float | None]
Query = Callable[[], Answer]

# networkx and python-pathfinding build a Python object per cell; past this they take minutes.
SMALL_MAP_CELLS = 512 * 512


@dataclass(frozen=True)
class GridPlanner:
    """A planner: its family ("astar" or "bfs"), where it comes from, and how to run it."""

    name: str
    family: str
    kind: str  # "project", "textbook" or "peer"
    module: str  # what must be importable
    prepare: Callable[[GridScenario], Query]
    max_cells: int | None = None
    compiled: bool = False  # has a JIT warm-up to exclude from the timings

    def missing(self) -> str | None:
        """Why this planner cannot run here (None when it can)."""
        return module_missing(self.module)

    def too_big(self, scenario: GridScenario) -> bool:
        """Whether the scenario exceeds this planner's size limit."""
        return self.max_cells is not None and scenario.cell_count > self.max_cells


# --- the project ------------------------------------------------------------------------------


def _project(algorithm: str) -> Callable[[GridScenario], Query]:
    def prepare(scenario: GridScenario) -> Query:
        from grid_planner.grid.occupancy import OccupancyMap
        from grid_planner.grid.planner import plan
        from grid_planner.grid.planning_grid import PlanningGrid

        values = np.where(scenario.blocked, 100, 0).astype(np.int8)
        occupancy = OccupancyMap(scenario.width, scenario.height, 0.05, values.reshape(-1))
        grid = PlanningGrid(occupancy)

        def query() -> Answer:
            report = plan(grid, scenario.start, scenario.goal, algorithm).report()
            return report.length, report.nodes_expanded, report.planning_time

        return query

    return prepare


def project_warm_up() -> float:
    """Compile (or load from numba's cache) the project's kernels; returns the seconds.

    It plans once per algorithm through `plan` on the tutorial grid, so the warm-up takes
    exactly the code path and argument types of the timed queries.
    """
    began = time.perf_counter()
    for algorithm in ("astar", "bfs"):
        _project(algorithm)(tutorial())()
    return time.perf_counter() - began


# --- the textbook -----------------------------------------------------------------------------


def _textbook(search: Callable) -> Callable[[GridScenario], Query]:
    def prepare(scenario: GridScenario) -> Query:
        rows = scenario.blocked.astype(np.uint8).tolist()  # rows[y][x], y = the row
        start = (scenario.start[1], scenario.start[0])
        goal = (scenario.goal[1], scenario.goal[0])

        def query() -> Answer:
            path, expanded = search(rows, start, goal)
            return len(path) - 1, expanded, None

        return query

    return prepare


# --- peers ------------------------------------------------------------------------------------


def _scipy_bfs(scenario: GridScenario) -> Query:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import breadth_first_order

    height, width = scenario.blocked.shape
    free = ~scenario.blocked
    index = np.arange(height * width, dtype=np.int64).reshape(height, width)
    east = free[:, :-1] & free[:, 1:]
    north = free[:-1, :] & free[1:, :]
    tails = np.concatenate((index[:, :-1][east], index[:-1, :][north]))
    heads = np.concatenate((index[:, 1:][east], index[1:, :][north]))
    both_ways = (np.concatenate((tails, heads)), np.concatenate((heads, tails)))
    weights = np.ones(both_ways[0].size, dtype=np.int8)
    graph = coo_matrix((weights, both_ways), shape=(height * width,) * 2).tocsr()
    start = scenario.start[1] * width + scenario.start[0]
    goal = scenario.goal[1] * width + scenario.goal[0]

    def query() -> Answer:
        order, predecessors = breadth_first_order(
            graph, start, directed=True, return_predecessors=True
        )
        if predecessors[goal] < 0:
            raise RuntimeError("scipy found no path")
        steps, cell = 0, goal
        while cell != start:
            cell = predecessors[cell]
            steps += 1
        return steps, int(order.size), None

    return query


def _pyastar2d(scenario: GridScenario) -> Query:
    import pyastar2d

    weights = np.where(scenario.blocked, np.inf, 1.0).astype(np.float32)
    start = (scenario.start[1], scenario.start[0])
    goal = (scenario.goal[1], scenario.goal[0])

    def query() -> Answer:
        path = pyastar2d.astar_path(weights, start, goal, allow_diagonal=False)
        return len(path) - 1, None, None

    return query


def _networkx_astar(scenario: GridScenario) -> Query:
    import networkx as nx

    height, width = scenario.blocked.shape
    graph = nx.grid_2d_graph(height, width)  # nodes are (row, col)
    graph.remove_nodes_from(map(tuple, np.argwhere(scenario.blocked).tolist()))
    start = (scenario.start[1], scenario.start[0])
    goal = (scenario.goal[1], scenario.goal[0])

    def query() -> Answer:
        path = nx.astar_path(graph, start, goal, heuristic=textbook.manhattan)
        return len(path) - 1, None, None

    return query


def _pathfinding_astar(scenario: GridScenario) -> Query:
    from pathfinding.core.diagonal_movement import DiagonalMovement
    from pathfinding.core.grid import Grid
    from pathfinding.finder.a_star import AStarFinder

    grid = Grid(matrix=(~scenario.blocked).astype(np.uint8).tolist())  # matrix[y][x], >0 free
    finder = AStarFinder(diagonal_movement=DiagonalMovement.never, time_limit=600)

    def query() -> Answer:
        grid.cleanup()
        path, runs = finder.find_path(grid.node(*scenario.start), grid.node(*scenario.goal), grid)
        return len(path) - 1, runs, None

    return query


PLANNERS: dict[str, GridPlanner] = {
    planner.name: planner
    for planner in (
        GridPlanner("project_astar", "astar", "project", "grid_planner.grid.planner",
                    _project("astar"), compiled=True),
        GridPlanner("project_bfs", "bfs", "project", "grid_planner.grid.planner",
                    _project("bfs"), compiled=True),
        GridPlanner("textbook_astar", "astar", "textbook", "textbook",
                    _textbook(textbook.grid_astar)),
        GridPlanner("textbook_bfs", "bfs", "textbook", "textbook", _textbook(textbook.grid_bfs)),
        GridPlanner("scipy_bfs", "bfs", "peer", "scipy", _scipy_bfs),
        GridPlanner("pyastar2d", "astar", "peer", "pyastar2d", _pyastar2d),
        GridPlanner("networkx_astar", "astar", "peer", "networkx", _networkx_astar,
                    max_cells=SMALL_MAP_CELLS),
        GridPlanner("pathfinding_astar", "astar", "peer", "pathfinding", _pathfinding_astar,
                    max_cells=SMALL_MAP_CELLS),
    )
}
