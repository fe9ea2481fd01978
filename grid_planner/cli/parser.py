"""The argument parser of `grid-planner`: subcommands, options, and their validation."""

from __future__ import annotations

import argparse
import importlib.metadata
import re
import textwrap

from grid_planner.animation import (
    DEFAULT_FRAMES,
    DEFAULT_WIDTH,
    MAX_FRAMES,
    MAX_WIDTH,
    MIN_WIDTH,
)
from grid_planner.grid.dispatch import DEFAULT_ALGORITHM
from grid_planner.grid.planner import DEFAULT_PLAN_TIMEOUT
from grid_planner.puzzle import AUTO, CLASSIC_HEURISTICS, HEURISTICS, PUZZLE_ALGORITHMS
from grid_planner.puzzle.comparison import DEFAULT_RUN_MAX_HELD, DEFAULT_RUN_TIMEOUT
from grid_planner.puzzle.solver import (
    DEFAULT_SETUP_TIMEOUT,
    DEFAULT_SOLVE_MAX_HELD,
    DEFAULT_SOLVE_TIMEOUT,
)
from grid_planner.search import Budget
from grid_planner.search.registry import GRID, domain_algorithms

from .arg_types import (
    StoreValues,
    count,
    depth,
    file_name,
    finite,
    name_list,
    non_negative,
    positive_count,
    whole_number,
)
from .map_options import add_map_options, add_map_query, option_defaults
from .output import PROG, InputError

GRID_ALGORITHM_HELP = ", ".join(
    f"{name} (default)" if name == DEFAULT_ALGORITHM else name for name in domain_algorithms(GRID)
)


class UsageError(InputError):
    """A command line that argparse refuses; the message names the subcommand."""


