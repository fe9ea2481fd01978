"""Uninformed searches: breadth-first, depth-first, iterative deepening, bidirectional BFS.

All are graph searches (they remember what they have seen) and count as described in
`grid_planner.search`. BFS-family results are `optimal` only for problems that declare
`unit_cost = True`, because they minimise the number of steps, not the cost.
"""

from __future__ import annotations

import time
from collections import deque

from ._support import (
    effective_depth_limit,
    make_limit_check,
    search_ending,
    walk_back,
    walk_forward,
)
from .problem import ReversibleProblem, SearchProblem, declares_unit_cost
from .result import Budget, LimitKind, SearchResult, SearchStatus


def bfs(problem: SearchProblem, budget: Budget | None = None) -> SearchResult:
    """Breadth-first search: a path with the fewest steps, or why there is none.

    The goal test runs when a state is generated (safe for BFS, and it saves a whole layer).
    The states held are every state seen (the queue and the expanded ones).
    """
    finish = search_ending(
        "bfs", lambda: (expanded, generated, max_frontier, len(parent)),
        declares_unit_cost(problem),
    )
    check = make_limit_check(budget)
    is_goal = problem.is_goal
    successors = problem.successors
    start = problem.start
    expanded, generated, max_frontier = 0, 1, 1
    parent = {start: None}
    if is_goal(start):
        return finish(SearchStatus.SOLVED, [start])
    frontier = deque([start])
    while frontier:
        stop = check(expanded, generated, len(parent), len(frontier))
        if stop is not None:
            return finish(SearchStatus.LIMIT_REACHED, limit=stop)
        state = frontier.popleft()
        expanded += 1
        for action, child, step_cost in successors(state):
            generated += 1
            if child in parent:
                continue
            parent[child] = (state, action, step_cost)
            if is_goal(child):
                return finish(SearchStatus.SOLVED, *walk_back(parent, child))
            frontier.append(child)
        if len(frontier) > max_frontier:
            max_frontier = len(frontier)
    return finish(SearchStatus.NO_SOLUTION)


class _Pass:
    """What one depth-first pass found: SOLVED, NO_SOLUTION (it saw every state within reach)
    or LIMIT_REACHED with the LimitKind (MAX_DEPTH: it cut states at its depth limit)."""

    __slots__ = (
        "actions", "cost", "expanded", "generated", "held", "limit", "max_frontier", "states",
        "status",
    )

    def __init__(self) -> None:
        self.status = SearchStatus.NO_SOLUTION
        self.limit: LimitKind | None = None
        self.states: list = []
        self.actions: list = []
        self.cost = 0.0
        self.expanded = 0
        self.generated = 0
        self.max_frontier = 0
        self.held = 0


