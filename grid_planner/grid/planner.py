"""The grid planning API used by the ROS node and the CLI: `plan` and `plan_world`.

A plan runs in four steps, each with its own failure:

1. the algorithm name is checked against the registry (InvalidPlanner), the start and goal
   must lie in the map (StartOutsideMap, GoalOutsideMap) and the start must not be lethal
   (StartOccupied);
2. the goal is resolved against the goal tolerance (`targets.choose_targets`): a blocked goal
   with tolerance 0 is GoalOccupied; with a tolerance the target becomes the nearest reachable
   free cell of the square window, and none is NoValidPathFound;
3. the search runs (`dispatch.search_grid`: compiled, or on the reference algorithms of
   `grid_planner.search`), 4- or 8-connected on the grid's cost model; a deadline gives
   PlannerTimedOut, a cancel PlannerCancelled, an exhausted node or depth budget
   NoValidPathFound;
4. the result becomes a `GridPlan`: cells from start to goal, world poses (smoothed when asked,
   `smoothing`), length in steps and metres, and the search's evidence (`result`, a
   SearchResult; `report()`, the RunReport).

>>> from grid_planner.grid import OccupancyMap, PlanningGrid, plan
>>> grid = PlanningGrid(OccupancyMap.from_rows([[0, 0, 0], [0, 100, 0], [0, 0, 0]]))
>>> found = plan(grid, (0, 0), (2, 2))
>>> found.length, found.cells[0], found.cells[-1]
(4, (0, 0), (2, 2))
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Sequence

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, warn_fallback_once
from grid_planner.report import HUGE, RunReport, decimal
from grid_planner.search._support import effective_depth_limit
from grid_planner.search.registry import GRID, domain_algorithms, offered
from grid_planner.search.result import Budget, LimitKind

from .cell_graph import check_connectivity
from .costs import DEFAULT_COST_TRAVEL_MULTIPLIER
from .dispatch import (
    DEFAULT_ALGORITHM,
    GRID_FALLBACK,
    GridSearch,
    algorithm_info,
    search_grid,
)
from .errors import (
    GoalOutsideMap,
    NoValidPathFound,
    PlannerCancelled,
    PlannerError,
    PlannerTimedOut,
    StartOccupied,
    StartOutsideMap,
)
from .grid_plan import GridPlan
from .occupancy import OccupancyMap
from .planning_grid import PlanningGrid
from .problem import GRID_HEURISTICS
from .smoothing import DEFAULT_SMOOTHING, SmootherParams, smooth_cells
from .targets import choose_targets, describe_cell, tolerance_window_cells, why_blocked

# Seconds a plan may search by default (planner_node's max_planning_time, the CLI's --timeout).
DEFAULT_PLAN_TIMEOUT = 5.0
# Paths longer than this are valid but heavy to publish and draw (a DFS on a big map easily
# gives millions of poses); the node warns when a plan exceeds it.
MAX_SANE_PATH_POSES = 100_000


def failure_report(error: PlannerError, algorithm: str, connectivity: int = 4) -> RunReport:
    """A refused or failed plan as a RunReport: the error's code name and message."""
    result = error.result
    return RunReport.of(
        result, status=error.code_name, algorithm=algorithm, message=str(error),
        heuristic=grid_heuristic(algorithm, connectivity) if result is not None else "",
        backend=error.backend,
    )


def grid_heuristic(algorithm: str, connectivity: int = 4) -> str:
    """The heuristic `algorithm` uses on the grid ("" for an uninformed or unknown one)."""
    info = offered(GRID, algorithm)
    return GRID_HEURISTICS[connectivity] if info is not None and info.informed else ""


def _raise_failure(
    grid: PlanningGrid,
    search: GridSearch,
    start: int,
    goal: int,
    budget: Budget | None,
    depth: int | None,
) -> None:
    result, name = search.result, search.result.algorithm
    route = f"from start {describe_cell(grid, start)} to goal {describe_cell(grid, goal)}"
    done = f"{result.nodes_expanded} nodes expanded"
    evidence = {"result": result, "backend": search.backend}
    if result.limit is LimitKind.DEADLINE:
        raise PlannerTimedOut(f"{name} hit the planning deadline {route} ({done})", **evidence)
    if result.limit is LimitKind.CANCELLED:
        raise PlannerCancelled(f"{name} was cancelled {route} ({done})", **evidence)
    if result.limit is LimitKind.MAX_NODES:
        cap = budget.max_nodes if budget is not None else None
        raise NoValidPathFound(
            f"{name} exhausted its budget of {cap} expanded nodes {route}", **evidence
        )
    if result.limit is LimitKind.MEMORY:
        cap = budget.max_held if budget is not None else None
        raise NoValidPathFound(
            f"{name} reached its memory budget of {cap} states held {route} ({done})",
            **evidence,
        )
    if result.limit is LimitKind.MAX_DEPTH:
        raise NoValidPathFound(
            f"{name} found no path within its depth limit of {depth} steps {route}", **evidence
        )
    raise NoValidPathFound(f"{name} found no path {route} ({done})", **evidence)