# A value that argparse must take for a negative number, not an option: "-3", "-.5", "-1e3"
# (argparse before Python 3.13 knows the first two forms only).
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, raised so that `main` returns, not exits,
    and that reads "-1e3" as a negative number (its subcommands' parsers are of this class)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = NEGATIVE_NUMBER

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: error: {message} (see '{self.prog} --help')", "USAGE")


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Shows an action's `display` text (e.g. "X Y [YAW]") instead of argparse's nargs pattern."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        display = getattr(action, "display", None)
        return display if display else super()._format_args(action, default_metavar)


def _wrap(text: str) -> str:
    """Description text wrapped for the raw help formatter (which keeps the epilog's lines)."""
    return textwrap.fill(text, width=90)


def _version() -> str:
    """The installed package's version ("unknown" when run from a checkout not installed)."""
    try:
        return importlib.metadata.version("grid_planner")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of `grid-planner` and its subcommands plan, puzzle, compare and
    animate."""
    parser = _Parser(
        prog=PROG,
        description=_wrap(
            "Grid path planning and sliding-puzzle solving without ROS: BFS, DFS, A* "
            "and more, with the evidence to compare them (length, nodes, frontier, time)."
        ),
        epilog="exit codes: 0 success, 1 no path / unsolvable / limit reached, 2 bad input",
        formatter_class=_Formatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    plan_parser = commands.add_parser(
        "plan",
        help="plan a path on a map file",
        description=_wrap(
            "Plan a path (4-connected by default) on a map_server YAML map, or on a bare "
            "PNG/PGM image given --resolution. World metres by default, cell indices with "
            "--cells."
        ),
        epilog=f"example: {PROG} plan config/maps/tutorial_grid.yaml --cells --start 0 7 "
        "--goal 9 0 --ascii",
        formatter_class=_Formatter,
    )
    add_map_query(plan_parser)
    plan_parser.add_argument("--algorithm", default=DEFAULT_ALGORITHM, metavar="A",
                             help=GRID_ALGORITHM_HELP)
    add_map_options(plan_parser)
    plan_parser.add_argument(
        "--timeout",
        type=non_negative,
        default=DEFAULT_PLAN_TIMEOUT,
        metavar="S",
        help=f"planning deadline in seconds, 0 for none (default {DEFAULT_PLAN_TIMEOUT:g})",
    )
    plan_parser.add_argument(
        "--png", metavar="OUT.png", type=file_name, help="draw the map, search and path"
    )
    plan_parser.add_argument(
        "--scale", type=positive_count, metavar="PX", help="PNG pixels per cell (default: auto)"
    )
    plan_parser.add_argument("--ascii", action="store_true", help="print the map and the path")
    plan_parser.add_argument("--json", action="store_true", help="print one JSON object")

    puzzle_parser = commands.add_parser(
        "puzzle",
        help="solve a sliding-tile puzzle",
        description=_wrap(
            "Solve a sliding-tile puzzle (8-puzzle, 15-puzzle, ...). The board is row-major "
            "with 0 for the blank; moves name the blank's motion."
        ),
        epilog=f'examples: {PROG} puzzle "8 6 7 2 5 4 3 0 1"\n'
        f'          {PROG} puzzle "8 6 7 2 5 4 3 0 1" --algorithm astar --heuristic '
        "linear_conflict",
        formatter_class=_Formatter,
    )
    puzzle_parser.add_argument(
        "board",
        action=StoreValues,
        display="BOARD",
        metavar="BOARD",
        help='row-major tiles, 0 = blank, e.g. "1 2 3 4 0 6 7 5 8"',
    )
    puzzle_parser.add_argument(
        "--goal",
        action=StoreValues,
        display="BOARD",
        help="goal board (default 1 2 ... n*n-1 0)",
    )
    puzzle_parser.add_argument(
        "--algorithm", default=AUTO, metavar="A",
        help=f"{AUTO} (default: the fastest optimal solver for the board, IDA*), "
        + ", ".join(PUZZLE_ALGORITHMS),
    )
    puzzle_parser.add_argument(
        "--heuristic", default=AUTO, metavar="H",
        help=f"{AUTO} (default: the exact table on 2x2 and 3x3, the pattern database on 4x4 "
        "goals with the blank in a corner, else linear_conflict), " + ", ".join(HEURISTICS),
    )
    _add_puzzle_limits(puzzle_parser, DEFAULT_SOLVE_TIMEOUT, DEFAULT_SOLVE_MAX_HELD,
                       compare=False)
    puzzle_parser.add_argument(
        "--max-expansions", type=count, default=0, metavar="N",
        help="stop after N nodes expanded (default 0: no limit; time and memory bound a solve)",
    )
    puzzle_parser.add_argument(
        "--setup-timeout", type=non_negative, default=DEFAULT_SETUP_TIMEOUT, metavar="S",
        help="seconds a heuristic table may take to build or load, apart from --timeout "
        f"(0: no limit; default {DEFAULT_SETUP_TIMEOUT:g})",
    )
    puzzle_parser.add_argument("--json", action="store_true", help="print one JSON object")
    puzzle_parser.add_argument(
        "--gif", metavar="OUT.gif", type=file_name, help="play the solution move by move"
    )

    compare_parser = commands.add_parser(
        "compare",
        help="run every algorithm on one map or board",
        description=_wrap(
            "Run every algorithm on one problem and print a table: status, length, cost, "
            "optimal, nodes expanded and generated, peak frontier, time. TARGET is a map file "
            "(needs --start and --goal) or a board (informed algorithms run once per "
            "heuristic of --heuristics). Each run has its own budget; a run that exhausts it "
            "shows LIMIT_REACHED. --by-depth takes no TARGET."
        ),
        epilog=f'examples: {PROG} compare "8 6 7 2 5 4 3 0 1" --png runs.png\n'
        f"          {PROG} compare config/maps/tutorial_grid.yaml --cells --start 0 7 "
        "--goal 9 0",
        formatter_class=_Formatter,
    )
    compare_parser.add_argument(
        "target",
        action=StoreValues,
        display="[TARGET]",
        metavar="TARGET",
        nargs="*",
        low=0,
        help='a map file (.yaml, or an image with --resolution), or board tiles "1 2 3 ..."',
    )
    group = compare_parser.add_argument_group("search cost by solution depth (no TARGET)")
    group.add_argument(
        "--by-depth", action="store_true",
        help="the classic 8-puzzle table: mean nodes generated (with b*) and expanded by IDS, "
        "BFS, A* (misplaced, Manhattan, linear conflict) and IDA* at depths 2, 4, ..., 24",
    )
    group.add_argument(
        "--boards", type=positive_count, default=100, metavar="N",
        help="--by-depth: random boards a depth (default 100: 2.5-5 minutes by the load)",
    )
    group.add_argument("--seed", type=count, default=0, help="--by-depth: random seed")
    compare_parser.add_argument(
        "--start", type=finite, nargs=2, metavar=("X", "Y"), help="map targets: start point"
    )
    compare_parser.add_argument(
        "--goal",
        action=StoreValues,
        display="X Y | BOARD",
        help="map targets: goal point; boards: goal board (default 1 2 ... n*n-1 0)",
    )
    compare_parser.add_argument(
        "--algorithms",
        type=name_list,
        metavar="A,B",
        help="comma-separated subset of the algorithms (default: all)",
    )
    compare_parser.add_argument(
        "--heuristics",
        type=name_list,
        metavar="H,K",
        help="boards: heuristics for the informed algorithms (default: "
        f"{','.join(CLASSIC_HEURISTICS)}; any of {','.join(HEURISTICS)})",
    )
    add_map_options(compare_parser)
    _add_puzzle_limits(compare_parser, DEFAULT_RUN_TIMEOUT, None, compare=True)
    compare_parser.add_argument(
        "--png", metavar="OUT.png", type=file_name,
        help="bar chart of the nodes expanded per run (log scale)",
    )
    compare_parser.add_argument("--json", action="store_true", help="print a JSON list of runs")
    compare_parser.set_defaults(option_defaults=option_defaults(compare_parser))
    _add_animate_parser(commands)
    return parser


def _add_animate_parser(commands) -> None:
    """`animate MAP --start X Y --goal X Y --gif OUT.gif`: searches side by side as a GIF."""
    animate = commands.add_parser(
        "animate",
        help="animate searches on a map side by side (GIF)",
        description=_wrap(
            "Plan with each algorithm on one map and write an animated GIF: one panel per "
            "algorithm, the cells each has expanded so far (colour by expansion order), its "
            "running count, and its path once found."
        ),
        epilog=f"example: {PROG} animate config/maps/tutorial_grid.yaml --cells --start 0 7 "
        "--goal 9 0 --gif search.gif",
        formatter_class=_Formatter,
    )
    add_map_query(animate)
    animate.add_argument(
        "--algorithms", type=name_list, default=["bfs", "dfs", "astar"], metavar="A,B",
        help=f"comma-separated, one panel each (default bfs,dfs,astar; any of "
        f"{','.join(domain_algorithms(GRID))})",
    )
    animate.add_argument(
        "--gif", metavar="OUT.gif", type=file_name, required=True, help="the GIF to write"
    )
    animate.add_argument(
        "--frames", type=whole_number, default=DEFAULT_FRAMES, metavar="N",
        help=f"frames in the GIF, the last one held (default {DEFAULT_FRAMES}, at most "
        f"{MAX_FRAMES})",
    )
    animate.add_argument(
        "--width", type=whole_number, default=DEFAULT_WIDTH, metavar="PX",
        help=f"the GIF's width at most, {MIN_WIDTH}..{MAX_WIDTH} (default {DEFAULT_WIDTH}), "
        "and a tall map's height; big maps are drawn in blocks of cells",
    )
    add_map_options(animate)
    animate.add_argument(
        "--timeout", type=non_negative, default=DEFAULT_PLAN_TIMEOUT, metavar="S",
        help=f"planning deadline per search, 0 for none (default {DEFAULT_PLAN_TIMEOUT:g})",
    )
    animate.set_defaults(json=False)


def _add_puzzle_limits(
    parser: argparse.ArgumentParser, timeout: float, max_nodes: int | None, *, compare: bool
) -> None:
    """--timeout, --max-nodes and --max-depth; `compare`: their help also covers maps and
    --by-depth, which `puzzle` does not take."""
    group = parser.add_argument_group("limits (per run)")
    group.add_argument(
        "--timeout",
        type=non_negative,
        default=timeout,
        metavar="S",
        help=f"seconds, 0 for no limit (default {timeout:g})",
    )
    nodes_default = (
        f"{max_nodes:,}"
        if max_nodes is not None
        else f"{DEFAULT_RUN_MAX_HELD:,} for boards, none for maps"
    )
    group.add_argument(
        "--max-nodes",
        type=positive_count,
        default=max_nodes,
        metavar="N",
        help=(
            "memory budget: boards, the states a search may hold at once (open + closed, the "
            "table of iterative deepening; IDA* holds only its path); maps, the cells it may "
            f"expand (default {nodes_default})"
            if compare else
            "memory budget: the states a search may hold at once (open + closed, the table of "
            f"iterative deepening; IDA* holds only its path; default {nodes_default})"
        ),
    )
    group.add_argument(
        "--max-depth",
        type=depth,
        default=0,
        metavar="N",
        help=(
            "puzzles: dfs/iddfs depth limit (default 0: the board's known diameter, 31 for "
            "3x3); --by-depth: the deepest solutions IDS runs on (default 0: 12)"
            if compare else
            "dfs/iddfs depth limit (default 0: the board's known diameter, 31 for 3x3)"
        ),
    )


def budget_from(timeout: float, max_nodes: int | None = None) -> Budget:
    """A budget starting now; a timeout of 0 means no deadline."""
    return Budget.from_timeout(timeout if timeout > 0 else None, max_nodes=max_nodes)


def puzzle_budget(args: argparse.Namespace) -> Budget:
    """A solve's budget starting now: --max-nodes is its memory in states, --max-expansions
    (0: none) its expansions, --timeout (0: none) its time."""
    return Budget.from_timeout(
        args.timeout if args.timeout > 0 else None,
        max_nodes=args.max_expansions or None,
        max_held=args.max_nodes,
    )
