"""The offline command line `grid-planner`: plan on a map file, solve a puzzle, compare algorithms.

    grid-planner plan config/maps/tutorial_grid.yaml --cells --start 0 7 --goal 9 0 --ascii
    grid-planner plan room.png --resolution 0.05 --origin -1 -1 --start 0 0 --goal 2 1.5 --json
    grid-planner puzzle "1 2 3 4 0 6 7 5 8"
    grid-planner compare "8 6 7 2 5 4 3 0 1" --png runs.png
    grid-planner compare config/maps/tutorial_grid.yaml --cells --start 0 7 --goal 9 0

No ROS needed: this is a thin adapter over `grid_planner.grid` and `grid_planner.puzzle`, and
reads their results as they are. Exit codes: 0 success, 1 no path / unsolvable / limit reached,
2 bad input (usage, map, board). Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grid_planner.puzzle import (
    CLASSIC_HEURISTICS,
    HEURISTICS,
    PUZZLE_ALGORITHMS,
    InvalidBoardError,
    InvalidRequestError,
    PuzzleOutcome,
    PuzzleStatus,
    compare,
    format_board,
    is_solvable,
    parse_board,
    parse_goal,
    per_run_budget,
    solve,
)
from grid_planner.search import Budget, LimitKind

if TYPE_CHECKING:
    from grid_planner.grid import GridPlan, PlannerError, PlanningGrid

# `grid_planner.grid` (and `render`, which needs it) is imported inside the grid commands:
# importing it loads numba, which costs most of a second that `puzzle` has no use for.

EXIT_OK = 0
EXIT_NO_RESULT = 1  # no path, unsolvable, or a budget ran out
EXIT_BAD_INPUT = 2  # usage, map or board errors

PROG = "grid-planner"
YAML_SUFFIXES = (".yaml", ".yml")
IMAGE_SUFFIXES = (".png", ".pgm", ".ppm", ".pnm", ".bmp", ".gif", ".tif", ".tiff", ".jpg", ".jpeg")
# Kept in the help text by hand (the grid package is not imported to build the parser);
# a test checks that it names every algorithm of grid_planner.grid.ALGORITHMS.
GRID_ALGORITHM_NAMES = "astar (default), dijkstra, bfs, dfs, bidirectional_bfs"

DEFAULT_PLAN_TIMEOUT = 5.0  # s, planner_node's max_planning_time
DEFAULT_PUZZLE_TIMEOUT = 10.0  # s, puzzle_node's default_timeout
DEFAULT_PUZZLE_MAX_NODES = 2_000_000  # puzzle_node's max_nodes
DEFAULT_COMPARE_TIMEOUT = 5.0  # s per run
DEFAULT_COMPARE_PUZZLE_MAX_NODES = 2_000_000  # per run; grid runs have no node cap by default

BUDGET_LIMITS = (LimitKind.MAX_NODES, LimitKind.DEADLINE, LimitKind.MAX_DEPTH)
DFS_NOTE = "depth-first paths are valid but usually far longer than the shortest"


class InputError(Exception):
    """Bad input (usage, map, board): one line on stderr and exit 2.

    `status` is the JSON status printed with `--json` (a ComputePath or SolvePuzzle code name).
    """

    def __init__(self, message: str, status: str = "INVALID_REQUEST") -> None:
        super().__init__(message)
        self.status = status


# --- the parser -------------------------------------------------------------------------------


class UsageError(InputError):
    """A command line that argparse refuses; the message names the subcommand."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, raised so that `main` returns, not exits."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message} (see '{self.prog} --help')", "USAGE")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Shows an action's `display` text (e.g. "X Y [YAW]") instead of argparse's nargs pattern."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        display = getattr(action, "display", None)
        return display if display else super()._format_args(action, default_metavar)


class _StoreValues(argparse.Action):
    """Stores a list of `low`..`high` values; `display` is how usage and help show them."""

    def __init__(self, *args, display: str, low: int = 1, high: int | None = None, **kwargs):
        kwargs.setdefault("nargs", "+")
        super().__init__(*args, **kwargs)
        self.display = display
        self.low, self.high = low, high

    def __call__(self, parser, namespace, values, option_string=None):
        values = list(values)
        if len(values) < self.low or (self.high is not None and len(values) > self.high):
            parser.error(f"argument {option_string or self.dest}: expected {self.display}")
        setattr(namespace, self.dest, values)


