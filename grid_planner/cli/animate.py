"""`grid-planner animate`: a GIF of searches on one map side by side; the puzzle's `--gif`."""

from __future__ import annotations

import argparse
from pathlib import Path

from grid_planner.puzzle import PuzzleOutcome

from .output import EXIT_OK, InputError, ms, warm_kernels
from .parser import budget_from
from .plan import asked_cells, endpoint, load_grid, report_plan_failure, run_grid_plan


def _gif_line(path: str, frames: int, size: tuple[int, int]) -> str:
    kilobytes = Path(path).stat().st_size / 1024
    return f"animation: {path} ({frames} frames, {size[0]} x {size[1]} px, {kilobytes:,.0f} kB)"


def run_animate(args: argparse.Namespace) -> int:
    """`grid-planner animate`: exit 0 with the GIF written, 1 if a search failed, 2 bad input."""
    from grid_planner.animation import check_animation, check_frames, save_gif, search_frames
    from grid_planner.grid import InvalidPlanner, PlannerError, algorithm_info, warm_up

    try:
        check_frames(args.frames, args.width)
    except ValueError as error:
        raise InputError(str(error)) from None
    for algorithm in args.algorithms:
        try:
            algorithm_info(algorithm)
        except InvalidPlanner as error:
            raise InputError(str(error), error.code_name) from None
    if not args.algorithms:
        raise InputError("--algorithms names no algorithm")
    start = endpoint(args.start, "start", args.cells)
    goal = endpoint(args.goal, "goal", args.cells)
    grid = load_grid(args, args.map)
    try:
        check_animation(grid, len(args.algorithms), args.frames, args.width)
    except ValueError as error:
        raise InputError(str(error)) from None
    warm_kernels(warm_up)
    plans = []
    for algorithm in args.algorithms:
        try:
            plans.append(run_grid_plan(
                grid, args, algorithm, start, goal, budget_from(args.timeout), True
            ))
        except PlannerError as error:
            return report_plan_failure(
                args, error, algorithm, asked_cells(grid, args, start, goal))
        except ValueError as error:
            raise InputError(str(error), "INVALID_POSE") from None
    images = search_frames(grid, plans, args.frames, args.width)
    try:
        save_gif(images, args.gif)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot write {args.gif}: {error}") from None
    for found in plans:
        print(
            f"{found.algorithm:>18}: {found.length:,} steps, {found.nodes_expanded:,} expanded, "
            f"{ms(found.elapsed)}"
        )
    print(_gif_line(args.gif, len(images), images[0].size))
    return EXIT_OK


def write_puzzle_gif(outcome: PuzzleOutcome, path: str) -> str:
    """Play a solved puzzle move by move into the GIF `path`; the line saying where it is."""
    from grid_planner.animation import PUZZLE_FRAME_MS, puzzle_frames, save_gif

    try:
        images = puzzle_frames(outcome.boards(), outcome.moves, outcome.goal)
    except ValueError as error:
        raise InputError(f"no GIF: {error}") from None
    try:
        save_gif(images, path, frame_ms=PUZZLE_FRAME_MS)
    except (OSError, ValueError) as error:
        raise InputError(f"cannot write {path}: {error}") from None
    return _gif_line(path, len(images), images[0].size)
