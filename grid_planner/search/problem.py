"""The contract between a search problem and the algorithms that solve it."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from typing import Protocol, TypeVar

State = TypeVar("State", bound=Hashable)


class SearchProblem(Protocol[State]):
    """What every algorithm in `grid_planner.search` needs to know about a problem.

    States must be hashable; cheap ones (ints for grid cells, bytes or tuples for boards) keep
    the algorithms fast. `successors` yields `(action, next_state, step_cost)`; actions are
    whatever the domain reports back to users (a move name, a cell index).
    """

    @property
    def start(self) -> State:
        """The initial state."""
        ...

    def is_goal(self, state: State) -> bool:
        """Whether `state` ends the search."""
        ...

    def successors(self, state: State) -> Iterable[tuple[object, State, float]]:
        """The `(action, next_state, step_cost)` triples reachable in one step."""
        ...

    def heuristic(self, state: State) -> float:
        """An admissible estimate of the cost from `state` to the nearest goal (0 if none)."""
        ...


class ReversibleProblem(SearchProblem[State], Protocol):
    """A problem with one explicit goal state whose steps can be walked backwards.

    Bidirectional search needs the goal as a state and the predecessors of a state;
    `predecessors` yields `(action, previous_state, step_cost)` where `action` is the forward
    action that leads from `previous_state` to `state`.
    """

    @property
    def goal(self) -> State:
        """The one goal state."""
        ...

    def predecessors(self, state: State) -> Iterable[tuple[object, State, float]]:
        """The `(forward_action, previous_state, step_cost)` triples that reach `state`."""
        ...


class IncrementalHeuristicProblem(SearchProblem[State], Protocol):
    """Optional extension: successors that come with their heuristic already computed.

    A problem whose heuristic changes by a cheap delta per step (Manhattan distance on sliding
    tiles moves one tile) offers `successors_with_heuristic`; A* and IDA* call it instead of
    `successors` + `heuristic` when it is present, so `h` costs O(1) per child instead of O(n).
    Its triples carry a fourth field, `heuristic(next_state)`.
    """

    def successors_with_heuristic(
        self, state: State, h: float
    ) -> Iterable[tuple[object, State, float, float]]:
        """`(action, next_state, step_cost, heuristic(next_state))`; `h` = heuristic(state)."""
        ...


def declares_unit_cost(problem: object) -> bool:
    """Whether `problem` declares (attribute `unit_cost = True`) that every step costs 1.

    The breadth-first family (BFS, bidirectional BFS, IDDFS) finds a path with the fewest
    steps; that is a least-cost path only when every step costs the same, so their results
    say `optimal=True` only for problems that declare it. Without the attribute a problem is
    assumed to have general costs.
    """
    return bool(getattr(problem, "unit_cost", False))
