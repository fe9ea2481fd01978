"""The one entry point for solving a sliding puzzle: `solve`, plus `compare` for benchmarks.

`solve` never raises for bad input: it answers with a `PuzzleOutcome` whose `status` is one of
the SolvePuzzle codes (SOLVED=0, UNSOLVABLE=1, INVALID_BOARD=2, INVALID_REQUEST=3,
LIMIT_REACHED=4) and whose `message` says why, so the ROS node and the CLI only translate.

>>> outcome = solve("1 2 3 4 0 6 7 5 8")
>>> outcome.status.name, outcome.moves, outcome.optimal
('SOLVED', ['Down', 'Right'], True)

The algorithms are those the registry (`grid_planner.search.registry`) offers for the puzzle.
IDA* with `manhattan`, `table` or `pdb` runs compiled (`compiled_idastar`, the registry's puzzle
kernel) when numba is available, with the same results and counts as the reference
`grid_planner.search.idastar`; everything else runs on the reference algorithms. `table` and
`pdb` build or load their tables on first use (seconds for the 15-puzzle's pattern database);
`prepare` does that ahead of time and `warm_up` compiles the kernels, so a server can pay both
at start-up.
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Callable
from dataclasses import dataclass, field

from ..jit.backend import BackendError, check_backend, resolve_backend
from ..report import RunReport
from ..search import Budget, LimitKind, SearchResult, SearchStatus
from ..search.registry import PUZZLE, AlgorithmInfo, domain_algorithms, offered
from .board import (
    BoardLike,
    InvalidBoardError,
    InvalidRequestError,
    board_side,
    inversions,
    is_solvable,
    parse_board,
    parse_goal,
    replay_boards,
)
from .compiled_idastar import FAST_HEURISTIC_KINDS, fast_idastar
from .heuristics import CLASSIC_HEURISTICS
from .problem import PuzzleProblem
from .resolve import check_heuristic, resolve_heuristic

DEFAULT_ALGORITHM = "astar"
DEFAULT_HEURISTIC = "manhattan"
# The registry's puzzle algorithms, in the order `compare` runs them.
PUZZLE_ALGORITHMS = domain_algorithms(PUZZLE)
IDASTAR_FALLBACK = "IDA* runs on the reference implementation, far slower"
# Default dfs/iddfs depth limits when max_depth is 0: the diameters of the 2x2, 3x3 and 4x4
# puzzles (every solvable board is solvable within them, so the limit never hides the only
# solutions). No diameter is known for larger boards; they get side**3, an arbitrary bound.
KNOWN_DIAMETERS = {2: 6, 3: 31, 4: 80}


def default_depth_limit(side: int) -> int:
    """The dfs/iddfs depth limit used when a request gives max_depth 0."""
    return KNOWN_DIAMETERS.get(side, side**3)


class PuzzleStatus(enum.IntEnum):
    """How a solve request ended; the values are SolvePuzzle's status codes."""

    SOLVED = 0
    UNSOLVABLE = 1
    INVALID_BOARD = 2
    INVALID_REQUEST = 3
    LIMIT_REACHED = 4


@dataclass
class PuzzleOutcome:
    """The answer to one solve request, with the search's evidence.

    `moves` are the blank's moves from `board` to `goal`; `planning_time` is the search
    alone (0 when no search ran). `result` is the underlying SearchResult (None when the
    request was refused or the board is unsolvable); `backend` what ran it.
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
        the moves and the boards."""
        return {
            **self.report().to_dict(),
            "status_code": int(self.status),
            "success": self.success,
            "moves": list(self.moves),
            "board": list(self.board),
            "goal": list(self.goal),
        }


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool):
        raise InvalidRequestError(f"{name} must be an integer >= 0, got {value!r}")
    try:
        number = operator.index(value)
    except TypeError:
        raise InvalidRequestError(f"{name} must be an integer >= 0, got {value!r}") from None
    if number < 0:
        raise InvalidRequestError(f"{name} must be >= 0, got {number}")
    return number


