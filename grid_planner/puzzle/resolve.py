"""What a heuristic name means for one goal: a classic function, or a precomputed table.

`resolve_heuristic(name, goal)` answers with a `ResolvedHeuristic`: the kind that really runs
(`table` and `pdb` fall back to linear_conflict where no table exists, and say so in `note`),
its evaluation function and the table it reads. Resolutions are cached per (name, goal).
This module is the one place that knows every heuristic name (`HEURISTICS`) and refuses an
unknown one (`check_heuristic`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence

from .board import (
    BoardLike,
    InvalidRequestError,
    blank_description,
    board_side,
    default_goal,
    parse_board,
    parse_goal,
    relabelling,
)
from .heuristics import CLASSIC_HEURISTICS, tables_for
from .tables import (
    EXACT_MAX_SIDE,
    AdditiveDatabase,
    ExactTable,
    Setup,
    additive_database,
    default_partition,
    exact_table,
)

# The heuristics that look a precomputed table up (`ResolvedHeuristic.kind` too).
TABLE_HEURISTICS = ("table", "pdb")
# Every heuristic name `solve` accepts.
HEURISTICS = (*CLASSIC_HEURISTICS, *TABLE_HEURISTICS)

# Recently resolved (name, goal) pairs, oldest first; bounded because a service may see many
# goals and each entry keeps its goal's tables alive.
_lock = threading.Lock()
_resolved: OrderedDict[tuple[str, bytes], ResolvedHeuristic] = OrderedDict()
_RESOLVED_LIMIT = 64


def check_heuristic(name: str) -> None:
    """Refuse a heuristic name that is not one of HEURISTICS (InvalidRequestError)."""
    if name not in HEURISTICS:
        raise InvalidRequestError(
            f"unknown heuristic {name!r}; heuristics are {', '.join(HEURISTICS)}"
        )


class ResolvedHeuristic:
    """A heuristic name made concrete for one goal: what it evaluates and with which table.

    `kind` is what runs: one of the classic heuristics, "table" (exact) or "pdb" (additive).
    `note` explains a fallback (e.g. `pdb` on 5x5 runs linear_conflict), else "".
    `relabel` renames `goal`'s tiles to the canonical labels that `table`/`database` use.
    """

    def __init__(
        self,
        requested: str,
        kind: str,
        goal: bytes,
        *,
        table: ExactTable | None = None,
        database: AdditiveDatabase | None = None,
        note: str = "",
    ) -> None:
        self.requested = requested
        self.kind = kind
        self.goal = goal
        self.side = board_side(goal)
        self.table = table
        self.database = database
        self.note = note
        self.relabel = relabelling(goal)
        if table is not None:
            self.evaluate = self._exact
        elif database is not None:
            self.evaluate = self._additive
        else:
            self.evaluate = tables_for(goal).function(kind)

    def _exact(self, board: bytes) -> int:
        return self.table.distance(board.translate(self.relabel))

    def _additive(self, board: bytes) -> int:
        return self.database.value(board.translate(self.relabel))

    def __repr__(self) -> str:
        return f"ResolvedHeuristic({self.requested!r} -> {self.kind!r}, side {self.side})"


def best_heuristic(goal: bytes) -> str:
    """The strongest heuristic for `goal`: its exact table (up to 3x3), else its pattern
    database (4x4 goals with the blank in a corner), else linear_conflict; what `pdb` runs
    as (`heuristic_kind`)."""
    return heuristic_kind("pdb", goal)[0]


def heuristic_kind(name: str, goal: bytes) -> tuple[str, str]:
    """(the kind heuristic `name` runs as for `goal`, the note when that is not `name`), without
    building anything: a table heuristic where its table does not exist runs the nearest."""
    side = board_side(goal)
    blank = goal.index(0)
    if name in CLASSIC_HEURISTICS:
        return name, ""
    if side <= EXACT_MAX_SIDE:
        return "table", "" if name == "table" else (
            f"the exact table serves {side}x{side} boards (pattern databases are for 4x4): "
            "used table"
        )
    if name == "table":
        return "linear_conflict", (
            f"no exact table for {side}x{side} boards (only up to "
            f"{EXACT_MAX_SIDE}x{EXACT_MAX_SIDE}; try pdb): used linear_conflict"
        )
    if default_partition(side, blank) is None:
        where = "" if side != 4 else f" with the blank at {blank_description(side, blank)}"
        offered = "only 4x4 goals with the blank in a corner" if side == 4 else "4x4 only"
        return "linear_conflict", (
            f"no pattern database for {side}x{side} goals{where} ({offered}): used "
            "linear_conflict"
        )
    return "pdb", ""


def _resolve(name: str, goal: bytes, setup: Setup | None) -> ResolvedHeuristic:
    kind, note = heuristic_kind(name, goal)
    if kind == "table":
        return ResolvedHeuristic(name, kind, goal, table=exact_table(goal, setup), note=note)
    if kind == "pdb":
        return ResolvedHeuristic(name, kind, goal, database=additive_database(goal, setup=setup))
    return ResolvedHeuristic(name, kind, goal, note=note)


def resolve_heuristic(name: str, goal: bytes, setup: Setup | None = None) -> ResolvedHeuristic:
    """What heuristic `name` means for `goal` (a validated goal as bytes), tables included.

    Builds or loads the table it needs on first use (waiting within `setup`; SetupStoppedError
    when that runs out); cached per (name, goal) afterwards.
    """
    check_heuristic(name)
    goal = bytes(goal)
    key = (name, goal)
    with _lock:
        found = _resolved.get(key)
        if found is not None:
            _resolved.move_to_end(key)
            return found
    resolved = _resolve(name, goal, setup)
    with _lock:
        _resolved[key] = resolved
        while len(_resolved) > _RESOLVED_LIMIT:
            _resolved.popitem(last=False)
    return resolved


def database_heuristic(database: AdditiveDatabase | ExactTable, goal) -> ResolvedHeuristic:
    """A heuristic for `goal` that uses a given table (e.g. a custom partition in tests)."""
    goal = bytes(goal)
    if board_side(goal) != database.side or goal.index(0) != database.blank:
        raise InvalidRequestError(
            "a table serves only goals of its size with the blank on its cell "
            f"({database.side}x{database.side}, cell {database.blank})"
        )
    if isinstance(database, ExactTable):
        return ResolvedHeuristic("table", "table", goal, table=database)
    return ResolvedHeuristic("pdb", "pdb", goal, database=database)


def heuristic_function(name: str, goal: BoardLike) -> Callable[[bytes], int]:
    """The heuristic `name` for `goal`, as a fast function of a bytes board.

    `table` and `pdb` build or load their table on first use.
    """
    return resolve_heuristic(name, bytes(parse_board(goal))).evaluate


def prepare(
    heuristic: str, side: int, goal: Sequence[int] | None = None, setup: Setup | None = None
) -> float:
    """Build or load what `heuristic` needs for `goal` (None: the default goal); the seconds.

    For a ROS node's start-up: after it, solves with this heuristic and goal pay no build.
    Classic heuristics need nothing (a few microseconds). `setup` bounds the wait.
    """
    began = time.perf_counter()
    check_heuristic(heuristic)
    if isinstance(side, bool) or not isinstance(side, int) or not 2 <= side <= 16:
        raise InvalidRequestError(f"side must be an integer 2..16, got {side!r}")
    target = default_goal(side) if goal is None else parse_goal(goal, side)
    resolve_heuristic(heuristic, bytes(target), setup)
    return time.perf_counter() - began