def _finite(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _wrap(text: str) -> str:
    """Description text wrapped for the raw help formatter (which keeps the epilog's lines)."""
    return textwrap.fill(text, width=90)


def _non_negative(text: str) -> float:
    value = _finite(text)
    if value < 0.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _positive(text: str) -> float:
    value = _finite(text)
    if value <= 0.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be > 0")
    return value


def _count(text: str) -> int:
    """An integer >= 0; accepts "2e6" and "2_000_000" too."""
    try:
        value = int(text)
    except ValueError:
        number = _finite(text)
        if not number.is_integer():
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        value = int(number)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 0")
    return value


def _positive_count(text: str) -> int:
    value = _count(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


def _threshold(text: str) -> int:
    value = _count(text)
    if not 1 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text!r} must be an integer in 1..100")
    return value


def _name_list(text: str) -> list[str]:
    return [name.strip() for name in text.split(",") if name.strip()]


def _add_map_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by `plan` and `compare MAP`: map geometry, cells, planning grid."""
    group = parser.add_argument_group("map and grid options")
    group.add_argument(
        "--cells",
        action="store_true",
        help="--start/--goal are cell indices (x = column, y = row from the bottom), not metres",
    )
    group.add_argument(
        "--resolution",
        type=_positive,
        metavar="R",
        help="metres per pixel: plan on a bare PNG/PGM image instead of a map YAML",
    )
    group.add_argument(
        "--origin",
        action=_StoreValues,
        type=_finite,
        display="X Y [YAW]",
        low=2,
        high=3,
        help="with --resolution: world pose of the image's bottom-left corner (default 0 0 0)",
    )
    group.add_argument(
        "--negate",
        action="store_true",
        help="with --resolution: dark pixels are free and light ones occupied",
    )
    group.add_argument(
        "--tolerance",
        type=_non_negative,
        default=0.0,
        metavar="M",
        help="goal tolerance in metres: a blocked goal moves to the nearest reachable free cell "
        "with |dx|, |dy| <= M (default 0)",
    )
    group.add_argument(
        "--robot-radius",
        type=_non_negative,
        default=0.0,
        metavar="M",
        help="cells within this distance (m) of an obstacle are blocked (default 0)",
    )
    group.add_argument(
        "--occupied-threshold",
        type=_threshold,
        default=65,
        metavar="N",
        help="a cell with value >= N is an obstacle (1..100, default 65)",
    )
    group.add_argument(
        "--allow-unknown", action="store_true", help="unknown (-1) cells may be crossed"
    )


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of `grid-planner` and its subcommands plan, puzzle and compare."""
    parser = _Parser(
        prog=PROG,
        description=_wrap(
            "Grid path planning and sliding-puzzle solving without ROS: BFS, DFS, A* "
            "and more, with the evidence to compare them (length, nodes, frontier, time)."
        ),
        epilog="exit codes: 0 success, 1 no path / unsolvable / limit reached, 2 bad input",
        formatter_class=_Formatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    plan_parser = commands.add_parser(
        "plan",
        help="plan a path on a map file",
        description=_wrap(
            "Plan a 4-connected path on a map_server YAML map, or on a bare PNG/PGM image "
            "given --resolution. World metres by default, cell indices with --cells."
        ),
        epilog=f"example: {PROG} plan config/maps/tutorial_grid.yaml --cells --start 0 7 "
        "--goal 9 0 --ascii",
        formatter_class=_Formatter,
    )
    plan_parser.add_argument("map", metavar="MAP", help="map_server YAML, or PNG/PGM image")
    plan_parser.add_argument(
        "--start", type=_finite, nargs=2, metavar=("X", "Y"), required=True, help="start point"
    )
    plan_parser.add_argument(
        "--goal", type=_finite, nargs=2, metavar=("X", "Y"), required=True, help="goal point"
    )
    plan_parser.add_argument("--algorithm", default="astar", metavar="A", help=GRID_ALGORITHM_NAMES)
    _add_map_options(plan_parser)
    plan_parser.add_argument(
        "--timeout",
        type=_non_negative,
        default=DEFAULT_PLAN_TIMEOUT,
        metavar="S",
        help=f"planning deadline in seconds, 0 for none (default {DEFAULT_PLAN_TIMEOUT:g})",
    )
    plan_parser.add_argument("--png", metavar="OUT.png", help="draw the map, search and path")
    plan_parser.add_argument(
        "--scale", type=_positive_count, metavar="PX", help="PNG pixels per cell (default: auto)"
    )
    plan_parser.add_argument("--ascii", action="store_true", help="print the map and the path")
    plan_parser.add_argument("--json", action="store_true", help="print one JSON object")
    plan_parser.set_defaults(run=run_plan)

    puzzle_parser = commands.add_parser(
        "puzzle",
        help="solve a sliding-tile puzzle",
        description=_wrap(
            "Solve a sliding-tile puzzle (8-puzzle, 15-puzzle, ...). The board is row-major "
            "with 0 for the blank; moves name the blank's motion."
        ),
        epilog=f'example: {PROG} puzzle "8 6 7 2 5 4 3 0 1" --algorithm idastar '
        "--heuristic linear_conflict",
        formatter_class=_Formatter,
    )
    puzzle_parser.add_argument(
        "board",
        action=_StoreValues,
        display="BOARD",
        metavar="BOARD",
        help='row-major tiles, 0 = blank, e.g. "1 2 3 4 0 6 7 5 8"',
    )
    puzzle_parser.add_argument(
        "--goal",
        action=_StoreValues,
        display="BOARD",
        help="goal board (default 1 2 ... n*n-1 0)",
    )
    puzzle_parser.add_argument(
        "--algorithm", default="astar", metavar="A", help=", ".join(PUZZLE_ALGORITHMS)
    )
    puzzle_parser.add_argument(
        "--heuristic", default="manhattan", metavar="H", help=", ".join(HEURISTICS)
    )
    _add_puzzle_limits(puzzle_parser, DEFAULT_PUZZLE_TIMEOUT, DEFAULT_PUZZLE_MAX_NODES)
    puzzle_parser.add_argument("--json", action="store_true", help="print one JSON object")
    puzzle_parser.set_defaults(run=run_puzzle)

    compare_parser = commands.add_parser(
        "compare",
        help="run every algorithm on one map or board",
        description=_wrap(
            "Run every algorithm on one problem and print a table: status, length, cost, "
            "optimal, nodes expanded and generated, peak frontier, time. TARGET is a map file "
            "(needs --start and --goal) or a board (informed algorithms run once per "
            "heuristic). Each run has its own budget; a run that exhausts it shows "
            "LIMIT_REACHED."
        ),
        epilog=f'examples: {PROG} compare "8 6 7 2 5 4 3 0 1" --png runs.png\n'
        f"          {PROG} compare config/maps/tutorial_grid.yaml --cells --start 0 7 "
        "--goal 9 0",
        formatter_class=_Formatter,
    )
    compare_parser.add_argument(
        "target",
        action=_StoreValues,
        display="TARGET",
        metavar="TARGET",
        help='a map file (.yaml, or an image with --resolution), or board tiles "1 2 3 ..."',
    )
    compare_parser.add_argument(
        "--start", type=_finite, nargs=2, metavar=("X", "Y"), help="map targets: start point"
    )
    compare_parser.add_argument(
        "--goal",
        action=_StoreValues,
        display="X Y | BOARD",
        help="map targets: goal point; boards: goal board (default 1 2 ... n*n-1 0)",
    )
    compare_parser.add_argument(
        "--algorithms",
        type=_name_list,
        metavar="A,B",
        help="comma-separated subset of the algorithms (default: all)",
    )
    compare_parser.add_argument(
        "--heuristics",
        type=_name_list,
        metavar="H,K",
        help="boards: heuristics for the informed algorithms (default: "
        f"{','.join(CLASSIC_HEURISTICS)}; any of {','.join(HEURISTICS)})",
    )
    _add_map_options(compare_parser)
    _add_puzzle_limits(compare_parser, DEFAULT_COMPARE_TIMEOUT, None)
    compare_parser.add_argument(
        "--png", metavar="OUT.png", help="bar chart of the nodes expanded per run (log scale)"
    )
    compare_parser.add_argument("--json", action="store_true", help="print a JSON list of runs")
    compare_parser.set_defaults(run=run_compare)
    return parser


def _add_puzzle_limits(
    parser: argparse.ArgumentParser, timeout: float, max_nodes: int | None
) -> None:
    group = parser.add_argument_group("limits (per run)")
    group.add_argument(
        "--timeout",
        type=_non_negative,
        default=timeout,
        metavar="S",
        help=f"seconds, 0 for no limit (default {timeout:g})",
    )
    nodes_default = (
        f"{max_nodes:,}"
        if max_nodes is not None
        else f"{DEFAULT_COMPARE_PUZZLE_MAX_NODES:,} for boards, none for maps"
    )
    group.add_argument(
        "--max-nodes",
        type=_positive_count,
        default=max_nodes,
        metavar="N",
        help=f"stop after N nodes expanded (default {nodes_default})",
    )
    group.add_argument(
        "--max-depth",
        type=_count,
        default=0,
        metavar="N",
        help="puzzles: dfs/iddfs depth limit (default 0: the board's known diameter, 31 for 3x3)",
    )


def _budget(timeout: float, max_nodes: int | None = None) -> Budget:
    """A budget starting now; a timeout of 0 means no deadline."""
    return Budget.from_timeout(timeout if timeout > 0 else None, max_nodes=max_nodes)


# --- output helpers ---------------------------------------------------------------------------


def _print_json(value: object) -> None:
    print(json.dumps(value))


def _error_line(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000.0:.2f} ms"


def _limit_name(limit: LimitKind | None) -> str | None:
    return limit.value if limit is not None else None


# --- plan -------------------------------------------------------------------------------------


def _load_grid(args: argparse.Namespace, map_file: str) -> PlanningGrid:
    """The planning grid of MAP with the grid options; InputError("NO_MAP") if unusable."""
    from grid_planner.grid import (
        MapLoadError,
        PlanningGrid,
        UnsupportedMapError,
        load_image_map,
        load_map,
    )

    path = Path(map_file)
    try:
        if path.suffix.lower() in YAML_SUFFIXES:
            if args.resolution is not None or args.origin is not None or args.negate:
                raise InputError(
                    f"--resolution, --origin and --negate describe a bare image; the map YAML "
                    f"{path} sets its own resolution, origin and negate",
                    "NO_MAP",
                )
            occupancy = load_map(path)
        else:
            if args.resolution is None:
                raise InputError(
                    f"{path} is not a map YAML (.yaml): to plan on a bare image give its cell "
                    "size with --resolution R (metres per pixel) and optionally --origin X Y "
                    "[YAW], or pass the map_server YAML instead",
                    "NO_MAP",
                )
            origin = args.origin if args.origin is not None else (0.0, 0.0)
            occupancy = load_image_map(path, args.resolution, origin, negate=args.negate)
        return PlanningGrid(
            occupancy,
            occupied_threshold=args.occupied_threshold,
            allow_unknown=args.allow_unknown,
            robot_radius=args.robot_radius,
        )
    except (MapLoadError, UnsupportedMapError) as error:
        raise InputError(str(error), "NO_MAP") from None
    except ValueError as error:  # a grid parameter the option parsing let through
        raise InputError(str(error)) from None


def _endpoint(values: Sequence[float], role: str, cells: bool) -> tuple[float, float]:
    if cells:
        if not all(float(v).is_integer() for v in values):
            raise InputError(
                f"--{role} with --cells takes whole cell indices, got {values[0]:g} {values[1]:g}",
                "INVALID_POSE",
            )
        return (int(values[0]), int(values[1]))
    return (float(values[0]), float(values[1]))


def _run_grid_plan(
    grid: PlanningGrid,
    args: argparse.Namespace,
    algorithm: str,
    start: tuple[float, float],
    goal: tuple[float, float],
    budget: Budget,
    record_expanded: bool = False,
) -> GridPlan:
    from grid_planner.grid import plan, plan_world

    options = {"tolerance": args.tolerance, "budget": budget, "record_expanded": record_expanded}
    if args.cells:
        return plan(grid, start, goal, algorithm, **options)
    return plan_world(grid, start, goal, algorithm, **options)


def _failure_object(error: PlannerError, algorithm: str) -> dict:
    result = error.result
    return {
        "status": error.code_name,
        "error_code": error.error_code,
        "message": str(error),
        "algorithm": algorithm,
        "length": 0,
        "nodes_expanded": result.nodes_expanded if result else 0,
        "nodes_generated": result.nodes_generated if result else 0,
        "max_frontier": result.max_frontier if result else 0,
        "planning_time": result.elapsed if result else 0.0,
        "limit": _limit_name(result.limit) if result else None,
        "path": [],
        "poses": [],
    }


def _report_plan_failure(args: argparse.Namespace, error: PlannerError, algorithm: str) -> int:
    if args.json:
        _print_json(_failure_object(error, algorithm))
    else:
        searched = ""
        if error.result is not None and "nodes expanded" not in str(error):
            searched = f" ({error.result.nodes_expanded:,} nodes expanded)"
        _error_line(f"{error.code_name}: {error}{searched}")
    return EXIT_NO_RESULT


def _describe_point(grid: PlanningGrid, cell: tuple[int, int]) -> str:
    wx, wy = grid.cell_to_world(*cell)
    return f"cell ({cell[0]}, {cell[1]}) at ({wx:.3f}, {wy:.3f}) m"


def _plan_summary(grid: PlanningGrid, found: GridPlan, map_file: str) -> str:
    from grid_planner.grid import ALGORITHMS

    if found.optimal:
        quality = "optimal (no shorter path exists)"
    elif found.algorithm == "dfs":
        quality = f"NOT optimal: {DFS_NOTE}"
    else:
        quality = "not guaranteed to be the shortest"
    lines = [
        f"Path found by {found.algorithm}: {found.length} steps ({found.length_m:.3f} m), "
        f"{quality}.",
        f"  algorithm: {found.algorithm}: {ALGORITHMS[found.algorithm].description}",
        f"  map:       {map_file}, {grid.width} x {grid.height} cells of {grid.resolution:g} m",
        f"  start:     {_describe_point(grid, found.start_cell)}",
        f"  goal:      {_describe_point(grid, found.goal_cell)}",
    ]
    if found.goal_adjusted:
        requested = found.requested_goal_cell
        why = "is blocked" if grid.is_blocked(*requested) else "cannot be reached"
        lines.append(
            f"  goal moved by the tolerance ({found.goal_cell[0] - requested[0]:+d}, "
            f"{found.goal_cell[1] - requested[1]:+d} cells): the requested "
            f"{_describe_point(grid, requested)} {why}"
        )
    lines += [
        f"  path:      {found.length + 1} cells, {found.length} steps, {found.length_m:.3f} m",
        f"  nodes:     {found.nodes_expanded:,} expanded, {found.nodes_generated:,} generated, "
        f"peak frontier {found.max_frontier:,}",
        f"  time:      {_ms(found.elapsed)} (the search alone, {found.backend} backend)",
    ]
    return "\n".join(lines)


def run_plan(args: argparse.Namespace) -> int:
    """`grid-planner plan`: one path on a map; exit 0 found, 1 no path, 2 bad input."""
    from grid_planner import render
    from grid_planner.grid import InvalidPlanner, PlannerError, algorithm_info, warm_up

    try:
        algorithm = algorithm_info(args.algorithm).name
    except InvalidPlanner as error:
        raise InputError(str(error), error.code_name) from None
    start = _endpoint(args.start, "start", args.cells)
    goal = _endpoint(args.goal, "goal", args.cells)
    grid = _load_grid(args, args.map)
    warm_up()  # compile or load the kernels now, so planning_time is the search alone
    try:
        found = _run_grid_plan(
            grid, args, algorithm, start, goal, _budget(args.timeout), bool(args.png)
        )
    except PlannerError as error:
        return _report_plan_failure(args, error, algorithm)
    except ValueError as error:  # e.g. a non-finite pose that slipped through
        raise InputError(str(error), "INVALID_POSE") from None

    drawing = render.plan_ascii(grid, found) if args.ascii else None
    if args.png:
        try:
            size = render.plan_png(grid, found, args.png, scale=args.scale)
        except (OSError, ValueError) as error:
            raise InputError(f"cannot write {args.png}: {error}") from None
    if args.json:
        report = found.summary()
        report.update(status="SOLVED", error_code=0, message="", goal_adjusted=found.goal_adjusted)
        if drawing is not None:
            report["ascii"] = drawing
        if args.png:
            report["png"] = str(args.png)
        _print_json(report)
        return EXIT_OK
    print(_plan_summary(grid, found, args.map))
    if args.png:
        print(f"  picture:   {args.png} ({size[0]} x {size[1]} px)")
    if drawing is not None:
        print()
        print(drawing)
    return EXIT_OK


# --- puzzle -----------------------------------------------------------------------------------


def _joined(values: Sequence[str] | None) -> str | None:
    return " ".join(values) if values else None


def _solution_text(outcome: PuzzleOutcome) -> str:
    name = outcome.algorithm + (f" with {outcome.heuristic}" if outcome.heuristic else "")
    if outcome.optimal:
        quality = "optimal: no shorter solution exists"
    elif outcome.algorithm == "dfs":
        quality = "not optimal: depth-first solutions are valid but usually far from the shortest"
    else:
        quality = "not guaranteed to be the shortest"
    lines = [
        f"{name}: solved in {outcome.length} moves ({quality})",
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
        f"peak frontier {outcome.max_frontier:,}; time {_ms(outcome.planning_time)}"
    )
    return "\n".join(lines)


def run_puzzle(args: argparse.Namespace) -> int:
    """`grid-planner puzzle`: exit 0 solved, 1 unsolvable or limit reached, 2 invalid input."""
    outcome = solve(
        _joined(args.board),
        _joined(args.goal),
        args.algorithm,
        args.heuristic,
        args.max_depth,
        _budget(args.timeout, args.max_nodes),
    )
    if args.json:
        _print_json(outcome.to_dict())
    if outcome.status in (PuzzleStatus.INVALID_BOARD, PuzzleStatus.INVALID_REQUEST):
        _error_line(f"{outcome.status.name}: {outcome.message}")
        return EXIT_BAD_INPUT
    if not outcome.success:
        if not args.json:
            searched = ""
            if outcome.result is not None and "nodes expanded" not in outcome.message:
                searched = f" ({outcome.nodes_expanded:,} nodes expanded)"
            _error_line(f"{outcome.status.name}: {outcome.message}{searched}")
        return EXIT_NO_RESULT
    if not args.json:
        print(_solution_text(outcome))
    return EXIT_OK


# --- compare ----------------------------------------------------------------------------------


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


def _grid_row(algorithm: str, found: GridPlan | None, error: PlannerError | None) -> dict:
    from grid_planner.grid import ALGORITHMS

    heuristic = "manhattan" if algorithm == "astar" else ""
    if found is not None:
        return {
            "algorithm": algorithm,
            "heuristic": heuristic,
            "status": "SOLVED",
            "message": "",
            "length": found.length,
            "cost": found.length_m,
            "optimal": found.optimal,
            "nodes_expanded": found.nodes_expanded,
            "nodes_generated": found.nodes_generated,
            "max_frontier": found.max_frontier,
            "planning_time": found.elapsed,
            "limit": None,
            "backend": found.backend,
        }
    assert error is not None
    result = error.result
    limited = result is not None and result.limit in BUDGET_LIMITS
    return {
        "algorithm": algorithm,
        "heuristic": heuristic,
        "status": "LIMIT_REACHED" if limited else error.code_name,
        "message": str(error),
        "length": 0,
        "cost": 0.0,
        "optimal": False,
        "nodes_expanded": result.nodes_expanded if result else 0,
        "nodes_generated": result.nodes_generated if result else 0,
        "max_frontier": result.max_frontier if result else 0,
        "planning_time": result.elapsed if result else 0.0,
        "limit": _limit_name(result.limit) if result else None,
        "backend": "numba" if ALGORITHMS[algorithm].compiled else "reference",
    }


def _compare_grid(args: argparse.Namespace, map_file: str) -> int:
    from grid_planner.grid import ALGORITHMS, PlannerError, warm_up

    if args.start is None or args.goal is None:
        raise InputError(f"compare on the map {map_file} needs --start X Y and --goal X Y")
    if args.heuristics is not None:
        raise InputError("--heuristics applies to boards; on a map astar uses Manhattan")
    if len(args.goal) != 2:
        raise InputError(f"--goal on a map takes X Y, got {' '.join(args.goal)}")
    try:
        goal_values = [_finite(text) for text in args.goal]
    except argparse.ArgumentTypeError as error:
        raise InputError(f"argument --goal: {error}") from None
    start = _endpoint(args.start, "start", args.cells)
    goal = _endpoint(goal_values, "goal", args.cells)
    algorithms = _check_names(args.algorithms, tuple(ALGORITHMS), "grid algorithm(s)")
    grid = _load_grid(args, map_file)
    warm_up()  # compile or load the kernels first, so no run pays for it

    rows = []
    for algorithm in algorithms:
        try:
            found = _run_grid_plan(
                grid, args, algorithm, start, goal, _budget(args.timeout, args.max_nodes)
            )
            rows.append(_grid_row(algorithm, found, None))
        except PlannerError as error:
            if error.result is None:
                # No search ran (start or goal outside, occupied, unreachable): the answer is
                # the same for every algorithm, so say it once.
                return _report_plan_failure(args, error, algorithm)
            rows.append(_grid_row(algorithm, None, error))
        except ValueError as error:
            raise InputError(str(error), "INVALID_POSE") from None
    title = (
        f"{map_file} ({grid.width} x {grid.height} cells of {grid.resolution:g} m), "
        f"{'cell' if args.cells else 'point'} {_pair(start)} to {_pair(goal)}"
    )
    return _finish_compare(args, rows, title, unit="steps", cost_unit="m")


def _pair(values: Sequence[float]) -> str:
    return f"({values[0]:g}, {values[1]:g})"


def _puzzle_row(outcome: PuzzleOutcome) -> dict:
    row = outcome.to_dict()
    row["cost"] = float(outcome.result.cost) if outcome.result and outcome.success else 0.0
    return row


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
    map_options = [
        name
        for name, value in (
            ("--start", args.start),
            ("--resolution", args.resolution),
            ("--origin", args.origin),
            ("--cells", args.cells or None),
            ("--negate", args.negate or None),
            ("--allow-unknown", args.allow_unknown or None),
        )
        if value is not None
    ]
    if map_options:
        raise InputError(
            f"{', '.join(map_options)}: only for maps, and {board_text!r} is a board (a map "
            "target is one file name ending in .yaml, .png or .pgm)"
        )
    try:
        goal = parse_goal(_joined(args.goal), round(len(board) ** 0.5))
    except InvalidRequestError as error:
        raise InputError(str(error), "INVALID_REQUEST") from None
    algorithms = _check_names(args.algorithms, PUZZLE_ALGORITHMS, "puzzle algorithm(s)")
    # The table-based heuristics are opt-in: a 15-puzzle pdb is a ~10 s one-off build.
    chosen = list(CLASSIC_HEURISTICS) if args.heuristics is None else args.heuristics
    heuristics = _check_names(chosen, HEURISTICS, "heuristic(s)")
    if not is_solvable(board, goal):
        outcome = solve(board, goal)  # answered from the parity test, no search
        if args.json:
            _print_json(outcome.to_dict())
        else:
            _error_line(f"{outcome.status.name}: {outcome.message}")
        return EXIT_NO_RESULT

    max_nodes = args.max_nodes if args.max_nodes is not None else DEFAULT_COMPARE_PUZZLE_MAX_NODES
    timeout = args.timeout if args.timeout > 0 else None
    outcomes = compare(
        board,
        goal,
        per_run_budget(timeout, max_nodes),
        algorithms=tuple(algorithms),
        heuristics=tuple(heuristics),
        max_depth=args.max_depth,
    )
    rows = [_puzzle_row(outcome) for outcome in outcomes]
    side = round(len(board) ** 0.5)
    limits = f"{args.timeout:g} s" if timeout else "no time limit"
    title = (
        f"{side * side - 1}-puzzle {' '.join(map(str, board))} (budget per run: {limits}, "
        f"{max_nodes:,} nodes)"
    )
    return _finish_compare(args, rows, title, unit="moves", cost_unit="")


def _table(rows: list[dict], cost_unit: str) -> str:
    cost_title = f"cost ({cost_unit})" if cost_unit else "cost"
    header = (
        "algorithm",
        "heuristic",
        "status",
        "length",
        cost_title,
        "optimal",
        "expanded",
        "generated",
        "peak frontier",
        "time ms",
    )
    cells = []
    for row in rows:
        solved = row["status"] == "SOLVED"
        cells.append(
            (
                row["algorithm"],
                row["heuristic"] or "-",
                row["status"],
                str(row["length"]) if solved else "-",
                f"{row['cost']:g}" if solved else "-",
                ("yes" if row["optimal"] else "no") if solved else "-",
                f"{row['nodes_expanded']:,}",
                f"{row['nodes_generated']:,}",
                f"{row['max_frontier']:,}",
                f"{row['planning_time'] * 1000.0:.2f}",
            )
        )
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    left = 3  # algorithm, heuristic and status read better left-aligned; numbers right-aligned

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            value.ljust(width) if i < left else value.rjust(width)
            for i, (value, width) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(values) for values in cells)])


