"""The one result object that every search returns, and the budget that bounds a search."""

from __future__ import annotations

import enum
import math
import numbers
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field


class SearchStatus(enum.Enum):
    """How a search ended."""

    SOLVED = "solved"
    NO_SOLUTION = "no_solution"
    LIMIT_REACHED = "limit_reached"


class LimitKind(enum.Enum):
    """Which budget stopped a search that ended with LIMIT_REACHED."""

    MAX_NODES = "max_nodes"
    MEMORY = "memory"
    MAX_DEPTH = "max_depth"
    DEADLINE = "deadline"
    CANCELLED = "cancelled"


@dataclass(slots=True)
class SearchProgress:
    """A running search's counters, for another thread to read (feedback, progress logs).

    The search writes them at its clock checks (`CLOCK_CHECK_INTERVAL` expansions apart, or
    between the chunks of a compiled kernel); a reader sees a recent, not a current, state.
    `bound` is the current f bound of IDA* or depth limit of IDDFS (0 for the others).
    """

    nodes_expanded: int = 0
    nodes_generated: int = 0
    nodes_held: int = 0
    frontier: int = 0
    bound: int = 0

    def record(self, expanded: int, generated: int, held: int, frontier: int) -> None:
        """Store the search's counts now."""
        self.nodes_expanded = expanded
        self.nodes_generated = generated
        self.nodes_held = held
        self.frontier = frontier


@dataclass(frozen=True)
class Budget:
    """Bounds on one search, all optional.

    `deadline` is a `time.monotonic()` instant (a steady clock: simulated time may pause).
    `max_nodes` bounds the nodes expanded. `max_held` bounds the memory a search holds, in
    states: open + closed sets (A*, uniform-cost, BFS, bidirectional BFS), the states a
    depth-first pass remembers, the path (IDA*); a search stops before an expansion once it
    holds that many. `cancel` is set by another thread (a ROS callback) to stop the search
    early. `max_depth` bounds the path length of the depth-first searches (dfs, iddfs); the
    others ignore it. `progress`, when given, receives the search's counts as it runs.
    """

    max_nodes: int | None = None
    max_depth: int | None = None
    deadline: float | None = None
    cancel: threading.Event | None = None
    max_held: int | None = None
    progress: SearchProgress | None = None

    def __post_init__(self) -> None:
        """ValueError naming the bound that is not a count (or, for the deadline, a time)."""
        for name in ("max_nodes", "max_depth", "max_held"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0
            ):
                raise ValueError(f"{name} must be a whole number >= 0 or None, got {value!r}")
        if self.deadline is not None and math.isnan(self.deadline):
            raise ValueError("deadline must be a time.monotonic() instant or None, got nan")

    @classmethod
    def from_timeout(
        cls,
        timeout: float | None = None,
        max_nodes: int | None = None,
        max_depth: int | None = None,
        cancel: threading.Event | None = None,
        max_held: int | None = None,
        progress: SearchProgress | None = None,
    ) -> Budget:
        """A budget whose deadline is `timeout` seconds from now (None: no deadline)."""
        if timeout is not None and not timeout >= 0.0:  # NaN fails this too
            raise ValueError(f"timeout must be >= 0 seconds or None, got {timeout!r}")
        deadline = None if timeout is None else time.monotonic() + timeout
        return cls(
            max_nodes=max_nodes, max_depth=max_depth, deadline=deadline, cancel=cancel,
            max_held=max_held, progress=progress,
        )

    def exceeded(self, nodes_expanded: int, nodes_held: int = 0) -> LimitKind | None:
        """The limit that `nodes_expanded`, `nodes_held` (or the clock, or a cancel) has hit."""
        if self.max_nodes is not None and nodes_expanded >= self.max_nodes:
            return LimitKind.MAX_NODES
        if self.max_held is not None and nodes_held >= self.max_held:
            return LimitKind.MEMORY
        return self.clock_exceeded()

    def clock_exceeded(self) -> LimitKind | None:
        """CANCELLED or DEADLINE when one of them has struck, else None.

        Kept apart from the node count because reading the clock costs far more than comparing
        two ints: the algorithms count nodes every expansion and call this only every
        `CLOCK_CHECK_INTERVAL` expansions.
        """
        if self.cancel is not None and self.cancel.is_set():
            return LimitKind.CANCELLED
        if self.deadline is not None and time.monotonic() >= self.deadline:
            return LimitKind.DEADLINE
        return None

    @property
    def clocked(self) -> bool:
        """Whether a deadline or a cancel flag needs watching at all."""
        return self.deadline is not None or self.cancel is not None


def checked_budget(budget: object) -> Budget | None:
    """`budget` when it is a Budget or None; TypeError otherwise (a string budget failed deep
    inside a search with an AttributeError)."""
    if budget is None or isinstance(budget, Budget):
        return budget
    raise TypeError(f"budget must be a Budget or None, got {budget!r}")


@dataclass
class SearchResult:
    """Everything a search found, with the evidence for comparing algorithms.

    `states` runs from the start to the goal inclusive (empty unless SOLVED); `actions` has one
    entry fewer. Both are lists, except on the grid, where they are NumPy arrays (flat cell
    indices, direction names): a path of tens of thousands of cells is not turned into as
    many Python objects that nobody reads. `optimal` is true only for a SOLVED result from an
    algorithm that guarantees a least-cost answer. `limit` says which budget ended a
    LIMIT_REACHED search. `nodes_held` is the most states the search held in memory at once
    (what `Budget.max_held` bounds).
    """

    algorithm: str
    status: SearchStatus
    states: Sequence = field(default_factory=list)
    actions: Sequence = field(default_factory=list)
    cost: float = 0.0
    nodes_expanded: int = 0
    nodes_generated: int = 0
    max_frontier: int = 0
    elapsed: float = 0.0
    optimal: bool = False
    limit: LimitKind | None = None
    nodes_held: int = 0

    @classmethod
    def ended(
        cls,
        algorithm: str,
        status: SearchStatus,
        started: float,
        counts: tuple[int, ...],
        states: Sequence = (),
        actions: Sequence = (),
        cost: float = 0.0,
        limit: LimitKind | None = None,
        guarantees_optimal: bool = True,
    ) -> SearchResult:
        """The result of a search that began at `perf_counter()` time `started` and ends now.

        `counts` are (nodes_expanded, nodes_generated, max_frontier, nodes_held), the last
        optional (0); `optimal` is set when the search SOLVED and `guarantees_optimal` holds
        for this algorithm and problem, or the start itself is a goal (no shorter path exists,
        whatever the algorithm).
        """
        expanded, generated, max_frontier = counts[:3]
        states = list(states)
        return cls(
            algorithm=algorithm,
            status=status,
            states=states,
            actions=list(actions),
            cost=cost,
            nodes_expanded=expanded,
            nodes_generated=generated,
            max_frontier=max_frontier,
            elapsed=time.perf_counter() - started,
            optimal=status is SearchStatus.SOLVED and (guarantees_optimal or len(states) == 1),
            limit=limit,
            nodes_held=counts[3] if len(counts) > 3 else 0,
        )

    @property
    def solved(self) -> bool:
        """Whether a path was found."""
        return self.status is SearchStatus.SOLVED

    @property
    def length(self) -> int:
        """The number of steps (actions) in the found path."""
        return len(self.actions)
