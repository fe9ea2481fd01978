"""Helpers shared by the algorithms: how a search ends, cheap budget checks, path rebuilding."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Hashable
from numbers import Integral

from .result import Budget, LimitKind, SearchResult

# The clock and the cancel flag are read once every this many expansions (and once before the
# first). A power of two so the test is a bit mask; at a few microseconds per expansion the
# deadline is overshot by well under a millisecond.
CLOCK_CHECK_INTERVAL = 256
_CLOCK_MASK = CLOCK_CHECK_INTERVAL - 1

# parent[state] = (previous_state, action, step_cost); parent[start] = None.
ParentMap = dict[Hashable, "tuple[Hashable, object, float] | None"]


def search_ending(
    algorithm: str, counts: Callable[[], tuple[int, int, int]], guarantees_optimal: bool = True
) -> Callable[..., SearchResult]:
    """`finish(status, states=(), actions=(), cost=0.0, limit=None)` for a search starting now.

    `counts` reads the search's own counters (expanded, generated, max_frontier, peak states
    held) when it ends: the algorithms keep them in local variables, which is what makes their
    loops fast.
    """
    started = time.perf_counter()

    def finish(status, states=(), actions=(), cost=0.0, limit=None) -> SearchResult:
        return SearchResult.ended(
            algorithm, status, started, counts(), states, actions, cost, limit, guarantees_optimal
        )

    return finish


LimitCheck = Callable[[int, int, int, int], "LimitKind | None"]


def make_limit_check(budget: Budget | None) -> LimitCheck:
    """`check(expanded, generated, held, frontier)`: the LimitKind that has struck, if any.

    Called before every expansion with the search's counts (`held`: the states it holds in
    memory now, `frontier`: those waiting). The node and memory counts are compared every
    time; the clock and the cancel flag are read, and `budget.progress` is written, only every
    CLOCK_CHECK_INTERVAL expansions.
    """
    if budget is None:
        return lambda _expanded, _generated, _held, _frontier: None
    max_nodes = budget.max_nodes if budget.max_nodes is not None else sys.maxsize
    max_held = budget.max_held if budget.max_held is not None else sys.maxsize
    progress = budget.progress
    if not budget.clocked and progress is None:

        def check_counts(expanded: int, _generated: int, held: int, _frontier: int):
            if expanded >= max_nodes:
                return LimitKind.MAX_NODES
            return LimitKind.MEMORY if held >= max_held else None

        return check_counts

    clock_exceeded = budget.clock_exceeded

    def check(expanded: int, generated: int, held: int, frontier: int) -> LimitKind | None:
        if expanded >= max_nodes:
            return LimitKind.MAX_NODES
        if held >= max_held:
            return LimitKind.MEMORY
        if expanded & _CLOCK_MASK == 0:
            if progress is not None:
                progress.record(expanded, generated, held, frontier)
            return clock_exceeded()
        return None

    return check


# Depth limits stay below this: the compiled searches hold depths in int64.
DEPTH_LIMIT_BOUND = 2**62
DEPTH_LIMIT_WORDS = f"2**{DEPTH_LIMIT_BOUND.bit_length() - 1}"  # the bound as messages say it


def effective_depth_limit(explicit: int | None, budget: Budget | None) -> int | None:
    """The tighter of an explicit depth limit and `budget.max_depth` (None: unlimited)."""
    limits = [d for d in (explicit, budget.max_depth if budget else None) if d is not None]
    for limit in limits:
        # A float (3.5) was taken as a limit of fractional steps, and 2**70 overflowed the
        # compiled search's int64 with a numba error.
        if (isinstance(limit, bool) or not isinstance(limit, Integral)
                or not 0 <= limit < DEPTH_LIMIT_BOUND):
            raise ValueError(
                f"depth limit must be an integer in [0, {DEPTH_LIMIT_WORDS}), got {limit}"
            )
    return int(min(limits)) if limits else None


def walk_back(parent: ParentMap, state: Hashable) -> tuple[list, list, float]:
    """The states, actions and cost of the path that `parent` records from the start to `state`."""
    states = [state]
    actions = []
    cost = 0.0
    link = parent[state]
    while link is not None:
        previous, action, step_cost = link
        states.append(previous)
        actions.append(action)
        cost += step_cost
        link = parent[previous]
    states.reverse()
    actions.reverse()
    return states, actions, cost


def walk_forward(successor: ParentMap, state: Hashable) -> tuple[list, list, float]:
    """The path from `state` to the goal that a backward search recorded.

    `successor[x] = (next_state, forward_action, step_cost)`; `successor[goal] = None`. The
    returned states start after `state`.
    """
    states = []
    actions = []
    cost = 0.0
    link = successor[state]
    while link is not None:
        following, action, step_cost = link
        states.append(following)
        actions.append(action)
        cost += step_cost
        link = successor[following]
    return states, actions, cost
