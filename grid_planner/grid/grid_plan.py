"""`GridPlan`: a path found on a planning grid, with the evidence of the search that found it
(what `plan` and `plan_world` return)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grid_planner.report import RunReport
from grid_planner.search.result import SearchResult

from .occupancy import index_points
from .smoothing import DEFAULT_SMOOTHING, polyline_length


@dataclass
class GridPlan:
    """A found path and the evidence of the search that found it.

    `indices` holds the flat cell indices from the start cell to the goal cell inclusive and
    `raw_poses` their world centres (n x 2); `poses` is the path to follow: the same points, or
    the smoothed ones (`smoothing`), about a cell apart. `goal_cell` is the cell actually
    reached, which differs from `requested_goal_cell` only when the goal tolerance moved it.
    `expanded` holds the flat indices of the cells the search expanded when the plan was made
    with `record_expanded`. `heuristic` names the heuristic an informed algorithm used (""
    otherwise). `result.cost` is the search's cost in cells (a straight step onto a free cell
    costs 1); `points` the path to follow in cell coordinates (cell (x, y)'s centre is the
    point (x, y)); `smoothing_time` the seconds smoothing took.
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
    raw_poses: np.ndarray
    points: np.ndarray
    expanded: np.ndarray | None = None
    heuristic: str = ""
    connectivity: int = 4
    smoothing: str = DEFAULT_SMOOTHING
    smoothing_time: float = 0.0

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
        """Length in metres of the path to follow (`poses`), measured on its points in cell
        coordinates: world coordinates far from the origin keep too few digits (at an origin
        of 1e16 m a 16 m path measured 18 m)."""
        return polyline_length(self.points) * self.resolution

    @property
    def raw_length_m(self) -> float:
        """Length in metres of the searched cell path (straight steps 1 cell, diagonal sqrt 2)."""
        return polyline_length(index_points(self.indices, self.map_width)) * self.resolution

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

    def report(self) -> RunReport:
        """The plan as a RunReport (cost in metres)."""
        return RunReport.of(
            self.result, status="SOLVED", algorithm=self.algorithm, heuristic=self.heuristic,
            backend=self.backend, cost=self.length_m,
        )

    def summary(self) -> dict:
        """The plan as plain JSON-ready data: the report, the cells and the poses."""
        return {
            **self.report().to_dict(),
            "length_m": self.length_m,
            "search_cost": self.result.cost,
            "connectivity": self.connectivity,
            "smoothing": self.smoothing,
            "start_cell": list(self.start_cell),
            "goal_cell": list(self.goal_cell),
            "requested_goal_cell": list(self.requested_goal_cell),
            "path": [list(cell) for cell in self.cells],
            "poses": self.poses.tolist(),
        }
