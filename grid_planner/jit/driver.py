"""Running a resumable compiled search in chunks: status codes, the state layout, the loop.

Every compiled search (grid A*, BFS, DFS; puzzle IDA*) is a numba kernel that keeps all of its
progress in arrays, so it can stop and go on later. One call expands at most `allowed` nodes
and returns a status code: SOLVED, EXHAUSTED (nothing left to search), PAUSED (out of
`allowed`) or GROW (a frontier array is full). `run` calls it again and again: before each
chunk it checks the budget (node count, states held, cancel event, deadline;
`Budget.exceeded`), writes the counts to `budget.progress`, caps the chunk at what is left of
`max_nodes` and, on GROW, lets the search enlarge its arrays. Budgets are thus enforced inside
compiled code without any callback into Python, with an overshoot of at most one chunk, and the
kernels release the GIL so another thread can cancel them.

A kernel family wraps its kernel in a `Kernel` subclass: `step(allowed)` makes one call, `grow`
answers GROW, `held` and `bound` say what it holds and how deep an iterative search goes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from grid_planner.jit import njit
from grid_planner.search.result import Budget, LimitKind, SearchStatus

SOLVED = 0
EXHAUSTED = 1
PAUSED = 2
GROW = 3

# The int64 `state` array that every kernel reads and updates starts with these slots; a family
# numbers its own from FIRST_FAMILY_SLOT. numba freezes these values (and inlines the helpers
# kernels call, here and in `grid.kernels.layout`) into the compiled kernels, and its cache
# watches only each kernel's own file: after changing one, clear the cache (the
# `__pycache__/*.nbi` and `*.nbc` files) or touch the kernel modules.
EXPANDED = 0
GENERATED = 1
MAX_FRONTIER = 2
FOUND = 3  # what a solved search found (a cell, a direction), family-defined
FIRST_FAMILY_SLOT = 4


@njit(cache=True, nogil=True, inline="always")
def save_counters(state, expanded, generated, max_frontier):
    """Store a kernel's running counts in its state array, at the end of a call."""
    state[EXPANDED] = expanded
    state[GENERATED] = generated
    state[MAX_FRONTIER] = max_frontier


def reset_state(state: np.ndarray) -> np.ndarray:
    """`state` (int64) set for a new search: zeros, the start generated and on the frontier."""
    state[:] = 0
    state[GENERATED] = 1
    state[MAX_FRONTIER] = 1
    return state


class Kernel:
    """A compiled search in progress; `state` is its state array (see the layout above)."""

    state: np.ndarray

    def step(self, allowed: int) -> int:
        """Run the kernel for at most `allowed` more expansions; returns its status code."""
        raise NotImplementedError

    def grow(self) -> None:
        """Enlarge the frontier arrays after the kernel returned GROW."""
        raise NotImplementedError

    def exhausted_limit(self) -> LimitKind | None:
        """The limit to report when the search ran out of nodes (a depth limit that cut some)."""
        return None

    def held(self) -> int:
        """The states the search holds now (what `Budget.max_held` bounds); by default the
        nodes expanded, the closed set of a search whose other arrays are sized in advance."""
        return int(self.state[EXPANDED])

    def bound(self) -> int:
        """The current bound of an iterative search (IDA*'s f bound), else 0."""
        return 0


@dataclass(slots=True)
class KernelRun:
    """How a chunked search ended and what it counted."""

    status: SearchStatus
    limit: LimitKind | None
    nodes_expanded: int
    nodes_generated: int
    max_frontier: int
    found: int
    nodes_held: int


def run(kernel: Kernel, budget: Budget | None, chunk: int) -> KernelRun:
    """Run `kernel` to the end in chunks of at most `chunk` expansions, within `budget`."""
    state = kernel.state
    max_nodes = None if budget is None else budget.max_nodes
    max_held = None if budget is None else budget.max_held
    progress = None if budget is None else budget.progress
    limit: LimitKind | None = None
    peak_held = 0
    while True:
        expanded = int(state[EXPANDED])
        held = kernel.held()
        peak_held = max(peak_held, held)
        if progress is not None:
            progress.record(expanded, int(state[GENERATED]), held, int(state[MAX_FRONTIER]))
            progress.bound = kernel.bound()
        if budget is not None:
            limit = budget.exceeded(expanded, held)
            if limit is not None:
                break
        allowed = chunk if max_nodes is None else min(chunk, max_nodes - expanded)
        if max_held is not None:
            # A search holding what it expanded stops exactly at the limit, whatever its
            # arrays' growth did to the chunks; one holding more per expansion within a chunk.
            allowed = min(allowed, max(1, max_held - held))
        code = kernel.step(allowed)
        if code == GROW:
            kernel.grow()
        elif code != PAUSED:
            break
    if limit is not None:
        status = SearchStatus.LIMIT_REACHED
    elif code == SOLVED:
        status = SearchStatus.SOLVED
    else:
        limit = kernel.exhausted_limit()
        status = SearchStatus.NO_SOLUTION if limit is None else SearchStatus.LIMIT_REACHED
    return KernelRun(
        status=status,
        limit=limit,
        nodes_expanded=int(state[EXPANDED]),
        nodes_generated=int(state[GENERATED]),
        max_frontier=int(state[MAX_FRONTIER]),
        found=int(state[FOUND]),
        nodes_held=max(peak_held, kernel.held()),
    )
