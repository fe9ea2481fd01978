"""Budgets: node limits, deadlines and cancellation end every search with the right LimitKind."""

from __future__ import annotations

import threading
import time

import pytest

import grid_planner.search.result as result_module
from grid_planner.search import (
    CLOCK_CHECK_INTERVAL,
    Budget,
    LimitKind,
    SearchProgress,
    SearchStatus,
    astar,
    bfs,
    bidirectional_bfs,
    dfs,
    idastar,
    iddfs,
    uniform_cost,
)

ALL = [bfs, dfs, iddfs, bidirectional_bfs, astar, idastar, uniform_cost]


class OpenPlane:
    """4-connected integer lattice points packed as ints; the goal is far beyond any budget.

    `on_expand` is called with the number of expansions so far (to cancel mid-search).
    """

    unit_cost = True
    SIDE = 1 << 20

    def __init__(self, goal=(10_000, 10_000), on_expand=None):
        self.start_point = (0, 0)
        self.goal_point = goal
        self.expansions = 0
        self.on_expand = on_expand

    def pack(self, x, y):
        return (y + self.SIDE // 2) * self.SIDE + (x + self.SIDE // 2)

    def unpack(self, state):
        y, x = divmod(state, self.SIDE)
        return x - self.SIDE // 2, y - self.SIDE // 2

    @property
    def start(self):
        return self.pack(*self.start_point)

    @property
    def goal(self):
        return self.pack(*self.goal_point)

    def is_goal(self, state):
        return state == self.goal

    def successors(self, state):
        self.expansions += 1
        if self.on_expand is not None:
            self.on_expand(self.expansions)
        x, y = self.unpack(state)
        return [(d, self.pack(x + dx, y + dy), 1)
                for d, dx, dy in (("E", 1, 0), ("N", 0, 1), ("W", -1, 0), ("S", 0, -1))]

    predecessors = successors

    def heuristic(self, state):
        x, y = self.unpack(state)
        gx, gy = self.goal_point
        return abs(gx - x) + abs(gy - y)


@pytest.mark.parametrize("algorithm", ALL)
@pytest.mark.parametrize("max_nodes", [0, 1, 300])
def test_max_nodes_stops_after_exactly_that_many_expansions(algorithm, max_nodes):
    result = algorithm(OpenPlane(), Budget(max_nodes=max_nodes))
    assert result.status is SearchStatus.LIMIT_REACHED
    assert result.limit is LimitKind.MAX_NODES
    assert result.nodes_expanded == max_nodes
    assert (result.states, result.actions, result.optimal) == ([], [], False)


@pytest.mark.parametrize("algorithm", ALL)
def test_cancel_already_set_stops_before_the_first_expansion(algorithm):
    cancel = threading.Event()
    cancel.set()
    result = algorithm(OpenPlane(), Budget(cancel=cancel))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.CANCELLED)
    assert result.nodes_expanded == 0


@pytest.mark.parametrize("algorithm", ALL)
def test_deadline_in_the_past_stops_before_the_first_expansion(algorithm):
    result = algorithm(OpenPlane(), Budget(deadline=time.monotonic() - 1.0))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.DEADLINE)
    assert result.nodes_expanded == 0


@pytest.mark.parametrize("algorithm", ALL)
def test_cancel_set_during_the_search_is_seen_at_the_next_clock_check(algorithm):
    cancel = threading.Event()

    def cancel_at_1000(expansions):
        if expansions == 1000:
            cancel.set()

    result = algorithm(OpenPlane(on_expand=cancel_at_1000), Budget(cancel=cancel))
    assert result.limit is LimitKind.CANCELLED
    # Set during expansion 1000; seen at the next multiple of the check interval.
    assert result.nodes_expanded == -(-1000 // CLOCK_CHECK_INTERVAL) * CLOCK_CHECK_INTERVAL


@pytest.mark.parametrize("algorithm", [bfs, astar, idastar, dfs])
def test_clock_is_read_once_at_start_then_once_per_interval(algorithm, monkeypatch):
    reads = []
    real_monotonic = time.monotonic

    def counting_monotonic():
        reads.append(1)
        return real_monotonic()

    budget = Budget(max_nodes=5 * CLOCK_CHECK_INTERVAL + 7, deadline=real_monotonic() + 3600)
    monkeypatch.setattr(result_module.time, "monotonic", counting_monotonic)
    result = algorithm(OpenPlane(), budget)
    assert result.limit is LimitKind.MAX_NODES
    assert len(reads) == 6  # before expansions 0, 256, 512, 768, 1024 and 1280


def test_deadline_ends_a_search_that_would_otherwise_run_for_hours():
    result = bfs(OpenPlane(), Budget.from_timeout(0.2))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.DEADLINE)
    assert result.nodes_expanded % CLOCK_CHECK_INTERVAL == 0  # stopped at a clock check


