"""`grid-planner compare --by-depth`: search cost and b* by solution depth on the 8-puzzle."""

from __future__ import annotations

import argparse
import sys
import time

from grid_planner.puzzle import per_run_budget
from grid_planner.puzzle.by_depth import (
    BY_DEPTH_RUNS,
    DEFAULT_DEPTHS,
    IDS_MAX_DEPTH,
    DepthCell,
    DepthRow,
    by_depth,
)
from grid_planner.puzzle.comparison import DEFAULT_RUN_MAX_HELD

from .output import EXIT_NO_RESULT, EXIT_OK, InputError, print_json

NOT_RUN = "-"


def _cell_text(cell: DepthCell | None, value: str) -> str:
    if cell is None or not cell.solved:
        return "*" if cell is not None and cell.limited else NOT_RUN
    mark = "*" if cell.limited else ""
    if value == "generated":
        return f"{cell.generated:,.0f} ({cell.branching:.2f}){mark}"
    return f"{cell.expanded:,.0f}{mark}"


def depth_table(rows: list[DepthRow], value: str) -> str:
    """The rows as an aligned text table of `value` ("generated", with b*, or "expanded")."""
    labels = [run.label for run in BY_DEPTH_RUNS]
    lines = [["d", *labels]]
    lines += [[str(row.depth), *(_cell_text(row.cells.get(k), value) for k in labels)]
              for row in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(labels) + 1)]
    return "\n".join("  ".join(text.rjust(w) for text, w in zip(line, widths, strict=True))
                     for line in lines)


def run_by_depth(args: argparse.Namespace) -> int:
    """Print the by-depth table (or its JSON); progress per depth goes to stderr."""
    if args.target:
        raise InputError("--by-depth draws its own 8-puzzle boards: give no TARGET")
    max_nodes = args.max_nodes if args.max_nodes is not None else DEFAULT_RUN_MAX_HELD
    timeout = args.timeout if args.timeout > 0 else None
    ids_depth = args.max_depth or IDS_MAX_DEPTH
    began = time.monotonic()

    def progress(row: DepthRow) -> None:
        print(f"depth {row.depth} done ({time.monotonic() - began:.0f} s)", file=sys.stderr)

    rows = by_depth(
        DEFAULT_DEPTHS, args.boards, args.seed, per_run_budget(timeout, max_nodes),
        ids_max_depth=ids_depth, on_row=progress,
    )
    cells = [cell for row in rows for cell in row.cells.values() if cell is not None]
    done = EXIT_OK if any(cell.solved for cell in cells) else EXIT_NO_RESULT
    if args.json:
        print_json([row.to_dict() for row in rows])
        return done
    limits = f"{args.timeout:g} s" if timeout else "no time limit"
    print(
        f"8-puzzle by solution depth: {args.boards} boards a depth drawn from the exact table "
        f"(seed {args.seed}); IDS up to depth {ids_depth}; budget per run {limits}, "
        f"{max_nodes:,} states"
    )
    print()
    print("Mean nodes generated (mean effective branching factor b*):")
    print(depth_table(rows, "generated"))
    print()
    print("Mean nodes expanded:")
    print(depth_table(rows, "expanded"))
    if any(cell.limited for cell in cells):
        print()
        print("* some runs at that depth were stopped by the budget and are left out (a * "
              "alone: all were)")
    return done