def _check_request(
    info: AlgorithmInfo | None, algorithm: str, heuristic: str, max_depth: object,
    budget: Budget | None,
) -> int:
    if info is None:
        raise InvalidRequestError(
            f"unknown algorithm {algorithm!r}; algorithms are {', '.join(PUZZLE_ALGORITHMS)}"
        )
    check_heuristic(heuristic)
    depth = _check_count("max_depth", max_depth)
    if budget is not None:
        if budget.max_nodes is not None:
            _check_count("max_nodes", budget.max_nodes)
        if budget.max_depth is not None:
            _check_count("budget max_depth", budget.max_depth)
    return depth


def _unsolvable_reason(board: tuple[int, ...], goal: tuple[int, ...], side: int) -> str:
    def parity(tiles):
        return "odd" if tiles % 2 else "even"

    if side % 2:
        return (
            f"board is unsolvable: its inversion count ({inversions(board)}, "
            f"{parity(inversions(board))}) and the goal's ({inversions(goal)}, "
            f"{parity(inversions(goal))}) differ in parity, which no move changes"
        )
    board_sum = inversions(board) + board.index(0) // side
    goal_sum = inversions(goal) + goal.index(0) // side
    return (
        f"board is unsolvable: inversions + blank row is {board_sum} ({parity(board_sum)}) "
        f"but {goal_sum} ({parity(goal_sum)}) for the goal, and no move changes that parity"
    )


def _limit_message(result: SearchResult, budget: Budget | None, depth: int | None) -> str:
    kind = result.limit
    if kind is LimitKind.MAX_NODES:
        cap = budget.max_nodes if budget else None
        return f"node budget exhausted: {result.nodes_expanded} nodes expanded (max_nodes {cap})"
    if kind is LimitKind.MAX_DEPTH:
        return f"no solution within the depth limit of {depth} moves"
    if kind is LimitKind.DEADLINE:
        return f"time limit reached after {result.elapsed:.3f} s of search"
    if kind is LimitKind.CANCELLED:
        return "search cancelled"
    return "search stopped by a limit"


