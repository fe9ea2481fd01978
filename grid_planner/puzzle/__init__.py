"""Sliding-tile puzzles (n x n, any goal): boards, solvability, heuristics, and `solve`.

The ROS node and the CLI call `solve` (and `compare`); everything else is here for tests,
benchmarks and printing. `board` holds the geometry, `heuristics` the classic heuristics,
`tables` the precomputed ones and `resolve` what a heuristic name means for a goal;
`compiled_idastar` is the compiled IDA* (its numba kernel in `idastar_kernel`), `messages` the
sentences of unsolved answers, `comparison` runs one board under every algorithm. `prepare`
builds or loads the tables of the `table` and `pdb` heuristics ahead of time and `warm_up`
compiles the IDA* kernel, for servers that would rather pay both at start-up than in their
first request.
"""

from grid_planner.jit import NUMBA_AVAILABLE
from grid_planner.jit.backend import BACKENDS

from .board import (
    KORF_MOVE_ORDER,
    MOVES,
    IllegalMoveError,
    InvalidBoardError,
    InvalidRequestError,
    PuzzleError,
    apply_move,
    default_goal,
    format_board,
    inversions,
    is_solvable,
    parse_board,
    parse_goal,
    replay,
    replay_boards,
)
from .comparison import compare, per_run_budget
from .compiled_idastar import fast_idastar, warm_up
from .heuristics import CLASSIC_HEURISTICS, linear_conflict, manhattan, misplaced
from .outcome import PuzzleOutcome, PuzzleStatus, SolveProgress
from .problem import PuzzleProblem
from .resolve import HEURISTICS, ResolvedHeuristic, heuristic_function, prepare, resolve_heuristic
from .solver import (
    AUTO,
    DEFAULT_ALGORITHM,
    DEFAULT_HEURISTIC,
    PUZZLE_ALGORITHMS,
    default_depth_limit,
    solve,
)
from .tables import AdditiveDatabase, ExactTable, additive_database, cache_dir, exact_table

__all__ = [
    "AUTO",
    "BACKENDS",
    "CLASSIC_HEURISTICS",
    "DEFAULT_ALGORITHM",
    "DEFAULT_HEURISTIC",
    "HEURISTICS",
    "KORF_MOVE_ORDER",
    "MOVES",
    "NUMBA_AVAILABLE",
    "PUZZLE_ALGORITHMS",
    "AdditiveDatabase",
    "ExactTable",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidRequestError",
    "PuzzleError",
    "PuzzleOutcome",
    "PuzzleProblem",
    "PuzzleStatus",
    "ResolvedHeuristic",
    "SolveProgress",
    "additive_database",
    "apply_move",
    "cache_dir",
    "compare",
    "default_depth_limit",
    "default_goal",
    "exact_table",
    "fast_idastar",
    "format_board",
    "heuristic_function",
    "inversions",
    "is_solvable",
    "linear_conflict",
    "manhattan",
    "misplaced",
    "parse_board",
    "parse_goal",
    "per_run_budget",
    "prepare",
    "replay",
    "replay_boards",
    "resolve_heuristic",
    "solve",
    "warm_up",
]
