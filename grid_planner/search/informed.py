"""Cost-ordered searches: A*, uniform-cost (Dijkstra) and IDA*.

All three return least-cost paths when step costs are positive and, for A* and IDA*, the
problem's heuristic is admissible. Problems that offer `successors_with_heuristic` (see
`IncrementalHeuristicProblem`) get their heuristic updated per step instead of recomputed.
"""

from __future__ import annotations

import heapq
import math

from ._support import make_limit_check, search_ending, walk_back
from .problem import SearchProblem
from .result import Budget, SearchResult, SearchStatus


def _with_heuristic(problem: SearchProblem):
    """A function `(state, h) -> iterable of (action, next, cost, h_next)` for `problem`."""
    incremental = getattr(problem, "successors_with_heuristic", None)
    if incremental is not None:
        return incremental
    successors = problem.successors
    heuristic = problem.heuristic

    def generic(state, _h):
        for action, child, step_cost in successors(state):
            yield action, child, step_cost, heuristic(child)

    return generic


def _without_heuristic(problem: SearchProblem):
    successors = problem.successors

    def blind(state, _h):
        for action, child, step_cost in successors(state):
            yield action, child, step_cost, 0

    return blind


def _best_first(problem: SearchProblem, budget: Budget | None, name: str, informed: bool):
    """A* (informed) or uniform-cost search; see `astar` for the rules both follow."""
    finish = search_ending(name, lambda: (expanded, generated, max_frontier, max_held))
    check = make_limit_check(budget)
    is_goal = problem.is_goal
    expand = _with_heuristic(problem) if informed else _without_heuristic(problem)
    heappush, heappop = heapq.heappush, heapq.heappop
    start = problem.start
    h_start = problem.heuristic(start) if informed else 0
    expanded, generated, max_frontier, max_held = 0, 1, 1, 1
    best_g = {start: 0}
    parent = {start: None}
    counter = 0
    # (f, -insertion number, g, state, h): least f first; among equal f the entry pushed last
    # (LIFO), which mostly means the child just generated, so A* runs deep along a tie. The
    # insertion number is unique, so states are never compared and need not be orderable.
    heap = [(h_start, 0, 0, start, h_start)]

    while heap:
        _f, _order, g, state, h = heappop(heap)
        if g > best_g[state]:
            continue  # stale: a cheaper entry for this state was pushed after this one
        if is_goal(state):
            return finish(SearchStatus.SOLVED, *walk_back(parent, state))
        stop = check(expanded, generated, expanded + len(heap), len(heap))
        if stop is not None:
            return finish(SearchStatus.LIMIT_REACHED, limit=stop)
        expanded += 1
        for action, child, step_cost, h_child in expand(state, h):
            generated += 1
            g_child = g + step_cost
            known = best_g.get(child)
            if known is not None and g_child >= known:
                continue
            # Also reopens a state already expanded if it is reached more cheaply, which only
            # happens with an admissible but inconsistent heuristic (or floating-point sums one
            # ulp apart) and keeps A* optimal there.
            best_g[child] = g_child
            parent[child] = (state, action, step_cost)
            counter += 1
            heappush(heap, (g_child + h_child, -counter, g_child, child, h_child))
        if len(heap) > max_frontier:
            max_frontier = len(heap)
        if expanded + len(heap) > max_held:
            max_held = expanded + len(heap)
    return finish(SearchStatus.NO_SOLUTION)


def astar(problem: SearchProblem, budget: Budget | None = None) -> SearchResult:
    """A* search: a least-cost path when `problem.heuristic` is admissible.

    A best-g record replaces the closed set: a state is pushed again only when reached more
    cheaply, and heap entries made stale by that are skipped when popped (lazy deletion). The
    goal test runs when a state is popped, which is what makes the answer optimal. Ties in f
    go to the entry pushed last (LIFO), so runs are deterministic; the compiled grid kernels
    follow the same rule, which is what lets them match this reference expansion for expansion.
    `max_frontier` counts heap entries, stale ones included; the states held (what
    `Budget.max_held` bounds) are the closed set (states expanded) plus the heap.
    """
    return _best_first(problem, budget, "astar", informed=True)


def uniform_cost(problem: SearchProblem, budget: Budget | None = None) -> SearchResult:
    """Uniform-cost search (Dijkstra): a least-cost path for any positive step costs.

    A* with a zero heuristic; ties in cost go to the entry pushed last, as in `astar`.
    """
    return _best_first(problem, budget, "uniform_cost", informed=False)


def idastar(problem: SearchProblem, budget: Budget | None = None) -> SearchResult:
    """IDA*: depth-first passes bounded by f = g + h, each bound the least f that overflowed.

    Memory is O(depth): an explicit stack (no recursion, so depth 80 on a 15-puzzle is fine).
    No state memory beyond the path: a child equal to its grandparent (undoing the last step)
    is skipped, other cycles are re-explored. Successors are tried in the order the problem
    yields them. Optimal for an admissible heuristic and positive costs. Being a tree search,
    it proves NO_SOLUTION only when no path is left to extend; on a graph with cycles an
    unreachable goal keeps it deepening until the budget stops it. `nodes_generated`
    counts every child produced except the undo step, pruned or not, on every pass, plus the
    start once: Korf's (1985) convention, whose 15-puzzle counts this reproduces exactly with
    his move order; `nodes_expanded` counts the start on every pass. `max_frontier` is the
    deepest stack, which is also all it holds (`nodes_held`).
    """
    finish = search_ending("idastar", lambda: (expanded, generated, max_frontier, max_frontier))
    check = make_limit_check(budget)
    is_goal = problem.is_goal
    expand = _with_heuristic(problem)
    start = problem.start
    h_start = problem.heuristic(start)
    expanded, generated, max_frontier = 0, 1, 1

    if is_goal(start):
        return finish(SearchStatus.SOLVED, [start])
    bound = h_start
    progress = budget.progress if budget is not None else None
    while True:
        if progress is not None:
            progress.bound = bound
        stop = check(expanded, generated, 1, 1)
        if stop is not None:
            return finish(SearchStatus.LIMIT_REACHED, limit=stop)
        expanded += 1
        next_bound = math.inf
        states = [start]
        actions: list = []
        path_g = [0]
        iterators = [iter(expand(start, h_start))]
        while iterators:
            entry = next(iterators[-1], None)
            if entry is None:
                iterators.pop()
                states.pop()
                path_g.pop()
                if actions:
                    actions.pop()
                continue
            action, child, step_cost, h_child = entry
            if len(states) > 1 and child == states[-2]:
                continue
            generated += 1
            g_child = path_g[-1] + step_cost
            f_child = g_child + h_child
            if f_child > bound:
                if f_child < next_bound:
                    next_bound = f_child
                continue
            if is_goal(child):
                return finish(
                    SearchStatus.SOLVED, [*states, child], [*actions, action], g_child
                )
            stop = check(expanded, generated, len(states), len(states))
            if stop is not None:
                return finish(SearchStatus.LIMIT_REACHED, limit=stop)
            expanded += 1
            states.append(child)
            actions.append(action)
            path_g.append(g_child)
            iterators.append(iter(expand(child, h_child)))
            if len(iterators) > max_frontier:
                max_frontier = len(iterators)
        if next_bound == math.inf:
            return finish(SearchStatus.NO_SOLUTION)
        bound = next_bound