def solve(
    board: BoardLike,
    goal: BoardLike | None = None,
    algorithm: str = DEFAULT_ALGORITHM,
    heuristic: str = DEFAULT_HEURISTIC,
    max_depth: int = 0,
    budget: Budget | None = None,
    *,
    backend: str = "auto",
) -> PuzzleOutcome:
    """Solve the puzzle `board` -> `goal` (None or empty: 1..n*n-1 then 0) with `algorithm`.

    Empty `algorithm`/`heuristic` mean the defaults (astar, manhattan). `heuristic` is used by
    astar and idastar only; `table`/`pdb` fall back to linear_conflict where no table exists
    (the message says so). `max_depth` limits dfs and iddfs (0: `default_depth_limit`, e.g.
    31 for 3x3). `budget` bounds nodes, time and allows cancelling. Unsolvable boards are
    answered from the parity test before any search, with zero nodes. `backend` (one of
    `grid_planner.jit.backend.BACKENDS`) chooses between the compiled and the reference IDA*.
    Building a table on first use is not part of `planning_time`.
    """
    algorithm = algorithm or DEFAULT_ALGORITHM
    heuristic = heuristic or DEFAULT_HEURISTIC
    try:
        tiles = parse_board(board)
    except InvalidBoardError as error:
        return PuzzleOutcome(PuzzleStatus.INVALID_BOARD, str(error), algorithm=algorithm)
    side = board_side(tiles)
    info = offered(PUZZLE, algorithm)
    informed = info is not None and info.informed
    outcome = PuzzleOutcome(
        PuzzleStatus.INVALID_REQUEST, "", board=tiles, side=side, algorithm=algorithm,
        heuristic=heuristic if informed else "",
    )
    try:
        outcome.goal = parse_goal(goal, side)
        depth = _check_request(info, algorithm, heuristic, max_depth, budget)
        check_backend(backend)
    except (InvalidRequestError, BackendError) as error:
        outcome.message = str(error)
        return outcome
    if not is_solvable(tiles, outcome.goal):
        outcome.status = PuzzleStatus.UNSOLVABLE
        outcome.message = _unsolvable_reason(tiles, outcome.goal, side)
        return outcome

    resolved = resolve_heuristic(heuristic if informed else DEFAULT_HEURISTIC, bytes(outcome.goal))
    note = f"; {heuristic}: {resolved.note}" if informed and resolved.note else ""
    depth_limit = None
    has_kernel = info.kernel(PUZZLE) is not None and resolved.kind in FAST_HEURISTIC_KINDS
    outcome.backend = resolve_backend(backend, has_kernel, IDASTAR_FALLBACK)
    if outcome.backend == "numba":
        result = fast_idastar(bytes(tiles), resolved, budget)
    else:
        problem = PuzzleProblem(tiles, outcome.goal, resolved)
        options = {}
        if info.depth_option:
            depth_limit = depth or default_depth_limit(side)
            if budget is not None and budget.max_depth is not None:
                depth_limit = min(depth_limit, budget.max_depth)
            options = {info.depth_option: depth_limit}
        result = info(problem, budget, **options)

    outcome.result = result
    if result.status is SearchStatus.SOLVED:
        outcome.status = PuzzleStatus.SOLVED
        outcome.moves = list(result.actions)
        quality = "optimal" if result.optimal else f"not guaranteed shortest with {algorithm}"
        outcome.message = f"solved in {result.length} moves ({quality}){note}"
    elif result.status is SearchStatus.LIMIT_REACHED:
        outcome.status = PuzzleStatus.LIMIT_REACHED
        outcome.message = _limit_message(result, budget, depth_limit) + note
    else:  # the parity test said solvable, so an exhausted search means a broken invariant
        outcome.status = PuzzleStatus.UNSOLVABLE
        outcome.message = f"{algorithm} exhausted every reachable board without reaching the goal"
    return outcome


def per_run_budget(
    timeout: float | None = 10.0, max_nodes: int | None = 200_000
) -> Callable[[], Budget]:
    """A budget factory for `compare`: each run gets a deadline `timeout` s after it starts."""

    def fresh() -> Budget:
        return Budget.from_timeout(timeout, max_nodes=max_nodes)

    return fresh


def compare(
    board: BoardLike,
    goal: BoardLike | None = None,
    budget_per_run: Budget | Callable[[], Budget] | None = None,
    *,
    algorithms: tuple[str, ...] = PUZZLE_ALGORITHMS,
    heuristics: tuple[str, ...] = CLASSIC_HEURISTICS,
    max_depth: int = 0,
) -> list[PuzzleOutcome]:
    """Solve `board` with every algorithm (informed ones once per heuristic), one outcome each.

    The default heuristics are the classic ones, which need no table; pass
    `heuristics=HEURISTICS` to include `table` and `pdb`.

    `budget_per_run` is a Budget shared by all runs (mind a shared deadline) or a factory
    called before each run; None means `per_run_budget()` (10 s, 200,000 expansions per run),
    so hopeless runs (BFS or IDDFS on a hard 15-puzzle) come back LIMIT_REACHED.
    """
    make_budget = per_run_budget() if budget_per_run is None else budget_per_run
    outcomes = []
    for algorithm in algorithms:
        info = offered(PUZZLE, algorithm)
        informed = info is not None and info.informed
        for heuristic in heuristics if informed else (DEFAULT_HEURISTIC,):
            budget = make_budget() if callable(make_budget) else make_budget
            outcomes.append(solve(board, goal, algorithm, heuristic, max_depth, budget))
    return outcomes

