"""The grid as a `SearchProblem`, for the reference algorithms of `grid_planner.search`.

States are flat cell indices (ints); actions are the direction names "east" (+x), "north"
(+y), "west" (-x) and "south" (-y), tried in that order; every step costs 1. The move rule is the
planning grid's (`PlanningGrid.can_step`): never into a lethal cell, and inside the inflated band
only towards more clearance. The heuristic is the Manhattan distance to the nearest goal.

This is the readable reference that the compiled kernels are checked against; it creates a few
Python objects per expansion, so it is for tests, small maps and algorithms without a kernel.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from .kernels import FREE_CLEARANCE, LETHAL_CLEARANCE
from .planning_grid import DIRECTIONS, PlanningGrid

# The grid's one heuristic, here and in the compiled A* (`kernels.best_first`).
HEURISTIC = "manhattan"


class GridProblem:
    """Find a path on `grid` from flat cell `start` to any of `goals` (a ReversibleProblem).

    With `record_expanded` every state whose successors (or predecessors) are asked for is
    appended to `expanded`, in order, so the planner can show what a reference search explored.

    >>> from grid_planner.grid.occupancy import OccupancyMap
    >>> grid = PlanningGrid(OccupancyMap.from_rows([[0, 0], [0, 0]]))
    >>> [action for action, _, _ in GridProblem(grid, 0, [3]).successors(0)]
    ['east', 'north']
    """

    # Every step costs 1, so breadth-first results are least-cost (see declares_unit_cost).
    unit_cost = True

    def __init__(
        self,
        grid: PlanningGrid,
        start: int,
        goals: Sequence[int] | int,
        *,
        record_expanded: bool = False,
    ) -> None:
        goal_list = [int(goals)] if isinstance(goals, int) else [int(g) for g in goals]
        if not goal_list:
            raise ValueError("a grid problem needs at least one goal cell")
        self.grid = grid
        self._start = int(start)
        self._goals = goal_list
        self._goal_set = frozenset(goal_list)
        self._goal_cells = [divmod(g, grid.width)[::-1] for g in goal_list]
        self._width = grid.width
        self._height = grid.height
        self._clearance = grid.clearance
        self.record_expanded = record_expanded
        self.expanded: list[int] = []

    @property
    def start(self) -> int:
        """The start cell's flat index."""
        return self._start

    @property
    def goal(self) -> int:
        """The first goal cell (the one goal of a single-goal problem)."""
        return self._goals[0]

    @property
    def goals(self) -> list[int]:
        """All goal cells, in the order given."""
        return list(self._goals)

    def is_goal(self, state: int) -> bool:
        """Whether `state` is one of the goal cells."""
        return state in self._goal_set

    def _neighbours(self, state: int) -> Iterator[tuple[str, int]]:
        y, x = divmod(state, self._width)
        for name, dx, dy in DIRECTIONS:
            nx, ny = x + dx, y + dy
            if 0 <= nx < self._width and 0 <= ny < self._height:
                yield name, ny * self._width + nx

    def successors(self, state: int) -> Iterable[tuple[str, int, float]]:
        """The allowed unit steps out of `state`, in the order east, north, west, south."""
        if self.record_expanded:
            self.expanded.append(state)
        own = self._clearance.item(state)
        steps = []
        for name, other in self._neighbours(state):
            key = self._clearance.item(other)
            if key == FREE_CLEARANCE or key > own:
                steps.append((name, other, 1.0))
        return steps

    def predecessors(self, state: int) -> Iterable[tuple[str, int, float]]:
        """The `(forward_action, previous_cell, 1.0)` steps that lead into `state`."""
        if self.record_expanded:
            self.expanded.append(state)
        key = self._clearance.item(state)
        steps = []
        for name, other in self._neighbours(state):
            own = self._clearance.item(other)
            if own != LETHAL_CLEARANCE and (key == FREE_CLEARANCE or key > own):
                steps.append((_OPPOSITE[name], other, 1.0))
        return steps

    def heuristic(self, state: int) -> float:
        """The Manhattan distance from `state` to the nearest goal cell."""
        y, x = divmod(state, self._width)
        return float(min(abs(x - gx) + abs(y - gy) for gx, gy in self._goal_cells))


_OPPOSITE = {"east": "west", "west": "east", "north": "south", "south": "north"}
