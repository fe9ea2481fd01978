"""The one entry point for solving a sliding puzzle: `solve`, plus `compare` for benchmarks.

`solve` never raises for bad input: it answers with a `PuzzleOutcome` whose `status` is one of
the SolvePuzzle codes (SOLVED=0, UNSOLVABLE=1, INVALID_BOARD=2, INVALID_REQUEST=3,
LIMIT_REACHED=4) and whose `message` says why, so the ROS node and the CLI only translate.

>>> outcome = solve("1 2 3 4 0 6 7 5 8")
>>> outcome.status.name, outcome.moves, outcome.optimal, outcome.algorithm, outcome.heuristic
('SOLVED', ['Down', 'Right'], True, 'idastar', 'table')

`auto` (the default, also for empty names) picks the fastest optimal solver the board allows
(`choose`): IDA* with the exact table on boards up to 3x3, with the 6-6-3 pattern database on
4x4 goals with the blank in a corner, elsewhere with manhattan on the compiled kernel (with
linear_conflict, which has no compiled form, where numba is missing). The algorithms are those
the registry (`grid_planner.search.registry`) offers for the puzzle. IDA* with `manhattan`,
`table` or `pdb` runs compiled (`compiled_idastar`, the registry's puzzle kernel) when numba
is available, with the same results and counts as the reference `grid_planner.search.idastar`;
everything else runs on the reference algorithms. `table` and `pdb` build or load their tables
on first use (seconds for the 15-puzzle's pattern database, `setup_time`), bounded by their own
`Setup`, never by the search's deadline; `prepare` does that ahead of time and `warm_up`
compiles the kernels, so a server can pay both at start-up (else a process's first compiled
solve loads the kernels in its set-up, so no planning time pays for that).
"""

from __future__ import annotations

import dataclasses
import math
import operator
import time

from ..jit import NUMBA_AVAILABLE
from ..jit.backend import BackendError, check_backend, resolve_backend
from ..search import (
    DEPTH_LIMIT_BOUND,
    DEPTH_LIMIT_WORDS,
    Budget,
    SearchResult,
    SearchStatus,
)
from ..search.registry import PUZZLE, AlgorithmInfo, domain_algorithms, offered
from ..search.result import checked_budget
from .board import (
    BoardLike,
    InvalidBoardError,
    InvalidRequestError,
    board_side,
    is_solvable,
    parse_board,
    parse_goal,
)
from .compiled_idastar import FAST_HEURISTIC_KINDS, fast_idastar, warm_once
from .messages import limit_message, moves_text, unsolvable_reason
from .outcome import PuzzleOutcome, PuzzleStatus, SolveProgress
from .problem import PuzzleProblem
from .resolve import best_heuristic, check_heuristic, heuristic_kind, resolve_heuristic
from .tables import Setup, SetupStoppedError

AUTO = "auto"
DEFAULT_ALGORITHM = AUTO
DEFAULT_HEURISTIC = AUTO
# The algorithm `auto` runs: optimal, memory O(depth), compiled with the table heuristics.
AUTO_ALGORITHM = "idastar"
# What uninformed algorithms are given as a heuristic (they never read it).
_UNUSED_HEURISTIC = "manhattan"
# The registry's puzzle algorithms, in the order `compare` runs them.
PUZZLE_ALGORITHMS = domain_algorithms(PUZZLE)
IDASTAR_FALLBACK = "IDA* runs on the reference implementation, far slower"
# Default dfs/iddfs depth limits when max_depth is 0: the diameters of the 2x2, 3x3 and 4x4
# puzzles (every solvable board is solvable within them, so the limit never hides the only
# solutions). No diameter is known for larger boards; they get side**3, an arbitrary bound.
KNOWN_DIAMETERS = {2: 6, 3: 31, 4: 80}
# A solve's default limits (puzzle_node's default_timeout, max_nodes and setup_timeout, the
# CLI's --timeout, --max-nodes and --setup-timeout): seconds of search, states held at once,
# and seconds to wait for a heuristic table.
DEFAULT_SOLVE_TIMEOUT = 10.0
DEFAULT_SOLVE_MAX_HELD = 1_000_000
DEFAULT_SETUP_TIMEOUT = 120.0
# Set-up below this many seconds (a table already in memory) is not mentioned in the message.
_NOTABLE_SETUP_S = 0.01


def runs_compiled(algorithm: str) -> bool:
    """Whether `algorithm` ("" and auto: what auto runs) has a compiled puzzle kernel, which
    its first run in a process loads."""
    info = offered(PUZZLE, AUTO_ALGORITHM if algorithm in ("", AUTO) else algorithm)
    return info is not None and info.kernel(PUZZLE) is not None


