"""`grid-planner puzzle`: solve one sliding-tile board and show every move."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from grid_planner.puzzle import PuzzleOutcome, PuzzleStatus, format_board, solve
from grid_planner.puzzle.compiled_idastar import warm_once
from grid_planner.puzzle.messages import moves_text
from grid_planner.puzzle.solver import runs_compiled
from grid_planner.puzzle.tables import Setup, cancel_builds

from .animate import write_puzzle_gif
from .output import (
    EXIT_BAD_INPUT,
    EXIT_NO_RESULT,
    EXIT_OK,
    error_line,
    failure_line,
    ms,
    print_json,
    quality_words,
    warm_kernels,
)
from .parser import puzzle_budget
from .progress import table_build_bars


def joined(values: Sequence[str] | None) -> str | None:
    """Command-line tokens as one board text (None when absent)."""
    return " ".join(values) if values else None


def _solution_text(outcome: PuzzleOutcome) -> str:
    name = outcome.algorithm + (f" with {outcome.heuristic}" if outcome.heuristic else "")
    if outcome.auto:
        name += " (auto)"
    quality = quality_words("optimal: no shorter solution exists" if outcome.optimal else None,
                            outcome.algorithm, "solutions")
    lines = [
        f"{name}: solved in {moves_text(outcome.length)} ({quality})",
        *([f"note: {outcome.fallback}"] if outcome.fallback else []),
        f"moves of the blank: {' '.join(outcome.moves) if outcome.moves else '(none)'}",
        "",
    ]
    boards = outcome.boards()
    for step, board in enumerate(boards):
        lines.append("start" if step == 0 else f"move {step}: {outcome.moves[step - 1]}")
        lines.append(format_board(board, outcome.side))
        lines.append("")
    lines.append(
        f"length {outcome.length} moves; optimal {'yes' if outcome.optimal else 'no'}; "
        f"nodes expanded {outcome.nodes_expanded:,}, generated {outcome.nodes_generated:,}; "
        f"peak frontier {outcome.max_frontier:,}, states held {outcome.nodes_held:,}; "
        f"time {ms(outcome.planning_time)}"
        + (f" (+ setup {ms(outcome.setup_time)})" if outcome.setup_time >= 0.001 else "")
    )
    return "\n".join(lines)


def run_puzzle(args: argparse.Namespace) -> int:
    """`grid-planner puzzle`: exit 0 solved, 1 unsolvable or limit reached, 2 invalid input.

    A heuristic table built on the way shows a progress bar; Ctrl-C cancels it.
    """
    setup = Setup(timeout=args.setup_timeout or None)
    if runs_compiled(args.algorithm):
        warm_kernels(warm_once)
    try:
        with table_build_bars():
            outcome = solve(
                joined(args.board), joined(args.goal), args.algorithm, args.heuristic,
                args.max_depth, puzzle_budget(args), setup=setup,
            )
    except KeyboardInterrupt:
        cancel_builds()
        raise
    # The GIF is written before anything is printed, so a path it cannot take gives one answer.
    gif_line = write_puzzle_gif(outcome, args.gif) if args.gif and outcome.success else None
    if args.json:
        print_json(outcome.to_dict())
    if outcome.status in (PuzzleStatus.INVALID_BOARD, PuzzleStatus.INVALID_REQUEST):
        error_line(f"{outcome.status.name}: {outcome.message}")
        return EXIT_BAD_INPUT
    if not outcome.success:
        if not args.json:
            expanded = None if outcome.result is None else outcome.nodes_expanded
            error_line(failure_line(outcome.status.name, outcome.message, expanded))
        return EXIT_NO_RESULT
    if not args.json:
        print(_solution_text(outcome))
        if gif_line:
            print(gif_line)
    return EXIT_OK
