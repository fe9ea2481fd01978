"""The search algorithms on small handmade graphs, where every answer can be checked by hand."""

from __future__ import annotations

import pytest

from grid_planner.search import (
    ALGORITHMS,
    Budget,
    LimitKind,
    SearchStatus,
    astar,
    bfs,
    bidirectional_bfs,
    dfs,
    idastar,
    iddfs,
    uniform_cost,
)


class GraphProblem:
    """A directed graph given as {state: [(action, next_state, cost), ...]}; reversible."""

    def __init__(self, edges, start, goal, heuristic=None, unit_cost=None):
        self.edges = edges
        self._start = start
        self._goal = goal
        self.h = heuristic or {}
        self.expansion_order = []
        if unit_cost is None:
            unit_cost = all(c == 1 for out in edges.values() for _a, _s, c in out)
        self.unit_cost = unit_cost
        self.back = {}
        for state, out in edges.items():
            for action, child, cost in out:
                self.back.setdefault(child, []).append((action, state, cost))

    @property
    def start(self):
        return self._start

    @property
    def goal(self):
        return self._goal

    def is_goal(self, state):
        return state == self._goal

    def successors(self, state):
        self.expansion_order.append(state)
        return self.edges.get(state, [])

    def predecessors(self, state):
        return self.back.get(state, [])

    def heuristic(self, state):
        return self.h.get(state, 0)


def undirected(pairs, cost=1):
    """Edges both ways for `pairs` of states, the action being the target's name."""
    edges = {}
    for a, b in pairs:
        edges.setdefault(a, []).append((b, b, cost))
        edges.setdefault(b, []).append((a, a, cost))
    return edges


def path_is_valid(problem, result):
    """Every step of the result is an edge of the graph and the costs add up."""
    assert result.states[0] == problem.start
    assert problem.is_goal(result.states[-1])
    assert len(result.actions) == len(result.states) - 1
    total = 0
    for state, action, following in zip(result.states, result.actions, result.states[1:],
                                        strict=False):
        costs = [c for a, s, c in problem.edges[state] if a == action and s == following]
        assert costs, f"{state} -{action}-> {following} is not an edge"
        total += costs[0]
    assert result.cost == pytest.approx(total)
    return True


ALL = [bfs, dfs, iddfs, bidirectional_bfs, astar, idastar, uniform_cost]

# Two routes S->G: three steps that cost 30, or five steps that cost 5.
WEIGHTED = {
    "S": [("a", "A", 10), ("p", "P", 1)],
    "A": [("b", "B", 10)],
    "B": [("g", "G", 10)],
    "P": [("q", "Q", 1)],
    "Q": [("r", "R", 1)],
    "R": [("t", "T", 1)],
    "T": [("g", "G", 1)],
}


def test_registry_names_and_guarantees():
    assert list(ALGORITHMS) == [
        "bfs", "dfs", "iddfs", "bidirectional_bfs", "astar", "idastar", "uniform_cost"
    ]
    assert {name for name, info in ALGORITHMS.items() if info.optimal} == {
        "bfs", "iddfs", "bidirectional_bfs", "astar", "idastar", "uniform_cost"
    }
    assert {name for name, info in ALGORITHMS.items() if info.unit_cost_only} == {
        "bfs", "iddfs", "bidirectional_bfs"
    }
    assert {n for n, i in ALGORITHMS.items() if i.informed} == {"astar", "idastar"}
    assert ALGORITHMS["bidirectional_bfs"].reversible
    problem = GraphProblem(undirected([(0, 1), (1, 2)]), 0, 2)
    assert ALGORITHMS["bfs"](problem).states == [0, 1, 2]
    assert ALGORITHMS["dfs"](problem, None, depth_limit=5).solved


@pytest.mark.parametrize("algorithm", ALL)
def test_start_equal_to_goal_is_a_one_state_path(algorithm):
    result = algorithm(GraphProblem(undirected([(0, 1)]), 0, 0))
    assert result.status is SearchStatus.SOLVED
    assert (result.states, result.actions, result.cost) == ([0], [], 0)
    assert result.nodes_expanded == 0
    assert result.nodes_generated == 1
    assert result.optimal  # no shorter path exists, whatever the algorithm guarantees


@pytest.mark.parametrize("algorithm", [a for a in ALL if a is not idastar])
def test_unreachable_goal_is_no_solution(algorithm):
    problem = GraphProblem(undirected([(0, 1), (1, 2), (2, 0), (5, 6)]), 0, 6)
    result = algorithm(problem)
    assert result.status is SearchStatus.NO_SOLUTION
    assert result.limit is None
    assert (result.states, result.actions, result.optimal) == ([], [], False)


