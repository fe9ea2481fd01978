"""The grid planning API used by the ROS node and the CLI: `plan`, `plan_world`, `GridPlan`.

A plan runs in four steps, each with its own failure:

1. the algorithm name is checked (InvalidPlanner), the start and goal must lie in the map
   (StartOutsideMap, GoalOutsideMap) and the start must not be lethal (StartOccupied);
2. the goal is resolved against the goal tolerance (see `choose_targets`): a blocked goal with
   tolerance 0 is GoalOccupied; with a tolerance the target becomes the nearest reachable free
   cell of the square window, and none is NoValidPathFound. Reachability comes from the grid's
   precomputed free components, so an unreachable goal fails at once, without a search;
3. the search runs, compiled (`kernels`) or on the reference algorithms of `grid_planner.search`
   (no numba, or an algorithm without a kernel); a deadline gives PlannerTimedOut, a cancel
   PlannerCancelled, an exhausted node or depth budget NoValidPathFound;
4. the result becomes a `GridPlan`: cells from start to goal, world poses, length in steps and
   metres, and the search's evidence (`result`, a SearchResult).

>>> from grid_planner.grid import OccupancyMap, PlanningGrid, plan
>>> grid = PlanningGrid(OccupancyMap.from_rows([[0, 0, 0], [0, 100, 0], [0, 0, 0]]))
>>> found = plan(grid, (0, 0), (2, 2))
>>> found.length, found.cells[0], found.cells[-1]
(4, (0, 0), (2, 2))
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grid_planner import search
from grid_planner.search.result import Budget, LimitKind, SearchResult, SearchStatus

from .errors import (
    GoalOccupied,
    GoalOutsideMap,
    InvalidPlanner,
    NoValidPathFound,
    PlannerCancelled,
    PlannerTimedOut,
    StartOccupied,
    StartOutsideMap,
)
from .kernels import NUMBA_AVAILABLE, SearchBuffers, run_search, warn_fallback_once
from .occupancy import OccupancyMap
from .planning_grid import PlanningGrid
from .problem import GridProblem

DEFAULT_ALGORITHM = "astar"

# Paths longer than this are valid but heavy to publish and draw (a DFS on a big map easily
# gives millions of poses); the node warns when a plan exceeds it.
MAX_SANE_PATH_POSES = 100_000

# Slack when turning a tolerance in metres into whole cells (0.15 m at 0.05 m is 3 cells).
_TOLERANCE_SLACK = 1e-9

BACKENDS = ("auto", "numba", "reference")


@dataclass(frozen=True)
class AlgorithmInfo:
    """What the planner knows about one algorithm name."""

    name: str
    optimal: bool  # guarantees a shortest path
    compiled: bool  # has a numba kernel (else always the reference implementation)
    description: str


ALGORITHMS: dict[str, AlgorithmInfo] = {
    info.name: info
    for info in (
        AlgorithmInfo("astar", True, True, "A* with the Manhattan heuristic, ties toward larger g"),
        AlgorithmInfo("dijkstra", True, True, "Dijkstra (uniform-cost search, A* without h)"),
        AlgorithmInfo("bfs", True, True, "breadth-first search"),
        AlgorithmInfo(
            "dfs", False, True, "depth-first search: a valid path, usually far from the shortest"
        ),
        AlgorithmInfo(
            "bidirectional_bfs", True, False, "breadth-first from both ends (reference only)"
        ),
    )
}


def algorithm_info(algorithm: str) -> AlgorithmInfo:
    """The AlgorithmInfo of `algorithm`; raises InvalidPlanner for an unknown name."""
    info = ALGORITHMS.get(algorithm)
    if info is None:
        raise InvalidPlanner(
            f"unknown grid algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
        )
    return info


# --- the plan ---------------------------------------------------------------------------------


@dataclass
class GridPlan:
    """A found path and the evidence of the search that found it.

    `indices` holds the flat cell indices from the start cell to the goal cell inclusive;
    `poses` their world centres (n x 2). `goal_cell` is the cell actually reached, which differs
    from `requested_goal_cell` only when the goal tolerance moved it. `expanded` holds the flat
    indices of the cells the search expanded when the plan was made with `record_expanded`.
    """

    algorithm: str
    backend: str
    start_cell: tuple[int, int]
    goal_cell: tuple[int, int]
    requested_goal_cell: tuple[int, int]
    indices: np.ndarray
    poses: np.ndarray
    resolution: float
    map_width: int
    map_cell_count: int
    result: SearchResult
    expanded: np.ndarray | None = None

    @property
    def cells(self) -> list[tuple[int, int]]:
        """The path as (x, y) cells, start to goal."""
        ys, xs = np.divmod(self.indices, self.map_width)
        return list(zip(xs.tolist(), ys.tolist(), strict=True))

    @property
    def length(self) -> int:
        """Steps in the path (one fewer than cells)."""
        return int(self.indices.size) - 1

    @property
    def length_m(self) -> float:
        """Path length in metres (steps * resolution)."""
        return self.length * self.resolution

    @property
    def optimal(self) -> bool:
        """Whether the algorithm guarantees that no shorter path exists."""
        return self.result.optimal

    @property
    def goal_adjusted(self) -> bool:
        """Whether the goal tolerance moved the goal to another cell."""
        return self.goal_cell != self.requested_goal_cell

    @property
    def nodes_expanded(self) -> int:
        """Nodes the search expanded."""
        return self.result.nodes_expanded

    @property
    def nodes_generated(self) -> int:
        """Nodes the search put on its frontier."""
        return self.result.nodes_generated

    @property
    def max_frontier(self) -> int:
        """The largest frontier the search held."""
        return self.result.max_frontier

    @property
    def elapsed(self) -> float:
        """Seconds the search itself took."""
        return self.result.elapsed

    def expanded_mask(self) -> np.ndarray | None:
        """A flat bool mask of the expanded cells (None unless made with record_expanded)."""
        if self.expanded is None:
            return None
        mask = np.zeros(self.map_cell_count, dtype=np.bool_)
        mask[self.expanded] = True
        return mask

    def summary(self) -> dict:
        """The plan as plain JSON-ready data (the CLI's `--json` fields and a few more)."""
        return {
            "status": "solved",
            "algorithm": self.algorithm,
            "backend": self.backend,
            "optimal": self.optimal,
            "length": self.length,
            "length_m": self.length_m,
            "nodes_expanded": self.nodes_expanded,
            "nodes_generated": self.nodes_generated,
            "max_frontier": self.max_frontier,
            "planning_time": self.elapsed,
            "start_cell": list(self.start_cell),
            "goal_cell": list(self.goal_cell),
            "requested_goal_cell": list(self.requested_goal_cell),
            "path": [list(cell) for cell in self.cells],
            "poses": self.poses.tolist(),
        }


def _make_plan(
    grid: PlanningGrid,
    info: AlgorithmInfo,
    backend: str,
    start: int,
    requested_goal: int,
    path: np.ndarray,
    result: SearchResult,
    expanded: np.ndarray | None,
) -> GridPlan:
    return GridPlan(
        algorithm=info.name,
        backend=backend,
        start_cell=grid.index_cell(start),
        goal_cell=grid.index_cell(int(path[-1])),
        requested_goal_cell=grid.index_cell(requested_goal),
        indices=path,
        poses=grid.map.indices_to_world(path),
        resolution=grid.resolution,
        map_width=grid.width,
        map_cell_count=grid.cell_count,
        result=result,
        expanded=expanded,
    )


# --- goal tolerance ---------------------------------------------------------------------------


def tolerance_window_cells(tolerance: float, resolution: float) -> int:
    """The half-width in cells of the tolerance window: floor(tolerance / resolution)."""
    if not (math.isfinite(tolerance) and tolerance >= 0.0):
        raise ValueError(f"goal tolerance must be a finite number >= 0 m, got {tolerance}")
    return math.floor(tolerance / resolution + _TOLERANCE_SLACK)


def _describe_cell(grid: PlanningGrid, index: int) -> str:
    x, y = grid.index_cell(index)
    wx, wy = grid.cell_to_world(x, y)
    return f"cell ({x}, {y}) at ({wx:.3f}, {wy:.3f}) m"


def _why_blocked(grid: PlanningGrid, index: int) -> str:
    value = int(grid.map.data[index])
    if grid.lethal_mask[index]:
        kind = "unknown" if value < 0 else f"occupied (value {value})"
        return f"lethal: {kind}"
    return f"inflated: within robot_radius {grid.robot_radius} m of an obstacle"


def choose_targets(
    grid: PlanningGrid,
    start: int,
    goal: int,
    window: int,
    reachable: set[int] | None = None,
) -> np.ndarray:
    """The flat cells a search from `start` should aim for, given the goal tolerance window.

    With `window == 0`: the goal itself; a blocked goal raises GoalOccupied and an unreachable
    one NoValidPathFound. With `window > 0` (cells, GetPlan's square: |dx| and |dy| both <=
    window): the free cells of the window that `start` can reach and that lie nearest to the
    goal by Euclidean distance (the goal itself when it is free and reachable). Several cells at
    the same distance are all returned, in index order, so the search picks the one with the
    shortest path (the first found, for DFS). None in the window raises NoValidPathFound.
    """
    if reachable is None:
        reachable = grid.reachable_components(start)
    labels = grid.component_labels
    if window == 0:
        if grid.blocked_mask[goal]:
            raise GoalOccupied(
                f"goal {_describe_cell(grid, goal)} is blocked ({_why_blocked(grid, goal)}) "
                "and the goal tolerance is 0"
            )
        if int(labels[goal]) not in reachable:
            raise NoValidPathFound(
                f"no path from start {_describe_cell(grid, start)} to goal "
                f"{_describe_cell(grid, goal)}: the goal is not connected to the start"
            )
        return np.array([goal], dtype=np.int64)

    gx, gy = grid.index_cell(goal)
    x0, x1 = max(0, gx - window), min(grid.width - 1, gx + window)
    y0, y1 = max(0, gy - window), min(grid.height - 1, gy + window)
    window_labels = labels.reshape(grid.height, grid.width)[y0 : y1 + 1, x0 : x1 + 1]
    candidate = np.isin(window_labels, np.fromiter(reachable, dtype=np.int32, count=len(reachable)))
    candidate &= window_labels >= 0
    if not candidate.any():
        state = (
            f"blocked ({_why_blocked(grid, goal)})"
            if grid.blocked_mask[goal]
            else "not connected to the start"
        )
        raise NoValidPathFound(
            f"goal {_describe_cell(grid, goal)} is {state}, and no free cell that the start "
            f"{_describe_cell(grid, start)} can reach lies within the tolerance window of "
            f"{window} cells ({window * grid.resolution:.3f} m)"
        )
    dy = np.arange(y0, y1 + 1, dtype=np.int64)[:, None] - gy
    dx = np.arange(x0, x1 + 1, dtype=np.int64)[None, :] - gx
    distance2 = np.where(candidate, dx * dx + dy * dy, np.iinfo(np.int64).max)
    rows, cols = np.nonzero(distance2 == distance2.min())
    return ((rows + y0) * grid.width + (cols + x0)).astype(np.int64)


# --- searching --------------------------------------------------------------------------------


def _resolve_backend(info: AlgorithmInfo, backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if backend == "reference" or not info.compiled:
        return "reference"
    if not NUMBA_AVAILABLE:
        if backend == "numba":
            raise RuntimeError("the numba backend was requested but numba is not installed")
        warn_fallback_once()
        return "reference"
    return "numba"


def _effective_depth_limit(depth_limit: int | None, budget: Budget | None) -> int | None:
    limits = [d for d in (depth_limit, budget.max_depth if budget else None) if d is not None]
    if any(d < 0 for d in limits):
        raise ValueError(f"depth limit must be >= 0, got {min(limits)}")
    return min(limits) if limits else None


_DIRECTION_NAMES = np.array(["east", "north", "west", "south"], dtype=object)


def _actions(path: np.ndarray) -> list[str]:
    """The direction names of the steps of a flat index path (shared str objects: cheap)."""
    steps = np.diff(path)
    codes = np.where(steps == 1, 0, np.where(steps == -1, 2, np.where(steps > 0, 1, 3)))
    return _DIRECTION_NAMES[codes].tolist()


def search_grid(
    grid: PlanningGrid,
    start: int,
    targets: Sequence[int] | np.ndarray,
    algorithm: str = DEFAULT_ALGORITHM,
    *,
    budget: Budget | None = None,
    depth_limit: int | None = None,
    record_expanded: bool = False,
    backend: str = "auto",
) -> tuple[SearchResult, np.ndarray | None, np.ndarray | None, str]:
    """One search from flat cell `start` to the nearest of `targets`, with no pre-checks.

    Returns `(result, path, expanded, backend)`: `path` is the flat index array start->target
    when solved (else None), `expanded` the expanded cells when `record_expanded`. The caller
    makes sure `start` is not lethal. `plan` is the checked entry point; this one exists for
    benchmarks and for tests that compare the kernels with the reference algorithms.
    """
    info = algorithm_info(algorithm)
    used = _resolve_backend(info, backend)
    depth = _effective_depth_limit(depth_limit, budget) if info.name == "dfs" else None
    target_array = np.asarray(targets, dtype=np.int64).reshape(-1)
    if used == "numba":
        buffers: SearchBuffers = grid.buffers
        with buffers.lock:
            outcome = run_search(
                info.name,
                grid.padded_clearance,
                grid.width,
                grid.height,
                buffers,
                int(start),
                target_array,
                budget=budget,
                depth_limit=depth,
            )
            expanded = buffers.expanded_indices() if record_expanded else None
        status = {
            "solved": SearchStatus.SOLVED,
            "no_solution": SearchStatus.NO_SOLUTION,
            "limit": SearchStatus.LIMIT_REACHED,
        }[outcome.status]
        path = outcome.path
        result = SearchResult(
            algorithm=info.name,
            status=status,
            states=path.tolist() if path is not None else [],
            actions=_actions(path) if path is not None else [],
            cost=float(path.size - 1) if path is not None else 0.0,
            nodes_expanded=outcome.nodes_expanded,
            nodes_generated=outcome.nodes_generated,
            max_frontier=outcome.max_frontier,
            elapsed=outcome.elapsed,
            optimal=info.optimal and status is SearchStatus.SOLVED,
            limit=outcome.limit,
        )
        return result, path, expanded, used

    result, expanded_list = _reference_search(grid, info, int(start), target_array, budget, depth)
    path = np.asarray(result.states, dtype=np.int64) if result.solved else None
    expanded = np.asarray(expanded_list, dtype=np.int64) if record_expanded else None
    return result, path, expanded, used


def _reference_search(
    grid: PlanningGrid,
    info: AlgorithmInfo,
    start: int,
    targets: np.ndarray,
    budget: Budget | None,
    depth: int | None,
) -> tuple[SearchResult, list[int]]:
    goals = [int(t) for t in targets]
    if info.name != "bidirectional_bfs":
        problem = GridProblem(grid, start, goals, record_expanded=True)
        if info.name == "astar":
            result = search.astar(problem, budget=budget)
        elif info.name == "dijkstra":
            result = search.uniform_cost(problem, budget=budget)
        elif info.name == "bfs":
            result = search.bfs(problem, budget=budget)
        else:
            result = search.dfs(problem, budget=budget, depth_limit=depth)
        result.algorithm = info.name
        return result, problem.expanded

    # Bidirectional search needs one goal state: run it towards each equally near target and
    # keep the shortest path (ties: the first target in index order).
    best: SearchResult | None = None
    run: SearchResult | None = None
    expanded: list[int] = []
    totals = [0, 0, 0, 0.0]
    for goal in goals:
        problem = GridProblem(grid, start, [goal], record_expanded=True)
        run = search.bidirectional_bfs(problem, budget=budget)
        expanded.extend(problem.expanded)
        totals[0] += run.nodes_expanded
        totals[1] += run.nodes_generated
        totals[2] = max(totals[2], run.max_frontier)
        totals[3] += run.elapsed
        if run.status is SearchStatus.LIMIT_REACHED:
            best = run
            break
        if run.solved and (best is None or run.length < best.length):
            best = run
    if best is None:
        best = run
    assert best is not None  # goals is never empty
    best.algorithm = info.name
    best.nodes_expanded, best.nodes_generated = int(totals[0]), int(totals[1])
    best.max_frontier, best.elapsed = int(totals[2]), float(totals[3])
    return best, expanded


def _raise_failure(
    grid: PlanningGrid,
    info: AlgorithmInfo,
    result: SearchResult,
    start: int,
    goal: int,
    budget: Budget | None,
    depth: int | None,
) -> None:
    route = f"from start {_describe_cell(grid, start)} to goal {_describe_cell(grid, goal)}"
    done = f"{result.nodes_expanded} nodes expanded"
    if result.limit is LimitKind.DEADLINE:
        raise PlannerTimedOut(f"{info.name} hit the planning deadline {route} ({done})", result)
    if result.limit is LimitKind.CANCELLED:
        raise PlannerCancelled(f"{info.name} was cancelled {route} ({done})", result)
    if result.limit is LimitKind.MAX_NODES:
        cap = budget.max_nodes if budget is not None else None
        raise NoValidPathFound(
            f"{info.name} exhausted its budget of {cap} expanded nodes {route}", result
        )
    if result.limit is LimitKind.MAX_DEPTH:
        raise NoValidPathFound(
            f"{info.name} found no path within its depth limit of {depth} steps {route}", result
        )
    raise NoValidPathFound(f"{info.name} found no path {route} ({done})", result)


def _as_cell(cell: Sequence[int], role: str) -> tuple[int, int]:
    try:
        x, y = cell
    except (TypeError, ValueError):
        raise ValueError(f"{role} cell must be an (x, y) pair, got {cell!r}") from None
    if int(x) != x or int(y) != y:
        raise ValueError(f"{role} cell must hold integers, got {cell!r}")
    return int(x), int(y)


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
) -> GridPlan:
    """The path on `grid` from `start_cell` to `goal_cell` (both (x, y) cells).

    `tolerance` (metres) or `tolerance_cells` (overrides it) sets the goal tolerance window;
    `budget` bounds the search (deadline, cancel event, max_nodes; max_depth and `depth_limit`
    apply to dfs only); `record_expanded` fills `GridPlan.expanded` for visualisation;
    `backend` is "auto" (compiled when numba is available), "numba" or "reference".
    Raises a PlannerError subclass on failure (see the module docstring).
    """
    info = algorithm_info(algorithm)
    sx, sy = _as_cell(start_cell, "start")
    gx, gy = _as_cell(goal_cell, "goal")
    size = f"the {grid.width} x {grid.height} map"
    if not grid.contains_cell(sx, sy):
        raise StartOutsideMap(f"start cell ({sx}, {sy}) is outside {size}")
    if not grid.contains_cell(gx, gy):
        raise GoalOutsideMap(f"goal cell ({gx}, {gy}) is outside {size}")
    start = sy * grid.width + sx
    goal = gy * grid.width + gx
    if grid.lethal_mask[start]:
        raise StartOccupied(f"start {_describe_cell(grid, start)} is {_why_blocked(grid, start)}")
    if tolerance_cells is not None:
        if int(tolerance_cells) != tolerance_cells or tolerance_cells < 0:
            raise ValueError(f"tolerance_cells must be an integer >= 0, got {tolerance_cells}")
        window = int(tolerance_cells)
    else:
        window = tolerance_window_cells(float(tolerance), grid.resolution)
    targets = choose_targets(grid, start, goal, window)
    result, path, expanded, used = search_grid(
        grid,
        start,
        targets,
        info.name,
        budget=budget,
        depth_limit=depth_limit,
        record_expanded=record_expanded,
        backend=backend,
    )
    if path is None:
        depth = _effective_depth_limit(depth_limit, budget)
        _raise_failure(grid, info, result, start, goal, budget, depth)
    return _make_plan(grid, info, used, start, goal, path, result, expanded)


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
        wx, wy = float(point[0]), float(point[1])
        if not (math.isfinite(wx) and math.isfinite(wy)):
            raise ValueError(f"{role} ({wx}, {wy}) is not a finite point")
        cx, cy = grid.world_to_cell(wx, wy)
        if not grid.contains_cell(cx, cy):
            raise error(
                f"{role} ({wx:.3f}, {wy:.3f}) m lies outside the map (cell ({cx}, {cy}) of a "
                f"{grid.width} x {grid.height} map at {grid.resolution} m with origin "
                f"({grid.map.origin_x:.3f}, {grid.map.origin_y:.3f}))"
            )
        cells.append((cx, cy))
    return plan(grid, cells[0], cells[1], algorithm, **options)  # type: ignore[arg-type]


def warm_up() -> float:
    """Compile (or load from numba's cache) every kernel; returns the seconds it took.

    Plans on a tiny map with an obstacle, an inflated band and a tolerance, through exactly the
    code path and argument types of real plans, so the first real plan pays no compile time.
    Without numba it only logs the fallback warning.
    """
    if not NUMBA_AVAILABLE:
        warn_fallback_once()
        return 0.0
    began = time.perf_counter()
    values = [[0, 0, 0, 0], [0, 100, 0, 0], [0, 0, 0, 0], [0, 0, 0, 0]]
    grid = PlanningGrid(OccupancyMap.from_rows(values), robot_radius=1.0)
    budget = Budget(max_nodes=1000, deadline=time.monotonic() + 60.0)
    for info in ALGORITHMS.values():
        if info.compiled:
            plan(grid, (0, 0), (3, 3), info.name, budget=budget, tolerance_cells=1)
    return time.perf_counter() - began