def test_unlimited_budget_still_solves():
    problem = OpenPlane(goal=(3, -2))
    for algorithm in ALL:
        result = algorithm(problem, Budget(), **({"depth_limit": 5} if algorithm is dfs else {}))
        assert result.status is SearchStatus.SOLVED
        assert result.states[-1] == problem.goal
    assert astar(problem).length == 5


def test_budget_exceeded_reports_nodes_then_cancel_then_deadline():
    cancel = threading.Event()
    budget = Budget(max_nodes=10, deadline=time.monotonic() - 1, cancel=cancel)
    assert budget.exceeded(10) is LimitKind.MAX_NODES
    assert budget.exceeded(9) is LimitKind.DEADLINE
    cancel.set()
    assert budget.exceeded(9) is LimitKind.CANCELLED
    assert Budget().exceeded(10**9) is None
    assert Budget().clocked is False
    assert Budget.from_timeout(1.0).clocked is True


def test_depth_limit_from_budget_applies_to_dfs_and_iddfs():
    problem = OpenPlane(goal=(4, 0))
    for algorithm in (dfs, iddfs):
        result = algorithm(problem, Budget(max_depth=3))
        assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED,
                                                 LimitKind.MAX_DEPTH)
    assert iddfs(problem, Budget(max_depth=4)).length == 4


class CountingPlane(OpenPlane):
    """OpenPlane that records every distinct state it hands out (what a graph search holds)."""

    def __init__(self, goal=(10_000, 10_000)):
        super().__init__(goal)
        self.seen = {self.start}

    def successors(self, state):
        found = super().successors(state)
        self.seen.update(child for _action, child, _cost in found)
        return found

    predecessors = successors


@pytest.mark.parametrize("algorithm", ALL)
def test_memory_budget_stops_every_algorithm_at_the_states_it_holds(algorithm):
    result = algorithm(OpenPlane(), Budget(max_held=300))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.MEMORY)
    # Checked before each expansion, which adds at most 4 states.
    assert 300 <= result.nodes_held < 304


@pytest.mark.parametrize("algorithm", [bfs, bidirectional_bfs])
def test_breadth_first_searches_hold_every_state_they_have_seen(algorithm):
    problem = CountingPlane()
    result = algorithm(problem, Budget(max_nodes=500))
    assert result.nodes_held == len(problem.seen)


def test_each_algorithm_reports_what_it_really_holds():
    problem = OpenPlane(goal=(6, -5))
    held = {
        algorithm.__name__: algorithm(problem, **({"depth_limit": 15} if algorithm is dfs else {}))
        for algorithm in ALL
    }
    # IDA* holds its path; IDDFS and DFS their table of seen states, far beyond their path.
    assert held["idastar"].nodes_held == held["idastar"].max_frontier == held["idastar"].length
    assert held["iddfs"].nodes_held > 10 * held["iddfs"].max_frontier
    assert held["dfs"].nodes_held > held["dfs"].max_frontier
    # A* and uniform-cost: the expanded states and the open heap.
    for name in ("astar", "uniform_cost"):
        result = held[name]
        assert result.nodes_expanded < result.nodes_held <= result.nodes_generated


@pytest.mark.parametrize("algorithm", ALL)
def test_progress_receives_the_counts_at_the_clock_checks(algorithm):
    progress = SearchProgress()
    result = algorithm(OpenPlane(), Budget(max_nodes=3 * CLOCK_CHECK_INTERVAL + 1,
                                           progress=progress))
    assert progress.nodes_expanded == 3 * CLOCK_CHECK_INTERVAL
    assert 0 < progress.nodes_generated <= result.nodes_generated
    assert 0 < progress.nodes_held <= result.nodes_held
    if algorithm in (idastar, iddfs):
        assert progress.bound > 0


@pytest.mark.parametrize(("arguments", "message"), [
    ({"max_nodes": -5}, "max_nodes must be a whole number >= 0 or None, got -5"),
    ({"max_depth": 1.5}, "max_depth must be a whole number >= 0 or None, got 1.5"),
    ({"max_held": True}, "max_held must be a whole number >= 0 or None, got True"),
    ({"deadline": float("nan")}, "deadline must be a time.monotonic() instant or None, got nan"),
])
def test_a_bound_that_is_not_a_count_is_refused(arguments, message):
    with pytest.raises(ValueError) as error:
        Budget(**arguments)
    assert str(error.value) == message


@pytest.mark.parametrize("timeout", [float("nan"), -1.0])
def test_a_timeout_that_is_nan_or_negative_is_refused(timeout):
    # A NaN deadline compares false with every clock reading: the search would never time out.
    with pytest.raises(ValueError) as error:
        Budget.from_timeout(timeout)
    assert str(error.value) == f"timeout must be >= 0 seconds or None, got {timeout!r}"


def test_zero_bounds_are_counts_too():
    assert Budget(max_nodes=0, max_depth=0, max_held=0).exceeded(0) is LimitKind.MAX_NODES
    assert Budget.from_timeout(0.0).deadline is not None
