"""`grid-planner compare`: every algorithm on one map or board, as a table, JSON or a chart."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from grid_planner.puzzle import (
    CLASSIC_HEURISTICS,
    HEURISTICS,
    PUZZLE_ALGORITHMS,
    InvalidBoardError,
    InvalidRequestError,
    compare,
    is_solvable,
    parse_board,
    parse_goal,
    per_run_budget,
    solve,
)
from grid_planner.puzzle.board import board_side
from grid_planner.puzzle.comparison import DEFAULT_RUN_MAX_HELD
from grid_planner.puzzle.compiled_idastar import warm_once
from grid_planner.puzzle.solver import runs_compiled
from grid_planner.search import LimitKind
from grid_planner.search.registry import GRID, PUZZLE, domain_algorithms, offered

from .arg_types import finite
from .by_depth import run_by_depth
from .map_options import MAP_OPTIONS, options_set
from .output import (
    EXIT_NO_RESULT,
    EXIT_OK,
    LEAST_COST,
    SHORTEST_MOVES,
    SHORTEST_STEPS,
    InputError,
    Optimum,
    compare_notes,
    compare_table,
    error_line,
    print_json,
    shortest_in_metres,
    warm_kernels,
)
from .parser import budget_from
from .plan import (
    IMAGE_SUFFIXES,
    YAML_SUFFIXES,
    asked_cells,
    endpoint,
    load_grid,
    report_plan_failure,
    run_grid_plan,
)
from .puzzle import joined

if TYPE_CHECKING:
    from grid_planner.grid import PlanningGrid

# A grid run stopped by one of these shows LIMIT_REACHED in the table, as a puzzle run does.
BUDGET_LIMITS = (LimitKind.MAX_NODES, LimitKind.DEADLINE, LimitKind.MAX_DEPTH)

# What each option of `compare` applies to; one set where it does not apply is refused.
MAPS, BOARDS, BY_DEPTH = "maps", "boards", "--by-depth"
APPLIES_TO = {
    "--by-depth": (BY_DEPTH,),
    "--boards": (BY_DEPTH,),
    "--seed": (BY_DEPTH,),
    "--start": (MAPS,),
    **dict.fromkeys(MAP_OPTIONS, (MAPS,)),
    "--goal": (MAPS, BOARDS),
    "--algorithms": (MAPS, BOARDS),
    "--png": (MAPS, BOARDS),
    "--heuristics": (BOARDS,),
    "--max-depth": (BOARDS, BY_DEPTH),
    "--timeout": (MAPS, BOARDS, BY_DEPTH),
    "--max-nodes": (MAPS, BOARDS, BY_DEPTH),
    "--json": (MAPS, BOARDS, BY_DEPTH),
}


def _refuse_unused(args: argparse.Namespace, target: str, why: str) -> None:
    """InputError naming the options set that do not apply to `target` (MAPS, BOARDS or
    BY_DEPTH) and what they apply to, then `why`."""
    unused: dict[tuple[str, ...], list[str]] = {}
    for flag in options_set(args):
        if target not in APPLIES_TO[flag]:
            unused.setdefault(APPLIES_TO[flag], []).append(flag)
    if unused:
        where = [f"{', '.join(flags)}: only for {' and '.join(applies)}"
                 for applies, flags in unused.items()]
        raise InputError(f"{'; '.join(where)}; {why}")


def _is_map_target(tokens: Sequence[str]) -> bool:
    if len(tokens) != 1:
        return False
    path = Path(tokens[0])
    return path.suffix.lower() in YAML_SUFFIXES + IMAGE_SUFFIXES or path.is_file()


def _check_names(given: list[str] | None, known: Sequence[str], what: str) -> list[str]:
    if given is None:
        return list(known)
    unknown = [name for name in given if name not in known]
    if unknown or not given:
        raise InputError(
            f"unknown {what} {', '.join(map(repr, unknown)) or '(none given)'}; "
            f"choose from {', '.join(known)}"
        )
    return given


def _compare_grid(args: argparse.Namespace, map_file: str) -> int:
    from grid_planner.grid import PlannerError, failure_report, warm_up

    _refuse_unused(args, MAPS, f"{map_file} is a map")
    if args.start is None or args.goal is None:
        raise InputError(f"compare on the map {map_file} needs --start X Y and --goal X Y")
    if len(args.goal) != 2:
        raise InputError(f"--goal on a map takes X Y, got {' '.join(args.goal)}")
    try:
        goal_values = [finite(text) for text in args.goal]
    except argparse.ArgumentTypeError as error:
        raise InputError(f"argument --goal: {error}") from None
    start = endpoint(args.start, "start", args.cells)
    goal = endpoint(goal_values, "goal", args.cells)
    algorithms = _check_names(args.algorithms, domain_algorithms(GRID), "grid algorithm(s)")
    grid = load_grid(args, map_file)
    warm_kernels(warm_up)  # compiled or loaded first, so no run pays for it

    rows = []
    moved: dict[tuple[int, int], list[str]] = {}  # goal cells the tolerance moved to: who went
    requested = None
    for algorithm in algorithms:
        try:
            found = run_grid_plan(
                grid, args, algorithm, start, goal, budget_from(args.timeout, args.max_nodes)
            )
            rows.append({**found.report().to_dict(), "search_cost": float(found.result.cost)})
            if found.goal_adjusted:
                requested = found.requested_goal_cell
                moved.setdefault(found.goal_cell, []).append(algorithm)
        except PlannerError as error:
            if error.result is None:
                # No search ran (start or goal outside, occupied, unreachable): the answer is
                # the same for every algorithm, so it is said once (JSON: a row for each).
                if not args.json:
                    return report_plan_failure(
                        args, error, algorithm, asked_cells(grid, args, start, goal))
                print_json([{**failure_report(error, name, args.connectivity).to_dict(),
                             "search_cost": None} for name in algorithms])
                return EXIT_NO_RESULT
            report = failure_report(error, algorithm, args.connectivity)
            if error.result.limit in BUDGET_LIMITS:
                report = replace(report, status="LIMIT_REACHED")
            rows.append({**report.to_dict(), "search_cost": None})
        except ValueError as error:
            raise InputError(str(error), "INVALID_POSE") from None
    title = (
        f"{map_file} ({grid.width} x {grid.height} cells of {grid.resolution:g} m), "
        f"{'cell' if args.cells else 'point'} {_pair(start)} to {_pair(goal)}"
    )
    optimum = _grid_optimum(grid, args.connectivity)
    notes = _moved_goal_notes(grid, requested, moved) + _smoothing_notes(args.smoothing)
    return _finish_compare(args, rows, title, optimum, "m", notes)


def _moved_goal_notes(grid: PlanningGrid, requested: tuple[int, int] | None,
                      moved: dict[tuple[int, int], list[str]]) -> list[str]:
    """Where the tolerance moved the goal, and for which algorithms (`plan` says so too)."""
    if requested is None:
        return []
    why = "is blocked" if grid.is_blocked(*requested) else "cannot be reached"
    cells = "; ".join(f"cell {_pair(cell)} ({', '.join(names)})" for cell, names in moved.items())
    return [f"note: the goal cell {_pair(requested)} {why}; within --tolerance the searches "
            f"went to {cells}"]


def _smoothing_notes(smoothing: str) -> list[str]:
    """Where smoothing makes the metres differ from the paths the searches compared."""
    if smoothing == "none":
        return []
    return [f"note: the metres are those of the paths after --smoothing {smoothing}; the "
            "searches and the notes above compare the paths as searched"]


def _grid_optimum(grid: PlanningGrid, connectivity: int) -> Optimum:
    """What A* and Dijkstra minimise on `grid`: steps, metres (8-connected) or the cost."""
    if grid.raw_costs is not None:
        return LEAST_COST
    if connectivity == 8:
        return shortest_in_metres(grid.resolution)
    return SHORTEST_STEPS


def _pair(values: Sequence[float]) -> str:
    return f"({values[0]:g}, {values[1]:g})"


def _compare_puzzle(args: argparse.Namespace, board_text: str) -> int:
    try:
        board = parse_board(board_text)
    except InvalidBoardError as error:
        if len(args.target) == 1 and not any(char.isdigit() for char in board_text):
            raise InputError(
                f"{board_text!r} is neither a map file (none exists) nor a board ({error})",
                "INVALID_BOARD",
            ) from None
        raise InputError(str(error), "INVALID_BOARD") from None
    _refuse_unused(
        args, BOARDS, f"{board_text!r} is a board (a map target is one file name ending in "
        ".yaml, .png or .pgm)",
    )
    try:
        goal = parse_goal(joined(args.goal), board_side(board))
    except InvalidRequestError as error:
        raise InputError(str(error), "INVALID_REQUEST") from None
    algorithms = _check_names(args.algorithms, PUZZLE_ALGORITHMS, "puzzle algorithm(s)")
    informed = [name for name in PUZZLE_ALGORITHMS if offered(PUZZLE, name).informed]
    if args.heuristics is not None and not set(algorithms) & set(informed):
        raise InputError(
            f"--heuristics: only for {', '.join(informed)}, and --algorithms gives "
            f"{', '.join(algorithms)}"
        )
    # The table-based heuristics are opt-in: a 15-puzzle pdb is a ~10 s one-off build.
    chosen = list(CLASSIC_HEURISTICS) if args.heuristics is None else args.heuristics
    heuristics = _check_names(chosen, HEURISTICS, "heuristic(s)")
    if not is_solvable(board, goal) and not args.json:
        # Said once; the JSON list has its rows below (each answered by the parity test).
        outcome = solve(board, goal)
        error_line(f"{outcome.status.name}: {outcome.message}")
        return EXIT_NO_RESULT

    max_nodes = args.max_nodes if args.max_nodes is not None else DEFAULT_RUN_MAX_HELD
    timeout = args.timeout if args.timeout > 0 else None
    if any(runs_compiled(algorithm) for algorithm in algorithms):
        warm_kernels(warm_once)  # loaded first, so no run pays for it
    outcomes = compare(
        board,
        goal,
        per_run_budget(timeout, max_nodes),
        algorithms=tuple(algorithms),
        heuristics=tuple(heuristics),
        max_depth=args.max_depth,
    )
    rows = [outcome.to_dict() for outcome in outcomes]
    side = board_side(board)
    limits = f"{args.timeout:g} s" if timeout else "no time limit"
    title = (
        f"{side * side - 1}-puzzle {' '.join(map(str, board))} (budget per run: {limits}, "
        f"{max_nodes:,} states of memory)"
    )
    return _finish_compare(args, rows, title, SHORTEST_MOVES, "")


def _finish_compare(
    args: argparse.Namespace, rows: list[dict], title: str, optimum: Optimum, cost_unit: str,
    more_notes: Sequence[str] = (),
) -> int:
    if args.png:
        from grid_planner import render

        labels = [
            row["algorithm"] + (f"/{row['heuristic']}" if row["heuristic"] else "") for row in rows
        ]
        kinds = [
            "ok" if row["status"] == "SOLVED"
            else "limit" if row["status"] == "LIMIT_REACHED"
            else "failed"
            for row in rows
        ]  # fmt: skip
        try:
            size = render.bar_chart_png(
                args.png,
                labels,
                [row["nodes_expanded"] for row in rows],
                notes=["" if row["status"] == "SOLVED" else row["status"] for row in rows],
                kinds=kinds,
                title=f"Nodes expanded per run: {title}",
            )
        except (OSError, ValueError) as error:
            raise InputError(f"cannot write {args.png}: {error}") from None
    if args.json:
        print_json(rows)
    else:
        print(title)
        print()
        print(compare_table(rows, cost_unit, search_cost=optimum.field == "search_cost"))
        notes = [*compare_notes(rows, optimum), *more_notes]
        if notes:
            print()
            print("\n".join(notes))
        if args.png:
            print(f"chart: {args.png} ({size[0]} x {size[1]} px)")
    return EXIT_OK if any(row["status"] == "SOLVED" for row in rows) else EXIT_NO_RESULT


def run_compare(args: argparse.Namespace) -> int:
    """`grid-planner compare`: exit 0 if any run solved, 1 if none did, 2 for bad input."""
    if args.by_depth:
        _refuse_unused(
            args, BY_DEPTH, "--by-depth draws its own 8-puzzle boards and runs a fixed set of "
            "searches on them"
        )
        return run_by_depth(args)
    if not args.target:
        raise InputError("compare needs a TARGET: a map file or a board (or --by-depth)")
    if _is_map_target(args.target):
        return _compare_grid(args, args.target[0])
    return _compare_puzzle(args, " ".join(args.target))