def test_idastar_proves_no_solution_only_where_paths_run_out():
    # Acyclic: every path ends, so IDA* finishes with NO_SOLUTION.
    edges = {0: [("a", 1, 1), ("b", 2, 1)], 1: [("c", 3, 1)], 2: [("d", 3, 1)]}
    assert idastar(GraphProblem(edges, 0, 9)).status is SearchStatus.NO_SOLUTION
    # Cyclic: a tree search can always go round once more, so only the budget ends it.
    cyclic = GraphProblem(undirected([(0, 1), (1, 2), (2, 0), (5, 6)]), 0, 6)
    result = idastar(cyclic, Budget(max_nodes=500))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.MAX_NODES)


@pytest.mark.parametrize("algorithm", [bfs, iddfs, bidirectional_bfs, astar, idastar,
                                       uniform_cost])
def test_optimal_algorithms_find_the_shortest_path_on_a_grid_graph(algorithm):
    # A 4x4 grid of cells 0..15 with the cells 5, 6 and 9 missing: shortest 0 -> 10 is 6 steps.
    cells = [c for c in range(16) if c not in (5, 6, 9)]
    pairs = [(c, c + 1) for c in cells if c % 4 < 3 and c + 1 in cells]
    pairs += [(c, c + 4) for c in cells if c + 4 in cells]
    manhattan = {c: abs(c % 4 - 2) + abs(c // 4 - 2) for c in cells}
    problem = GraphProblem(undirected(pairs), 0, 10, manhattan)
    result = algorithm(problem)
    assert result.status is SearchStatus.SOLVED
    assert result.length == 6
    assert result.cost == 6
    assert result.optimal
    assert path_is_valid(problem, result)


def test_uniform_cost_takes_the_cheap_long_route_on_a_weighted_graph():
    problem = GraphProblem(WEIGHTED, "S", "G")
    result = uniform_cost(problem)
    assert result.states == ["S", "P", "Q", "R", "T", "G"]
    assert result.cost == 5
    assert result.optimal
    assert path_is_valid(problem, result)


def test_astar_with_admissible_heuristic_matches_uniform_cost_on_weights():
    h = {"S": 5, "P": 4, "Q": 3, "R": 2, "T": 1, "A": 20, "B": 10}
    result = astar(GraphProblem(WEIGHTED, "S", "G", h))
    assert (result.cost, result.length) == (5, 5)
    # The tight heuristic leads straight down the cheap route: S, P, Q, R, T expanded only.
    assert result.nodes_expanded == 5


def test_bfs_minimises_steps_and_does_not_claim_optimal_cost_on_weighted_graph():
    result = bfs(GraphProblem(WEIGHTED, "S", "G"))
    assert result.states == ["S", "A", "B", "G"]
    assert result.cost == 30
    assert result.optimal is False
    result = bidirectional_bfs(GraphProblem(WEIGHTED, "S", "G"))
    assert (result.length, result.optimal) == (3, False)


def test_astar_reopens_a_state_reached_cheaper_under_an_inconsistent_heuristic():
    # h(B) = 10 is admissible (B is 10 from G... via C) but inconsistent with h(A) = 0, so A*
    # closes C first through the dear edge and must reopen it via A-B-C.
    edges = {
        "S": [("a", "A", 1), ("c", "C", 5)],
        "A": [("b", "B", 1)],
        "B": [("c", "C", 1)],
        "C": [("g", "G", 10)],
    }
    h = {"S": 0, "A": 0, "B": 10, "C": 0}
    result = astar(GraphProblem(edges, "S", "G", h))
    assert result.states == ["S", "A", "B", "C", "G"]
    assert result.cost == 13


def test_best_first_ties_go_to_the_entry_pushed_last():
    # All nodes have f = 3 with the exact heuristic. Ties go to the entry pushed last: A*
    # takes Y1 (pushed after X1), then its child Y2 (pushed after everything), and expands
    # only that path.
    edges = {
        "S": [("x", "X1", 1), ("y", "Y1", 1)],
        "X1": [("x", "X2", 1)],
        "Y1": [("y", "Y2", 1)],
        "X2": [("g", "G", 1)],
        "Y2": [("g", "G", 1)],
    }
    h = {"S": 3, "X1": 2, "Y1": 2, "X2": 1, "Y2": 1}
    problem = GraphProblem(edges, "S", "G", h)
    result = astar(problem)
    assert problem.expansion_order == ["S", "Y1", "Y2"]
    assert result.states == ["S", "Y1", "Y2", "G"]
    # Uniform-cost ties (equal g) also go to the last pushed: Y1, then X1, whose child X2 was
    # pushed after Y2.
    problem = GraphProblem(edges, "S", "G")
    uniform_cost(problem)
    assert problem.expansion_order == ["S", "Y1", "X1", "X2", "Y2"]


def naive_alternating_bidirectional(problem):
    """The flawed textbook variant: alternate single nodes, stop at the first meeting."""
    forward, backward = {problem.start: [problem.start]}, {problem.goal: [problem.goal]}
    queues = [[problem.start], [problem.goal]]
    turn = 0
    while queues[0] and queues[1]:
        own, other = (forward, backward) if turn == 0 else (backward, forward)
        neighbours = problem.successors if turn == 0 else problem.predecessors
        state = queues[turn].pop(0)
        for _action, nxt, _cost in neighbours(state):
            if nxt in own:
                continue
            own[nxt] = [*own[state], nxt]
            if nxt in other:
                return forward[nxt] + backward[nxt][::-1][1:]
            queues[turn].append(nxt)
        turn = 1 - turn
    return None


def test_bidirectional_bfs_is_optimal_where_node_alternation_is_one_step_too_long():
    edges = {
        "S": [("a", "A", 1), ("c", "C", 1)],
        "A": [("e", "E", 1)],
        "E": [("b", "B", 1)],
        "B": [("g", "G", 1)],
        "C": [("d", "D", 1)],
        "D": [("g", "G", 1)],
    }
    problem = GraphProblem(edges, "S", "G")
    assert naive_alternating_bidirectional(problem) == ["S", "A", "E", "B", "G"]  # 4 steps
    result = bidirectional_bfs(problem)
    assert result.states == ["S", "C", "D", "G"]
    assert result.actions == ["c", "d", "g"]
    assert result.optimal
    assert bfs(GraphProblem(edges, "S", "G")).length == 3


def test_bidirectional_bfs_expands_the_smaller_frontier_layer_by_layer():
    # A star around S of 5 leaves, one of which leads by a chain to G: the backward side has
    # one state per layer, so it does all the expanding after the first forward layer.
    edges = {"S": [(f"l{i}", f"L{i}", 1) for i in range(5)]}
    edges["L0"] = [("m", "M", 1)]
    edges["M"] = [("n", "N", 1)]
    edges["N"] = [("g", "G", 1)]
    result = bidirectional_bfs(GraphProblem(edges, "S", "G"))
    assert result.states == ["S", "L0", "M", "N", "G"]
    # Forward: S (1). Backward, one state per layer: G, N, M, whose predecessor L0 meets.
    assert result.nodes_expanded == 4
    assert result.nodes_generated == 2 + 5 + 3
    assert result.max_frontier == 6  # the five leaves plus one backward state


def test_bidirectional_bfs_requires_a_reversible_problem():
    class ForwardOnly:
        start = 0

        def is_goal(self, state):
            return state == 1

        def successors(self, state):
            return [("x", 1, 1)]

        def heuristic(self, state):
            return 0

    with pytest.raises(TypeError, match="ReversibleProblem"):
        bidirectional_bfs(ForwardOnly())


def test_bfs_counts_expanded_generated_and_peak_frontier():
    # A binary tree of depth 3 (states 1..15), goal the last leaf 15.
    edges = {n: [("L", 2 * n, 1), ("R", 2 * n + 1, 1)] for n in range(1, 8)}
    result = bfs(GraphProblem(edges, 1, 15))
    assert result.actions == ["R", "R", "R"]
    # 1..6 fully expanded (12 children), then 7 generates 14 and 15 (goal test on generation).
    assert result.nodes_expanded == 7
    assert result.nodes_generated == 1 + 12 + 2
    assert result.max_frontier == 7  # after expanding 6: the queue holds 7..13
    assert result.elapsed >= 0


def shallower_revisit_graph():
    # DFS meets X first at depth 3 along S-A-B-X, where a depth limit of 3 cuts it. X also
    # hangs directly off S, and only from there is G within the limit: S-X-Y-G.
    edges = {
        "S": [("a", "A", 1), ("x", "X", 1)],
        "A": [("b", "B", 1)],
        "B": [("x", "X", 1)],
        "X": [("y", "Y", 1)],
        "Y": [("g", "G", 1)],
    }
    return GraphProblem(edges, "S", "G")


def test_depth_limited_dfs_reenters_a_state_reached_at_a_shallower_depth():
    problem = shallower_revisit_graph()
    result = dfs(problem, depth_limit=3)
    assert result.status is SearchStatus.SOLVED
    assert result.states == ["S", "X", "Y", "G"]
    assert result.optimal is False
    # Without a limit plain graph DFS goes the long way and never comes back to X.
    long_way = dfs(shallower_revisit_graph())
    assert long_way.states == ["S", "A", "B", "X", "Y", "G"]


def test_depth_limit_that_cuts_the_only_solution_is_limit_reached_max_depth():
    for result in (
        dfs(shallower_revisit_graph(), depth_limit=2),
        dfs(shallower_revisit_graph(), Budget(max_depth=2)),
        dfs(shallower_revisit_graph(), Budget(max_depth=2), depth_limit=9),
        iddfs(shallower_revisit_graph(), max_depth=2),
        iddfs(shallower_revisit_graph(), Budget(max_depth=2)),
    ):
        assert result.status is SearchStatus.LIMIT_REACHED
        assert result.limit is LimitKind.MAX_DEPTH
        assert result.states == []


def test_depth_limited_search_of_a_finite_graph_without_goal_is_no_solution():
    # Nothing is cut when the whole graph lies within the limit, so the answer is definite.
    problem = GraphProblem(undirected([(0, 1), (1, 2), (2, 3)]), 0, 9)
    assert dfs(problem, depth_limit=3).status is SearchStatus.NO_SOLUTION
    assert iddfs(problem).status is SearchStatus.NO_SOLUTION
    assert dfs(problem, depth_limit=2).limit is LimitKind.MAX_DEPTH
    assert iddfs(problem, max_depth=2).limit is LimitKind.MAX_DEPTH


def test_depth_limit_zero_only_tests_the_start():
    problem = GraphProblem(undirected([(0, 1)]), 0, 1)
    result = dfs(problem, depth_limit=0)
    # The start is expanded only to learn that the limit does hide something.
    assert (result.status, result.limit, result.nodes_expanded) == (
        SearchStatus.LIMIT_REACHED, LimitKind.MAX_DEPTH, 1)
    assert dfs(GraphProblem({}, 0, 1), depth_limit=0).status is SearchStatus.NO_SOLUTION
    assert dfs(problem, depth_limit=1).states == [0, 1]


def test_negative_depth_limit_is_refused():
    with pytest.raises(ValueError, match="depth limit"):
        dfs(GraphProblem({}, 0, 1), depth_limit=-1)


def test_iddfs_returns_the_shallowest_solution_and_accumulates_counts():
    problem = shallower_revisit_graph()
    result = iddfs(problem)
    assert result.states == ["S", "X", "Y", "G"]
    assert result.optimal
    # Per pass, expanded states; "(X)" is a state at the limit expanded only to see whether
    # the limit hides anything (just the first such state of a pass):
    # limit 0: (S); 1: S, (A); 2: S, A, (B), X; 3: S, A, B, (X), X, Y -> G found.
    assert result.nodes_expanded == 1 + 2 + 4 + 6
    assert result.max_frontier == 3


def test_dfs_follows_successor_order_and_reports_the_path_stack_as_frontier():
    edges = {n: [("next", n + 1, 1)] for n in range(10)}
    result = dfs(GraphProblem(edges, 0, 10))
    assert result.states == list(range(11))
    assert result.nodes_expanded == 10
    assert result.max_frontier == 10


def test_idastar_handles_a_deep_chain_without_recursion():
    # 2,000 steps is far beyond Python's default recursion limit of 1,000.
    length = 2000
    edges = {n: [("back", n - 1, 1), ("on", n + 1, 1)] for n in range(1, length)}
    edges[0] = [("on", 1, 1)]
    exact = {n: length - n for n in range(length + 1)}
    result = idastar(GraphProblem(edges, 0, length, exact))
    assert result.length == length
    assert result.actions == ["on"] * length
    # The exact heuristic needs one pass; skipping the undo step keeps it linear.
    assert result.nodes_expanded == length
    assert result.max_frontier == length


def test_idastar_raises_the_bound_to_the_least_overflowing_f():
    # Without a heuristic IDA* is iterative deepening on cost: bounds 0, 1, 2, 3, 4, 5.
    problem = GraphProblem(WEIGHTED, "S", "G")
    result = idastar(problem)
    assert result.cost == 5
    assert result.states == ["S", "P", "Q", "R", "T", "G"]
    starts = [i for i, s in enumerate(problem.expansion_order) if s == "S"]
    assert len(starts) == 6  # one pass per bound; the last one reaches G at cost 5
