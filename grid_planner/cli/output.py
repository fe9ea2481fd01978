"""What the command line prints: exit codes, one-line errors, JSON, and the comparison table."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grid_planner.jit.warm_notice import NOTICE_AFTER_S, warm_with_notice
from grid_planner.search.registry import GRID, offered

EXIT_OK = 0
EXIT_NO_RESULT = 1  # no path, unsolvable, or a budget ran out
EXIT_BAD_INPUT = 2  # usage, map or board errors

PROG = "grid-planner"


def dfs_note(noun: str = "paths") -> str:
    """Why a depth-first result is long; `noun` is "paths" or "solutions"."""
    return f"depth-first {noun} are valid but usually far longer than the shortest"


def quality_words(optimal: str | None, algorithm: str, noun: str) -> str:
    """How a found path or solution (`noun`) is described: the words `optimal` when the
    algorithm proved it the best (None: it did not), dfs's caveat, or no guarantee."""
    if optimal is not None:
        return optimal
    if algorithm == "dfs":
        return f"NOT optimal: {dfs_note(noun)}"
    return "not guaranteed to be the shortest"


def failure_line(name: str, message: str, nodes_expanded: int | None) -> str:
    """A failed search's one line: `NAME: message`, with how much it searched (when it did and
    the message does not say so already)."""
    searched = ""
    if nodes_expanded is not None and "nodes expanded" not in message:
        searched = f" ({nodes_expanded:,} nodes expanded)"
    return f"{name}: {message}{searched}"


class InputError(Exception):
    """Bad input (usage, map, board): one line on stderr and exit 2.

    `status` is the JSON status printed with `--json` (a ComputePath or SolvePuzzle code name).
    """

    def __init__(self, message: str, status: str = "INVALID_REQUEST") -> None:
        super().__init__(message)
        self.status = status


def print_json(value: object) -> None:
    """One JSON value on stdout; a non-finite number (e.g. the clearance on a map without
    obstacles) is null, as JSON has no infinity or NaN."""
    print(json.dumps(_finite_or_null(value), allow_nan=False))


def _finite_or_null(value: object) -> object:
    """`value` with every infinite or NaN float, at any depth, replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite_or_null(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite_or_null(item) for item in value]
    return value


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


@dataclass(frozen=True)
class Optimum:
    """What the optimal runs of a `compare` minimise, and how its notes name it: a row's
    `field` times `scale`, written by `template`; `more` says by how much a row exceeds it."""

    label: str  # "shortest", "shortest in metres", "least cost"
    noun: str  # what optimal runs could disagree on
    template: str  # e.g. "{} steps"
    more: str = "longer"
    field: str = "length"
    scale: float = 1.0

    def value(self, row: dict) -> float:
        """The row's value of what the optimal runs minimise."""
        return row[self.field] * self.scale

    def text(self, value: float) -> str:
        """The value as the notes write it ('61 steps', '6.12426 m')."""
        return self.template.format(f"{value:g}")


SHORTEST_MOVES = Optimum("shortest", "length", "{} moves")
SHORTEST_STEPS = Optimum("shortest", "length", "{} steps")
LEAST_COST = Optimum("least cost", "cost", "search cost {}", more="more", field="search_cost")
# The option that raises each limit a `compare` run can reach, in the order the hint names them.
LIMIT_OPTIONS = {
    "deadline": "--timeout", "max_nodes": "--max-nodes", "memory": "--max-nodes",
    "max_depth": "--max-depth",
}


def shortest_in_metres(resolution: float) -> Optimum:
    """The optimum of an 8-connected grid without costs: the searched path's metres (its
    search cost counts cells, a diagonal sqrt 2)."""
    return Optimum("shortest in metres", "length in metres", "{} m", more="m longer",
                   field="search_cost", scale=resolution)