def _depth_first_pass(
    problem: SearchProblem, check, limit: int | None, expanded: int, generated_before: int = 0
) -> _Pass:
    """One depth-first search from the start, to depth `limit` (None: unlimited).

    The stack holds one successor iterator per state on the current path, so the path is the
    stack itself and memory for the frontier is O(depth). Without a limit every seen state is
    skipped (plain graph DFS). With a limit a state is entered again only when reached at a
    shallower depth than before: it then has more depth left to explore, so remembering states
    can never hide a solution within the limit. A state at the limit counts as a cut only if
    it has a successor not seen shallower (checked until the first cut), so "cut" means a
    solution may really lie deeper. `expanded` is the count so far (IDDFS passes accumulate
    it), so node budgets span passes; `generated_before` is only reported as progress. The
    states held are the remembered states (the path among them).
    """
    result = _Pass()
    is_goal = problem.is_goal
    successors = problem.successors
    start = problem.start
    generated = 1
    states = [start]
    actions: list = []
    costs: list = []
    result.max_frontier = 1

    best_depth = {start: 0}

    def done(status, limit=None):
        result.status = status
        result.limit = limit
        result.expanded = expanded
        result.generated = generated
        result.held = len(best_depth)
        return result

    if is_goal(start):
        result.states = states
        return done(SearchStatus.SOLVED)
    limited = limit is not None
    cut = False

    def cuts_below(state, depth) -> bool:
        """Whether `state`, at the limit, has a successor that the limit really hides.

        A successor already seen at depth <= depth + 1 would be skipped anyway, so a state
        whose successors are all such is no cut: that keeps NO_SOLUTION exact on graphs that
        lie within the limit. Called only until the first real cut, so it costs little.
        """
        nonlocal generated
        for _action, child, _cost in successors(state):
            generated += 1
            seen_at = best_depth.get(child)
            if seen_at is None or seen_at > depth + 1:
                return True
        return False

    stop = check(expanded, generated_before + generated, 1, 1)
    if stop is not None:
        return done(SearchStatus.LIMIT_REACHED, stop)
    expanded += 1
    if limit == 0:
        return done(*_ended_pass(cuts_below(start, 0)))
    iterators = [iter(successors(start))]
    while iterators:
        entry = next(iterators[-1], None)
        if entry is None:
            iterators.pop()
            states.pop()
            if actions:
                actions.pop()
                costs.pop()
            continue
        action, child, step_cost = entry
        generated += 1
        depth = len(iterators)
        if limited:
            seen_at = best_depth.get(child)
            if seen_at is not None and seen_at <= depth:
                continue
        elif child in best_depth:
            continue
        best_depth[child] = depth
        if is_goal(child):
            result.states = [*states, child]
            result.actions = [*actions, action]
            result.cost = sum(costs) + step_cost
            return done(SearchStatus.SOLVED)
        if limited and depth >= limit:
            if not cut:
                stop = check(
                    expanded, generated_before + generated, len(best_depth), len(iterators)
                )
                if stop is not None:
                    return done(SearchStatus.LIMIT_REACHED, stop)
                expanded += 1
                cut = cuts_below(child, depth)
            continue
        stop = check(expanded, generated_before + generated, len(best_depth), len(iterators))
        if stop is not None:
            return done(SearchStatus.LIMIT_REACHED, stop)
        expanded += 1
        states.append(child)
        actions.append(action)
        costs.append(step_cost)
        iterators.append(iter(successors(child)))
        if len(iterators) > result.max_frontier:
            result.max_frontier = len(iterators)
    return done(*_ended_pass(cut))


def _ended_pass(cut: bool) -> tuple[SearchStatus, LimitKind | None]:
    """How a pass that ran out of states ended: cut at its limit, or truly exhausted."""
    if cut:
        return SearchStatus.LIMIT_REACHED, LimitKind.MAX_DEPTH
    return SearchStatus.NO_SOLUTION, None


def _pass_result(name: str, found: _Pass, started: float, optimal: bool) -> SearchResult:
    counts = (found.expanded, found.generated, found.max_frontier, found.held)
    return SearchResult.ended(
        name, found.status, started, counts, found.states, found.actions, found.cost,
        found.limit, optimal,
    )


def dfs(
    problem: SearchProblem, budget: Budget | None = None, depth_limit: int | None = None
) -> SearchResult:
    """Depth-first search: some path (not necessarily short), or why there is none.

    `depth_limit` (or `budget.max_depth`, the tighter wins) bounds the path length; a search
    that cut deeper states and found nothing ends LIMIT_REACHED / MAX_DEPTH, because a
    solution may lie beyond the limit. Reports `optimal` only when the start is a goal.
    """
    started = time.perf_counter()
    limit = effective_depth_limit(depth_limit, budget)
    found = _depth_first_pass(problem, make_limit_check(budget), limit, 0)
    return _pass_result("dfs", found, started, optimal=False)


