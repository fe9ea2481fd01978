"""The offline command line `grid-planner`: plan on a map file, solve a puzzle, compare algorithms.

    grid-planner plan config/maps/tutorial_grid.yaml --cells --start 0 7 --goal 9 0 --ascii
    grid-planner plan room.png --resolution 0.05 --origin -1 -1 --start 0 0 --goal 2 1.5 --json
    grid-planner puzzle "1 2 3 4 0 6 7 5 8"
    grid-planner compare "8 6 7 2 5 4 3 0 1" --png runs.png
    grid-planner compare config/maps/tutorial_grid.yaml --cells --start 0 7 --goal 9 0
    grid-planner compare --by-depth --boards 20
    grid-planner animate config/maps/tutorial_grid.yaml --cells --start 0 7 --goal 9 0 --gif a.gif

No ROS needed: this is a thin adapter over `grid_planner.grid` and `grid_planner.puzzle`, and
prints their RunReports as they are. `parser` builds the command line, `plan`, `puzzle`,
`compare` (`by_depth` its table by solution depth) and `animate` run the commands, `output`
prints. Exit codes: 0 success, 1 no path / unsolvable / limit reached, 2 bad input (usage, map,
board). Errors are one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from .animate import run_animate
from .compare import run_compare
from .output import EXIT_BAD_INPUT, EXIT_OK, InputError, error_line, print_json
from .parser import UsageError, build_parser
from .plan import run_plan
from .puzzle import run_puzzle

COMMANDS = {
    "plan": run_plan, "puzzle": run_puzzle, "compare": run_compare, "animate": run_animate
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run `grid-planner` with `argv` (default: sys.argv[1:]); returns the exit code."""
    parser = build_parser()
    args = None
    try:
        args = parser.parse_args(argv)
        return COMMANDS[args.command](args)
    except UsageError as error:
        print(error, file=sys.stderr)
        return EXIT_BAD_INPUT
    except InputError as error:
        if getattr(args, "json", False):
            print_json({"status": error.status, "message": str(error)})
        error_line(f"error: {error}")
        return EXIT_BAD_INPUT
    except SystemExit as stop:  # --help and --version end here
        return stop.code if isinstance(stop.code, int) else EXIT_OK
    except KeyboardInterrupt:
        error_line("interrupted")
        return 130
    except BrokenPipeError:  # e.g. `grid-planner compare ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
