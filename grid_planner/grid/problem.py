"""The grid as a `SearchProblem`, for the reference algorithms of `grid_planner.search`.

States are flat cell indices (ints); actions are the direction names of
`cell_graph.DIRECTIONS` ("east" (+x), "north" (+y), "west", "south", then with 8-connectivity
"northeast", "northwest", "southwest", "southeast"), tried in that order. The move rule is the
planning grid's (`PlanningGrid.steps`): never into a lethal cell, inside the inflated band only
towards more clearance, and no diagonal that cuts a corner. A step onto a cell costs what the
grid's cost model says (`costs.step_cost_tables`): 1 or sqrt 2 times the cell's cost factor.
The heuristic is the Manhattan distance to the nearest goal, octile with 8-connectivity, times
the least cost factor of any cell a step may enter (`PlanningGrid.least_step_factor`).

This is the readable reference that the compiled kernels are checked against; it creates a few
Python objects per expansion, so it is for tests, small maps and algorithms without a kernel.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .cell_graph import DIRECTIONS, check_connectivity
from .costs import DEFAULT_COST_TRAVEL_MULTIPLIER
from .kernels.layout import distance_estimate
from .planning_grid import PlanningGrid

# The heuristic the grid's informed searches use, by connectivity.
GRID_HEURISTICS = {4: "manhattan", 8: "octile"}


class GridProblem:
    """Find a path on `grid` from flat cell `start` to any of `goals` (a ReversibleProblem).

    With `record_expanded` every state whose successors (or predecessors) are asked for is
    appended to `expanded`, in order, so the planner can show what a reference search explored.
    `unit_cost` is true when every step costs 1 (4-connected with unit costs), which makes the
    breadth-first family's fewest-step paths least-cost ones.

    >>> from grid_planner.grid.occupancy import OccupancyMap
    >>> grid = PlanningGrid(OccupancyMap.from_rows([[0, 0], [0, 0]]))
    >>> [action for action, _, _ in GridProblem(grid, 0, [3]).successors(0)]
    ['east', 'north']
    >>> [action for action, _, _ in GridProblem(grid, 0, [3], connectivity=8).successors(0)]
    ['east', 'north', 'northeast']
    """

    def __init__(
        self,
        grid: PlanningGrid,
        start: int,
        goals: Sequence[int] | int,
        *,
        connectivity: int = 4,
        cost_travel_multiplier: float = DEFAULT_COST_TRAVEL_MULTIPLIER,
        record_expanded: bool = False,
    ) -> None:
        goal_list = [int(goals)] if isinstance(goals, int) else [int(g) for g in goals]
        if not goal_list:
            raise ValueError("a grid problem needs at least one goal cell")
        self.grid = grid
        self.connectivity = check_connectivity(connectivity)
        self._start = int(start)
        self._goals = goal_list
        self._goal_set = frozenset(goal_list)
        ys, xs = np.divmod(np.array(goal_list, dtype=np.int64), grid.width)
        self._goal_x, self._goal_y = xs, ys
        self._straight, self._diagonal = grid.step_costs(cost_travel_multiplier)
        self._scale = grid.least_step_factor(cost_travel_multiplier)
        self._raw = grid.raw_costs
        self.unit_cost = self.connectivity == 4 and bool(np.all(self._straight == 1.0))
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

    def step_cost(self, direction: int, cell: int) -> float:
        """The cost of a step in `direction` (index into DIRECTIONS) onto `cell`."""
        raw = 0 if self._raw is None else int(self._raw[cell])
        table = self._straight if direction < 4 else self._diagonal
        return float(table[raw])

    def successors(self, state: int) -> Iterable[tuple[str, int, float]]:
        """The allowed steps out of `state`, in DIRECTIONS order, with their costs."""
        if self.record_expanded:
            self.expanded.append(state)
        return [
            (DIRECTIONS[direction][0], other, self.step_cost(direction, other))
            for direction, other in self.grid.steps(state, self.connectivity)
        ]

    def predecessors(self, state: int) -> Iterable[tuple[str, int, float]]:
        """The `(forward_action, previous_cell, cost)` steps that lead into `state`."""
        if self.record_expanded:
            self.expanded.append(state)
        y, x = divmod(state, self.grid.width)
        steps = []
        for direction in range(self.connectivity):
            name, dx, dy = DIRECTIONS[direction]
            px, py = x - dx, y - dy
            if not self.grid.contains_cell(px, py):
                continue
            previous = py * self.grid.width + px
            if self.grid.step(previous, direction) == state:
                steps.append((name, previous, self.step_cost(direction, state)))
        return steps

    def heuristic(self, state: int) -> float:
        """The Manhattan (octile with 8-connectivity) distance to the nearest goal cell, times
        the least step cost factor."""
        y, x = divmod(state, self.grid.width)
        return float(
            distance_estimate(
                x, y, self._goal_x, self._goal_y, self.connectivity == 8, self._scale
            )
        )