def compare_table(rows: list[dict], cost_unit: str, search_cost: bool = False) -> str:
    """The `compare` rows (RunReport dicts) as an aligned text table; `search_cost` adds the
    cost the searches weighed (a weighted map's rows), and the metres are then titled length."""
    if search_cost:
        cost_titles = ("length (m)", "search cost")
    else:
        cost_titles = (f"cost ({cost_unit})" if cost_unit else "cost",)
    header = ("algorithm", "heuristic", "status", "length", *cost_titles, "optimal", "expanded",
              "generated", "peak frontier", "time ms")
    cells = [_table_cells(row, search_cost) for row in rows]
    widths = [max(len(line[i]) for line in [header, *cells]) for i in range(len(header))]
    left = 3  # algorithm, heuristic and status read better left-aligned; numbers right-aligned

    def line(values: Sequence[str]) -> str:
        return "  ".join(
            value.ljust(width) if i < left else value.rjust(width)
            for i, (value, width) in enumerate(zip(values, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(values) for values in cells)])


def _table_cells(row: dict, search_cost: bool) -> tuple[str, ...]:
    solved = row["status"] == "SOLVED"
    costs = (row["cost"], row["search_cost"]) if search_cost else (row["cost"],)
    return (
        row["algorithm"],
        row["heuristic"] or "-",
        row["status"],
        str(row["length"]) if solved else "-",
        *(f"{cost:g}" if solved else "-" for cost in costs),
        ("yes" if row["optimal"] else "no") if solved else "-",
        f"{row['nodes_expanded']:,}",
        f"{row['nodes_generated']:,}",
        f"{row['max_frontier']:,}",
        f"{row['planning_time'] * 1000.0:.2f}",
    )


def compare_notes(rows: list[dict], optimum: Optimum) -> list[str]:
    """What a reader should notice in the `compare` rows: what the optimal runs found and
    whether they agree, runs that found worse, limits."""
    solved = [row for row in rows if row["status"] == "SOLVED"]
    found = sorted({optimum.value(row) for row in solved if row["optimal"]})
    if not found:
        return _limit_notes(rows) + _fallback_notes(rows)
    best = found[0]
    notes = []
    if _exceeds(found[-1], best):
        values = ", ".join(f"{value:g}" for value in found)
        notes.append(f"WARNING: optimal runs disagree on the {optimum.noun}: [{values}]")
    else:
        agree = sum(1 for row in solved if row["optimal"])
        runs = "the one optimal run" if agree == 1 else f"all {agree} optimal runs agree"
        notes.append(f"{optimum.label}: {optimum.text(best)} ({runs})")
    for row in solved:
        value = optimum.value(row)
        if not row["optimal"] and _exceeds(value, best):
            notes.append(
                f"{row['algorithm']}: {optimum.text(value)}, {value - best:g} {optimum.more}"
                f"{_why_worse(row['algorithm'], optimum)}"
            )
    return notes + _limit_notes(rows) + _fallback_notes(rows)


def _exceeds(value: float, best: float) -> bool:
    """Whether `value` is more than `best` by more than rounding (search costs are sums)."""
    return value > best and not math.isclose(value, best, rel_tol=1e-9)


def _why_worse(algorithm: str, optimum: Optimum) -> str:
    if algorithm == "dfs":
        return f": {dfs_note()}"
    info = offered(GRID, algorithm)
    if info is not None and info.unit_cost_only and optimum.field != "length":
        # Optimal for unit steps only: on a weighted or 8-connected grid, not the optimum.
        return f": breadth-first searches take the fewest steps, not the {optimum.label}"
    return ""


def _limit_notes(rows: list[dict]) -> list[str]:
    """A hint naming the options that raise the limits the LIMIT_REACHED rows reached."""
    limits = {row["limit"] for row in rows if row["status"] == "LIMIT_REACHED"}
    if not limits:
        return []
    options = dict.fromkeys(flag for limit, flag in LIMIT_OPTIONS.items() if limit in limits)
    hint = f" (raise {' or '.join(options)})" if options else ""
    return [f"LIMIT_REACHED: the run exhausted its budget{hint}"]


def _fallback_notes(rows: list[dict]) -> list[str]:
    """Why a heuristic runs as another (pdb on 3x3 runs table, repeating that one's row name)."""
    return sorted({f"note: {row['fallback']}" for row in rows if row.get("fallback")})
