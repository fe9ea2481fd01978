"""What a solve answers: its status (SolvePuzzle's codes), its outcome with the search's
evidence, and the progress a running solve shows another thread."""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field

from ..report import RunReport
from ..search import LimitKind, SearchProgress, SearchResult
from .board import replay_boards


class PuzzleStatus(enum.IntEnum):
    """How a solve request ended; the values are SolvePuzzle's status codes."""

    SOLVED = 0
    UNSOLVABLE = 1
    INVALID_BOARD = 2
    INVALID_REQUEST = 3
    LIMIT_REACHED = 4


@dataclass
class SolveProgress:
    """What a running solve is doing, for another thread to read (an action's feedback).

    `phase` is what the caller says before the solve starts (e.g. "queued"), then "setup"
    (getting its table ready), "search" and "done"; `search` holds the search's counts
    (written by it as it runs).
    """

    phase: str = "setup"
    setup_began: float = 0.0
    setup_time: float = 0.0
    search_began: float = 0.0
    search: SearchProgress = field(default_factory=SearchProgress)

    @property
    def setup_elapsed(self) -> float:
        """Seconds of set-up so far (all of it once the search has started)."""
        if self.phase == "setup" and self.setup_began:
            return time.monotonic() - self.setup_began
        return self.setup_time

    @property
    def elapsed(self) -> float:
        """Seconds of search so far (0 before it starts)."""
        return time.monotonic() - self.search_began if self.phase == "search" else 0.0


@dataclass
class PuzzleOutcome:
    """The answer to one solve request, with the search's evidence.

    `moves` are the blank's moves from `board` to `goal`; `planning_time` is the search
    alone (0 when no search ran), `setup_time` the seconds spent getting its heuristic table
    ready before it (built, loaded, or waited for) and, on a process's first compiled solve,
    loading the compiled search (the message notes a set-up only for its table part).
    `algorithm` and `heuristic` are what ran; `auto` names those that `auto` chose;
    `fallback` says why the heuristic that ran is not the one asked for, or that an
    uninformed algorithm leaves a named one unread ("" when it is the one asked for).
    `result` is the underlying SearchResult (None when the request was refused or the board
    is unsolvable); `backend` what ran it.
    """

    status: PuzzleStatus
    message: str
    board: tuple[int, ...] = ()
    goal: tuple[int, ...] = ()
    side: int = 0
    algorithm: str = ""
    heuristic: str = ""
    moves: list[str] = field(default_factory=list)
    result: SearchResult | None = None
    backend: str = ""
    setup_time: float = 0.0
    auto: tuple[str, ...] = ()
    fallback: str = ""

    @property
    def success(self) -> bool:
        """Whether a solution was found."""
        return self.status is PuzzleStatus.SOLVED

    @property
    def length(self) -> int:
        """The number of moves in the solution (0 if none)."""
        return len(self.moves)

    @property
    def optimal(self) -> bool:
        """Whether the solution is guaranteed to be the shortest."""
        return self.result is not None and self.result.optimal

    @property
    def nodes_expanded(self) -> int:
        """Nodes the search expanded (0 when none ran)."""
        return self.result.nodes_expanded if self.result is not None else 0

    @property
    def nodes_generated(self) -> int:
        """Nodes the search generated (0 when none ran)."""
        return self.result.nodes_generated if self.result is not None else 0

    @property
    def max_frontier(self) -> int:
        """The largest frontier the search held (0 when none ran)."""
        return self.result.max_frontier if self.result is not None else 0

    @property
    def nodes_held(self) -> int:
        """The most states the search held in memory at once (0 when none ran)."""
        return self.result.nodes_held if self.result is not None else 0

    @property
    def planning_time(self) -> float:
        """Seconds of the search alone (0 when none ran)."""
        return self.result.elapsed if self.result is not None else 0.0

    @property
    def limit(self) -> LimitKind | None:
        """The budget that stopped the search, if one did."""
        return self.result.limit if self.result is not None else None

    def boards(self) -> list[tuple[int, ...]]:
        """Every board from the start to the goal along `moves` (empty if unsolved)."""
        return replay_boards(self.board, self.moves, self.side) if self.success else []

    def report(self) -> RunReport:
        """The answer as a RunReport (cost in moves)."""
        return RunReport.of(
            self.result, status=self.status.name, algorithm=self.algorithm,
            heuristic=self.heuristic, backend=self.backend, message=self.message,
        )

    def to_dict(self) -> dict:
        """The outcome as plain JSON-ready values (the CLI's `--json`): the report, the code,
        the memory held, the set-up time, what `auto` chose, the moves and the boards."""
        return {
            **self.report().to_dict(),
            "status_code": int(self.status),
            "success": self.success,
            "nodes_held": self.nodes_held,
            "setup_time": self.setup_time,
            "auto": list(self.auto),
            "fallback": self.fallback,
            "moves": list(self.moves),
            "board": list(self.board),
            "goal": list(self.goal),
        }
