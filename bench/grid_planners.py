"""The grid planners under test, behind one small interface.

Each planner turns a scenario into a query in `prepare` (the per-map work: the project's
PlanningGrid, the textbook's list of rows, scipy's sparse graph, ...; timed apart) and the query
returns `(path length in steps, nodes expanded or None, seconds of the search alone or None)`;
for the project these come from its RunReport, whose `planning_time` leaves out the API's
per-query work. Peers are optional: a planner whose module is not importable is skipped with a
note. The C references (`c_reference`) report their own search time, without the process start
and the map loading their whole run includes.

Families: `astar` and `bfs` plan unit 4-connected steps (every optimal one must agree on the
length); `astar8_costs` plans 8-connected on an inflation cost field (COST_PROFILE), where the
project and pyastar2d solve different problems on the same weights: a diagonal step costs
sqrt 2 times the cell's weight for the project and the weight alone for pyastar2d, which also
lets a diagonal cut a blocked corner and uses the Chebyshev heuristic. `astar4_costs` plans
4-connected on the same field, where the two solve the same problem (a step costs the weight of
the cell it enters; Manhattan heuristics): the like-for-like comparison.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import c_reference
import textbook
from measure import module_missing
from scenarios import GridScenario, tutorial

Answer = tuple[int, int | None, float | None]
Query = Callable[[], Answer]

# networkx and python-pathfinding build a Python object per cell; past this they take minutes.
SMALL_MAP_CELLS = 512 * 512
RESOLUTION = 0.05
# The cost field of the astar8_costs family: Nav2's inflation with nav2_bringup's scaling.
COST_PROFILE = {"cost_model": "inflation", "inflation_radius": 0.55, "cost_scaling_factor": 3.0}
# Families whose optimal planners must agree on the path length.
UNIT_FAMILIES = ("astar", "bfs")


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
    check: Callable[[], str | None] | None = None  # replaces the module test when given

    def missing(self) -> str | None:
        """Why this planner cannot run here (None when it can)."""
        return self.check() if self.check is not None else module_missing(self.module)

    def too_big(self, scenario: GridScenario) -> bool:
        """Whether the scenario exceeds this planner's size limit."""
        return self.max_cells is not None and scenario.cell_count > self.max_cells


# --- the project ------------------------------------------------------------------------------


def project_grid(scenario: GridScenario, **settings: object):
    """The project's PlanningGrid of `scenario` (0.05 m cells) with grid `settings`."""
    from grid_planner.grid.occupancy import OccupancyMap
    from grid_planner.grid.planning_grid import PlanningGrid

    values = np.where(scenario.blocked, 100, 0).astype(np.int8)
    occupancy = OccupancyMap(scenario.width, scenario.height, RESOLUTION, values.reshape(-1))
    grid = PlanningGrid(occupancy, **settings)
    # The per-map arrays a grid makes on first use (component labels, derived masks) are
    # per-map work like the rest of the grid: made here, so a query's time and memory are its own.
    _ = (grid.component_labels, grid.lethal_mask, grid.blocked_mask)
    return grid


def _project(algorithm: str, connectivity: int = 4, **settings: object):
    def prepare(scenario: GridScenario) -> Query:
        from grid_planner.grid.planner import plan

        grid = project_grid(scenario, **settings)

        def query() -> Answer:
            found = plan(grid, scenario.start, scenario.goal, algorithm, connectivity=connectivity)
            report = found.report()
            return report.length, report.nodes_expanded, report.planning_time

        return query

    return prepare


def project_warm_up() -> float:
    """Compile (or load from numba's cache) the project's kernels; returns the seconds.

    The package's own warm-up (every kernel, the cost-field ones included), then one plan per
    algorithm through `plan` on the tutorial grid, so the warm-up takes exactly the code path
    and argument types of the timed queries.
    """
    from grid_planner.grid.planner import warm_up

    began = time.perf_counter()
    warm_up()  # every kernel the cost-field rows use too
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


def _pyastar2d_costs(connectivity: int) -> Callable[[GridScenario], Query]:
    """pyastar2d, 4- or 8-connected, on the weights of the project's cost field (1 + c / 252)."""

    def prepare(scenario: GridScenario) -> Query:
        import pyastar2d

        grid = project_grid(scenario, **COST_PROFILE)
        straight, _diagonal = grid.step_costs(1.0)
        weights = straight[grid.raw_costs].astype(np.float32)
        weights[grid.blocked_mask] = np.inf
        weights = weights.reshape(grid.height, grid.width)
        start = (scenario.start[1], scenario.start[0])
        goal = (scenario.goal[1], scenario.goal[0])

        def query() -> Answer:
            path = pyastar2d.astar_path(weights, start, goal,
                                        allow_diagonal=connectivity == 8)
            return len(path) - 1, None, None

        return query

    return prepare


def _c(algorithm: str) -> Callable[[GridScenario], Query]:
    def prepare(scenario: GridScenario) -> Query:
        map_path = c_reference.write_map(scenario, Path(tempfile.mkdtemp()) / "map.bin")
        return lambda: c_reference.run(algorithm, map_path)

    return prepare


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
        GridPlanner("c_bfs", "bfs", "c", "c_reference", _c("bfs"), check=c_reference.missing),
        GridPlanner("c_astar_two_stack", "astar", "c", "c_reference", _c("astar_two_stack"),
                    check=c_reference.missing),
        GridPlanner("c_astar_heap", "astar", "c", "c_reference", _c("astar_heap"),
                    check=c_reference.missing),
        GridPlanner("project_astar8_costs", "astar8_costs", "project", "grid_planner.grid.planner",
                    _project("astar", 8, **COST_PROFILE), compiled=True),
        GridPlanner("pyastar2d_8_costs", "astar8_costs", "peer", "pyastar2d",
                    _pyastar2d_costs(8)),
        GridPlanner("project_astar4_costs", "astar4_costs", "project", "grid_planner.grid.planner",
                    _project("astar", 4, **COST_PROFILE), compiled=True),
        GridPlanner("pyastar2d_4_costs", "astar4_costs", "peer", "pyastar2d",
                    _pyastar2d_costs(4)),
    )
}