def default_depth_limit(side: int) -> int:
    """The dfs/iddfs depth limit used when a request gives max_depth 0."""
    return KNOWN_DIAMETERS.get(side, side**3)


def choose(
    algorithm: str, heuristic: str, goal: bytes, compiled: bool = False
) -> tuple[str, str, tuple[str, ...]]:
    """(algorithm, heuristic, the names `auto` chose) for a request; empty means auto.

    `auto` as the algorithm is IDA*; `auto` as the heuristic is the strongest one for the goal
    (`best_heuristic`), or "" for an uninformed algorithm; where that one has no compiled form
    (linear_conflict) and `compiled` (the kernel runs this request), `manhattan` on the
    compiled kernel instead: it expands 5-11x more nodes than linear_conflict on 5x5 boards but
    runs them 15-25x faster. Explicit names are kept as given.
    """
    chosen = []
    if algorithm in ("", AUTO):
        algorithm = AUTO_ALGORITHM
        chosen.append("algorithm")
    info = offered(PUZZLE, algorithm)
    if heuristic in ("", AUTO):
        heuristic = ""
        if info is not None and info.informed:
            heuristic = best_heuristic(goal)
            chosen.append("heuristic")
            if (compiled and info.kernel(PUZZLE) is not None
                    and heuristic not in FAST_HEURISTIC_KINDS):
                heuristic = "manhattan"
    return algorithm, heuristic, tuple(chosen)


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
    info: AlgorithmInfo | None, algorithm: str, heuristic: str, max_depth: object
) -> int:
    if info is None:
        raise InvalidRequestError(
            f"unknown algorithm {algorithm!r}; algorithms are {AUTO}, "
            f"{', '.join(PUZZLE_ALGORITHMS)}"
        )
    if heuristic:
        check_heuristic(heuristic)
    depth = _check_count("max_depth", max_depth)
    if depth >= DEPTH_LIMIT_BOUND:
        raise InvalidRequestError(f"max_depth must be below {DEPTH_LIMIT_WORDS}, got {depth}")
    return depth


def _route(info, resolved, backend: str) -> str:
    """The backend that runs this search: "numba" (the compiled kernel) or "reference"."""
    has_kernel = info.kernel(PUZZLE) is not None and resolved.kind in FAST_HEURISTIC_KINDS
    return resolve_backend(backend, has_kernel, IDASTAR_FALLBACK)


def _search(
    info, tiles, goal, resolved, depth, side, budget, backend
) -> tuple[SearchResult, int | None]:
    """Run the search on `backend` ("numba" or "reference"): its result and depth limit."""
    if backend == "numba":
        return fast_idastar(bytes(tiles), resolved, budget), None
    problem = PuzzleProblem(tiles, goal, resolved)
    options = {}
    depth_limit = None
    if info.depth_option:
        depth_limit = depth or default_depth_limit(side)
        if budget is not None and budget.max_depth is not None:
            depth_limit = min(depth_limit, budget.max_depth)
        if depth_limit >= math.factorial(side * side) // 2 - 1:
            # No path that repeats no board is longer, so the limit cuts nothing; searched
            # without it (the budget's too), DFS never expands a board twice (with one of
            # 181,440 on 3x3 it expanded boards again whenever it reached them higher, for
            # minutes).
            depth_limit = None
            if budget is not None:
                budget = dataclasses.replace(budget, max_depth=None)
        options = {info.depth_option: depth_limit}
    return info(problem, budget, **options), depth_limit


def _after_setup(budget: Budget | None, seconds: float) -> Budget | None:
    """`budget` with its deadline moved by the set-up time: set-up never eats the search's."""
    if budget is None or budget.deadline is None or seconds <= 0.0:
        return budget
    return dataclasses.replace(budget, deadline=budget.deadline + seconds)


