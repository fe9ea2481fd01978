"""Sliding-tile puzzles (n x n, any goal): boards, solvability, heuristics, and `solve`.

The ROS node and the CLI call `solve` (and `compare`); everything else is here for tests,
benchmarks and printing.
"""

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
from .heuristics import HEURISTICS, linear_conflict, manhattan, misplaced
from .problem import PuzzleProblem
from .solver import (
    DEFAULT_ALGORITHM,
    DEFAULT_HEURISTIC,
    PUZZLE_ALGORITHMS,
    PuzzleOutcome,
    PuzzleStatus,
    compare,
    default_depth_limit,
    per_run_budget,
    solve,
)

__all__ = [
    "DEFAULT_ALGORITHM",
    "DEFAULT_HEURISTIC",
    "HEURISTICS",
    "KORF_MOVE_ORDER",
    "MOVES",
    "PUZZLE_ALGORITHMS",
    "IllegalMoveError",
    "InvalidBoardError",
    "InvalidRequestError",
    "PuzzleError",
    "PuzzleOutcome",
    "PuzzleProblem",
    "PuzzleStatus",
    "apply_move",
    "compare",
    "default_depth_limit",
    "default_goal",
    "format_board",
    "inversions",
    "is_solvable",
    "linear_conflict",
    "manhattan",
    "misplaced",
    "parse_board",
    "parse_goal",
    "per_run_budget",
    "replay",
    "replay_boards",
    "solve",
]
