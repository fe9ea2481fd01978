"""What the command line prints: exit codes, one-line errors, JSON, and the comparison table."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence

from grid_planner.jit.warm_notice import NOTICE_AFTER_S, warm_with_notice

EXIT_OK = 0
EXIT_NO_RESULT = 1  # no path, unsolvable, or a budget ran out
EXIT_BAD_INPUT = 2  # usage, map or board errors

PROG = "grid-planner"
DFS_NOTE = "depth-first paths are valid but usually far longer than the shortest"


class InputError(Exception):
    """Bad input (usage, map, board): one line on stderr and exit 2.

    `status` is the JSON status printed with `--json` (a ComputePath or SolvePuzzle code name).
    """

    def __init__(self, message: str, status: str = "INVALID_REQUEST") -> None:
        super().__init__(message)
        self.status = status


def print_json(value: object) -> None:
    """One JSON value on stdout."""
    print(json.dumps(value))


def error_line(message: str) -> None:
    """One error line on stderr, prefixed with the program's name."""
    print(f"{PROG}: {message}", file=sys.stderr)


class _TerminalNotice:
    """A logger for `warm_with_notice` that says its line on stderr, on a terminal only (pipes,
    `--json` readers and the tests see nothing, as with the progress bars)."""

    def info(self, message: str) -> None:
        if sys.stderr.isatty():
            error_line(message)


def warm_kernels(warm: Callable[[], float], after: float = NOTICE_AFTER_S) -> float:
    """Run a kernels' `warm` before anything is timed, saying why the command is silent when
    it compiles (the first run after an install: a minute or more)."""
    return warm_with_notice(warm, _TerminalNotice(), "search kernels", after, first="run",
                            waiting="the command goes on when it is done")


def ms(seconds: float) -> str:
    """Seconds as '12.34 ms'."""
    return f"{seconds * 1000.0:.2f} ms"


def compare_table(rows: list[dict], cost_unit: str) -> str:
    """The `compare` rows (RunReport dicts) as an aligned text table."""
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


def compare_notes(rows: list[dict], unit: str) -> list[str]:
    """What a reader should notice in the `compare` rows: agreement, longer paths, limits."""
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
    # A heuristic that runs as another (pdb on 3x3 runs table) repeats that one's row name.
    notes += sorted({f"note: {row['fallback']}" for row in rows if row.get("fallback")})
    return notes