def _notes(rows: list[dict], unit: str) -> list[str]:
    solved = [row for row in rows if row["status"] == "SOLVED"]
    optimal_lengths = sorted({row["length"] for row in solved if row["optimal"]})
    notes = []
    if len(optimal_lengths) == 1:
        agree = sum(1 for row in solved if row["optimal"])
        runs = "the one optimal run" if agree == 1 else f"all {agree} optimal runs agree"
        notes.append(f"shortest: {optimal_lengths[0]} {unit} ({runs})")
    elif optimal_lengths:
        notes.append(f"WARNING: optimal runs disagree on the length: {optimal_lengths}")
    for row in solved:
        if not row["optimal"] and optimal_lengths and row["length"] > optimal_lengths[0]:
            extra = row["length"] - optimal_lengths[0]
            why = f": {DFS_NOTE}" if row["algorithm"] == "dfs" else ""
            notes.append(f"{row['algorithm']}: {row['length']} {unit}, {extra} longer{why}")
    if any(row["status"] == "LIMIT_REACHED" for row in rows):
        notes.append("LIMIT_REACHED: the run exhausted its budget (raise --timeout or --max-nodes)")
    return notes


def _finish_compare(
    args: argparse.Namespace, rows: list[dict], title: str, unit: str, cost_unit: str
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
        _print_json(rows)
    else:
        print(title)
        print()
        print(_table(rows, cost_unit))
        notes = _notes(rows, unit)
        if notes:
            print()
            print("\n".join(notes))
        if args.png:
            print(f"chart: {args.png} ({size[0]} x {size[1]} px)")
    return EXIT_OK if any(row["status"] == "SOLVED" for row in rows) else EXIT_NO_RESULT


def run_compare(args: argparse.Namespace) -> int:
    """`grid-planner compare`: exit 0 if any run solved, 1 if none did, 2 for bad input."""
    if _is_map_target(args.target):
        return _compare_grid(args, args.target[0])
    return _compare_puzzle(args, " ".join(args.target))


# --- entry point ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run `grid-planner` with `argv` (default: sys.argv[1:]); returns the exit code."""
    parser = build_parser()
    args = None
    try:
        args = parser.parse_args(argv)
        return args.run(args)
    except UsageError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_INPUT
    except InputError as error:
        if getattr(args, "json", False):
            _print_json({"status": error.status, "message": str(error)})
        _error_line(f"error: {error}")
        return EXIT_BAD_INPUT
    except SystemExit as stop:  # --help and --version end here
        return stop.code if isinstance(stop.code, int) else EXIT_OK
    except KeyboardInterrupt:
        _error_line("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `grid-planner compare ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