def _as_cell(cell: Sequence[int], role: str) -> tuple[int, int]:
    try:
        x, y = cell
    except (TypeError, ValueError):
        raise ValueError(f"{role} cell must be an (x, y) pair, got {cell!r}") from None
    if not all(_whole(value) for value in (x, y)):
        raise ValueError(f"{role} cell must hold integers, got {cell!r}")
    return int(x), int(y)


def _whole(value: object) -> bool:
    """Whether `value` is a whole number (not a bool, NaN or infinity)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        return False
    return math.isfinite(value) and int(value) == value


def plan(
    grid: PlanningGrid,
    start_cell: Sequence[int],
    goal_cell: Sequence[int],
    algorithm: str = DEFAULT_ALGORITHM,
    *,
    tolerance: float = 0.0,
    tolerance_cells: int | None = None,
    budget: Budget | None = None,
    depth_limit: int | None = None,
    record_expanded: bool = False,
    backend: str = "auto",
    connectivity: int = 4,
    cost_travel_multiplier: float = DEFAULT_COST_TRAVEL_MULTIPLIER,
    smoothing: str = DEFAULT_SMOOTHING,
    smoother: SmootherParams | None = None,
) -> GridPlan:
    """The path on `grid` from `start_cell` to `goal_cell` (both (x, y) cells).

    `tolerance` (metres) or `tolerance_cells` (overrides it) sets the goal tolerance window;
    `budget` bounds the search (deadline, cancel event, max_nodes; max_depth and `depth_limit`
    apply to dfs only); `record_expanded` fills `GridPlan.expanded` for visualisation;
    `backend` is "auto" (compiled when numba is available), "numba" or "reference".
    `connectivity` (4 or 8) and `cost_travel_multiplier` shape the search on the grid's cost
    model; `smoothing` ("none", "shortcut", "gradient") with `smoother` (the gradient
    smoother's settings) shapes the poses. Raises a PlannerError subclass on failure (see the
    module docstring), ValueError for a bad setting.
    """
    info = algorithm_info(algorithm)
    connectivity = check_connectivity(connectivity)
    smoother = SmootherParams() if smoother is None else smoother
    if not isinstance(smoother, SmootherParams):
        raise TypeError(f"smoother must be SmootherParams or None, got {smoother!r}")
    grid.step_costs(cost_travel_multiplier)  # refuses a bad multiplier before any search
    sx, sy = _as_cell(start_cell, "start")
    gx, gy = _as_cell(goal_cell, "goal")
    size = f"the {grid.width} x {grid.height} map"
    if not grid.contains_cell(sx, sy):
        raise StartOutsideMap(f"start cell ({sx}, {sy}) is outside {size}")
    if not grid.contains_cell(gx, gy):
        raise GoalOutsideMap(f"goal cell ({gx}, {gy}) is outside {size}")
    start = sy * grid.width + sx
    goal = gy * grid.width + gx
    if grid.index_is_lethal(start):
        raise StartOccupied(f"start {describe_cell(grid, start)} is {why_blocked(grid, start)}")
    if tolerance_cells is not None:
        if not math.isfinite(tolerance_cells) or int(tolerance_cells) != tolerance_cells \
                or tolerance_cells < 0:
            raise ValueError(f"tolerance_cells must be an integer >= 0, got {tolerance_cells}")
        window = int(tolerance_cells)
    else:
        window = tolerance_window_cells(float(tolerance), grid.resolution)
    targets = choose_targets(
        grid, start, goal, window, grid.reachable_components(start, connectivity)
    )
    found = search_grid(
        grid,
        start,
        targets,
        algorithm,
        budget=budget,
        depth_limit=depth_limit,
        record_expanded=record_expanded,
        backend=backend,
        connectivity=connectivity,
        cost_travel_multiplier=cost_travel_multiplier,
    )
    path = found.path
    if path is None:
        _raise_failure(grid, found, start, goal, budget, effective_depth_limit(depth_limit, budget))
    began = time.perf_counter()
    points = smooth_cells(grid, path, smoothing, smoother, cost_travel_multiplier,
                          *((None, None) if budget is None else (budget.deadline, budget.cancel)))
    smoothed_in = time.perf_counter() - began
    cancelled = budget is not None and budget.cancel is not None and budget.cancel.is_set()
    if smoothing == "gradient" and cancelled:  # the one smoother a cancel stops early
        raise PlannerCancelled(
            f"{algorithm} was cancelled while smoothing its path from start "
            f"{describe_cell(grid, start)} to goal {describe_cell(grid, goal)}",
            result=found.result, backend=found.backend,
        )
    # Smoothing "none" gives the cell centres themselves: one conversion serves both.
    raw_poses = grid.map.cells_to_world(points) if smoothing == "none" else (
        grid.map.indices_to_world(path)
    )
    return GridPlan(
        algorithm=algorithm,
        backend=found.backend,
        start_cell=grid.index_cell(start),
        goal_cell=grid.index_cell(int(path[-1])),
        requested_goal_cell=grid.index_cell(goal),
        indices=path,
        poses=raw_poses if smoothing == "none" else grid.map.cells_to_world(points),
        resolution=grid.resolution,
        map_width=grid.width,
        map_cell_count=grid.cell_count,
        result=found.result,
        expanded=found.expanded,
        heuristic=GRID_HEURISTICS[connectivity] if info.informed else "",
        raw_poses=raw_poses,
        points=points,
        connectivity=connectivity,
        smoothing=smoothing,
        smoothing_time=smoothed_in,
    )


def plan_world(
    grid: PlanningGrid,
    start_xy: Sequence[float],
    goal_xy: Sequence[float],
    algorithm: str = DEFAULT_ALGORITHM,
    **options: object,
) -> GridPlan:
    """`plan` between two world points (metres, the map frame); options as for `plan`.

    Points are mapped to cells by floor; a point outside the map raises StartOutsideMap or
    GoalOutsideMap naming its coordinates. Non-finite coordinates raise ValueError (the node
    reports those as INVALID_POSE before planning).
    """
    cells = []
    for role, point, error in (
        ("start", start_xy, StartOutsideMap),
        ("goal", goal_xy, GoalOutsideMap),
    ):
        try:
            if isinstance(point, str | bytes):
                raise TypeError
            wx, wy = (float(value) for value in point)
        except (TypeError, ValueError):
            raise ValueError(f"{role} must be a point (x, y) in metres, got {point!r}") from None
        if not (math.isfinite(wx) and math.isfinite(wy)):
            raise ValueError(f"{role} ({wx}, {wy}) is not a finite point")
        cx, cy = grid.world_to_cell(wx, wy)
        if not grid.contains_cell(cx, cy):
            # A cell index of HUGE or more (`world_to_cell` clamps far points) says nothing.
            cell = f"cell ({cx}, {cy}) of " if max(abs(cx), abs(cy)) < HUGE else ""
            raise error(
                f"{role} ({decimal(wx)}, {decimal(wy)}) m lies outside the map ({cell}a "
                f"{grid.width} x {grid.height} map at {grid.resolution:.7g} m with origin "
                f"({decimal(grid.map.origin_x)}, {decimal(grid.map.origin_y)}))"
            )
        cells.append((cx, cy))
    return plan(grid, cells[0], cells[1], algorithm, **options)  # type: ignore[arg-type]


def warm_up() -> float:
    """Compile (or load from numba's cache) every kernel; returns the seconds it took.

    Plans on a tiny map with an obstacle, an inflated band and a tolerance, through exactly the
    code path and argument types of real plans, so the first real plan pays no compile time:
    once per kernel family with each algorithm the registry runs on it (A* and Dijkstra pass
    different flags to one kernel), 4- and 8-connected, with and without a cost field, one
    target and several, and through both smoothers; and again on a band deeper than byte keys
    hold (`kernels.keys`: a robot wider than 15 cells takes 2-byte keys and a version of
    every kernel of its own). Without numba it only logs the fallback warning.
    """
    if not NUMBA_AVAILABLE:
        warn_fallback_once(GRID_FALLBACK)
        return 0.0
    began = time.perf_counter()
    values = [[0, 0, 0, 0, 0], [0, 100, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]
    deep = np.zeros((24, 24), dtype=np.int8)
    deep[1, 1] = 100
    # No deadline: compiling takes half a minute here and far longer on a slow computer, and a
    # warm-up cut short by its own clock would stop the node that runs it.
    budget = Budget(max_nodes=1000)
    for model in ("uniform", "inflation"):
        grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0, cost_model=model)
        # A 16-cell robot: the band reaches 256 cells^2, past byte keys.
        wide = PlanningGrid(OccupancyMap.from_rows(deep), robot_radius=16.0, cost_model=model,
                            inflation_radius=17.0)
        for name in domain_algorithms(GRID):
            if algorithm_info(name).kernel(GRID) is None:
                continue
            for connectivity in (4, 8):
                # One target with each smoother, then several (the inflated goal's nearest
                # free cells).
                for goal, window, smoothing in (
                    ((4, 3), 0, "shortcut"), ((4, 3), 0, "gradient"), ((1, 1), 1, "none")
                ):
                    plan(grid, (0, 0), goal, name, budget=budget, tolerance_cells=window,
                         connectivity=connectivity, smoothing=smoothing)
                # From inside the wide robot's band to a free corner.
                plan(wide, (2, 1), (23, 23), name, budget=budget, connectivity=connectivity)
    return time.perf_counter() - began