def iddfs(
    problem: SearchProblem, budget: Budget | None = None, max_depth: int | None = None
) -> SearchResult:
    """Iterative deepening DFS: depth-limited passes with limits 0, 1, 2, ... (fewest steps).

    Each pass is the depth-limited DFS of `dfs` with a fresh memory of seen states, so the
    first solution found is at the smallest depth. Stops with NO_SOLUTION when a pass cuts
    nothing, or LIMIT_REACHED / MAX_DEPTH after the pass at `max_depth` (or
    `budget.max_depth`). Counters accumulate over the passes; the start counts as generated
    once, as expanded on every pass that expands it. A pass's memory of seen states is what
    it holds (`nodes_held`: the largest over the passes, bounded by `budget.max_held`).
    """
    started = time.perf_counter()
    cap = effective_depth_limit(max_depth, budget)
    check = make_limit_check(budget)
    progress = budget.progress if budget is not None else None
    expanded = generated = max_frontier = held = 0
    limit = 0
    while True:
        if progress is not None:
            progress.bound = limit
        found = _depth_first_pass(problem, check, limit, expanded, generated)
        expanded = found.expanded
        generated += found.generated if limit == 0 else found.generated - 1
        max_frontier = max(max_frontier, found.max_frontier)
        held = max(held, found.held)
        if found.limit is not LimitKind.MAX_DEPTH or (cap is not None and limit >= cap):
            break
        limit += 1
    found.generated = generated
    found.max_frontier = max_frontier
    found.held = held
    return _pass_result("iddfs", found, started, optimal=declares_unit_cost(problem))


def bidirectional_bfs(problem: ReversibleProblem, budget: Budget | None = None) -> SearchResult:
    """Breadth-first from both ends at once: a fewest-steps path, usually with far fewer nodes.

    Each step expands one whole layer of the side whose frontier is smaller and checks every
    generated state against the other side's seen states. Expanding whole layers is what keeps
    the answer shortest: the first meeting inside a layer is then at the least total depth,
    whereas alternating node by node can meet first on a path one step too long.
    The goal counts as generated alongside the start. The states held are both sides' seen
    states.
    """
    if not hasattr(problem, "predecessors") or not hasattr(problem, "goal"):
        raise TypeError("bidirectional_bfs needs a ReversibleProblem (goal and predecessors)")
    finish = search_ending(
        "bidirectional_bfs",
        lambda: (expanded, generated, max_frontier, len(forward) + len(backward)),
        declares_unit_cost(problem),
    )
    check = make_limit_check(budget)
    start = problem.start
    goal = problem.goal
    expanded, generated, max_frontier = 0, 1, 1
    # forward[x] = (previous, action, cost) towards the start;
    # backward[x] = (next, forward action, cost) towards the goal.
    forward = {start: None}
    backward = {}
    if problem.is_goal(start):
        return finish(SearchStatus.SOLVED, [start])
    generated, max_frontier = 2, 2
    backward[goal] = None
    forward_layer = [start]
    backward_layer = [goal]
    while forward_layer and backward_layer:
        going_forward = len(forward_layer) <= len(backward_layer)
        if going_forward:
            own, other, layer, other_layer = forward, backward, forward_layer, backward_layer
            neighbours = problem.successors
        else:
            own, other, layer, other_layer = backward, forward, backward_layer, forward_layer
            neighbours = problem.predecessors
        next_layer = []
        waiting = len(layer) + len(other_layer)
        for state in layer:
            stop = check(expanded, generated, len(forward) + len(backward), waiting)
            if stop is not None:
                return finish(SearchStatus.LIMIT_REACHED, limit=stop)
            expanded += 1
            waiting -= 1
            for action, neighbour, step_cost in neighbours(state):
                generated += 1
                if neighbour in own:
                    continue
                own[neighbour] = (state, action, step_cost)
                if neighbour in other:
                    head_states, head_actions, head_cost = walk_back(forward, neighbour)
                    tail_states, tail_actions, tail_cost = walk_forward(backward, neighbour)
                    return finish(
                        SearchStatus.SOLVED,
                        head_states + tail_states,
                        head_actions + tail_actions,
                        head_cost + tail_cost,
                    )
                next_layer.append(neighbour)
            if waiting + len(next_layer) > max_frontier:
                max_frontier = waiting + len(next_layer)
        if going_forward:
            forward_layer = next_layer
        else:
            backward_layer = next_layer
    return finish(SearchStatus.NO_SOLUTION)