def solve(
    board: BoardLike,
    goal: BoardLike | None = None,
    algorithm: str = DEFAULT_ALGORITHM,
    heuristic: str = DEFAULT_HEURISTIC,
    max_depth: int = 0,
    budget: Budget | None = None,
    *,
    backend: str = "auto",
    setup: Setup | None = None,
    progress: SolveProgress | None = None,
) -> PuzzleOutcome:
    """Solve the puzzle `board` -> `goal` (None or empty: 1..n*n-1 then 0) with `algorithm`.

    `algorithm`/`heuristic` "auto" or empty: `choose` decides. `heuristic` is used by astar
    and idastar only; `table`/`pdb` where no such table exists run the nearest one (the exact
    table up to 3x3, else linear_conflict; `heuristic_kind`), and the outcome says so.
    `max_depth` limits dfs and iddfs (0: `default_depth_limit`, e.g. 31 for 3x3). `budget`
    bounds the search: `max_held` its memory in states (the user's
    `max_nodes`), `max_nodes` its expansions (the user's `max_expansions`), its deadline,
    cancelling. Getting a table ready is bounded by `setup` (its cancel defaults to the
    budget's) and moves the budget's deadline by the time it took. Unsolvable boards are
    answered from the parity test before any search, with zero nodes. `backend` (one of
    `grid_planner.jit.backend.BACKENDS`) chooses between the compiled and the reference IDA*.
    `progress`, when given, is kept up to date for another thread to read.
    """
    try:
        tiles = parse_board(board)
    except InvalidBoardError as error:
        return PuzzleOutcome(PuzzleStatus.INVALID_BOARD, str(error), algorithm=algorithm)
    side = board_side(tiles)
    outcome = PuzzleOutcome(
        PuzzleStatus.INVALID_REQUEST, "", board=tiles, side=side, algorithm=algorithm,
        heuristic=heuristic,
    )
    try:
        outcome.goal = parse_goal(goal, side)
        algorithm, heuristic, outcome.auto = choose(
            algorithm, heuristic, bytes(outcome.goal),
            compiled=NUMBA_AVAILABLE and backend in ("auto", "numba"),
        )
        outcome.algorithm, outcome.heuristic = algorithm, heuristic
        info = offered(PUZZLE, algorithm)
        depth = _check_request(info, algorithm, heuristic, max_depth)
        check_backend(backend)
        try:
            checked_budget(budget)
        except TypeError as error:
            raise InvalidRequestError(str(error)) from None
        if not info.informed:
            if heuristic:  # named (by the caller, or a node's default), not auto: unread
                outcome.fallback = (
                    f"{heuristic}: unused, {algorithm} is uninformed (it reads no heuristic)"
                )
            heuristic = outcome.heuristic = ""
        if heuristic:  # the answer names what runs, and why when it is not what was asked
            outcome.heuristic, note = heuristic_kind(heuristic, bytes(outcome.goal))
            outcome.fallback = f"{heuristic}: {note}" if note else ""
    except (InvalidRequestError, BackendError) as error:
        outcome.message = str(error)
        return outcome
    if not is_solvable(tiles, outcome.goal):
        outcome.status = PuzzleStatus.UNSOLVABLE
        outcome.message = unsolvable_reason(tiles, outcome.goal, side)
        return outcome

    progress = progress or SolveProgress()
    if budget is not None and setup is None:
        setup = Setup(cancel=budget.cancel)
    began = progress.setup_began = time.monotonic()
    progress.phase = "setup"
    try:
        resolved = resolve_heuristic(heuristic or _UNUSED_HEURISTIC, bytes(outcome.goal), setup)
    except SetupStoppedError as error:
        outcome.setup_time = progress.setup_time = time.monotonic() - began
        outcome.status = PuzzleStatus.LIMIT_REACHED
        outcome.message = str(error)
        outcome.result = SearchResult(algorithm, SearchStatus.LIMIT_REACHED, limit=error.limit)
        progress.phase = "done"
        return outcome
    outcome.backend = _route(info, resolved, backend)
    loading = warm_once() if outcome.backend == "numba" else 0.0
    outcome.setup_time = progress.setup_time = time.monotonic() - began
    budget = _after_setup(budget, outcome.setup_time)
    if budget is not None:
        budget = dataclasses.replace(budget, progress=progress.search)
    progress.search_began = time.monotonic()
    progress.phase = "search"
    result, depth_limit = _search(
        info, tiles, outcome.goal, resolved, depth, side, budget, outcome.backend
    )
    progress.phase = "done"
    outcome.result = result
    chose = " with ".join(name for name, part in ((algorithm, "algorithm"),
                                                  (outcome.heuristic, "heuristic"))
                          if part in outcome.auto)
    notes = "".join(
        f"; {text}" for text in (
            outcome.fallback,
            f"auto chose {chose}" if chose else "",
            f"setup {outcome.setup_time:.2f} s (tables ready, not counted in the timeout)"
            if outcome.setup_time - loading >= _NOTABLE_SETUP_S else "",
        ) if text
    )
    if result.status is SearchStatus.SOLVED:
        outcome.status = PuzzleStatus.SOLVED
        outcome.moves = list(result.actions)
        quality = "optimal" if result.optimal else f"not guaranteed shortest with {algorithm}"
        outcome.message = f"solved in {moves_text(result.length)} ({quality}){notes}"
    elif result.status is SearchStatus.LIMIT_REACHED:
        outcome.status = PuzzleStatus.LIMIT_REACHED
        outcome.message = limit_message(result, budget, depth_limit) + notes
    else:  # the parity test said solvable, so an exhausted search means a broken invariant
        outcome.status = PuzzleStatus.UNSOLVABLE
        outcome.message = f"{algorithm} exhausted every reachable board without reaching the goal"
    return outcome
