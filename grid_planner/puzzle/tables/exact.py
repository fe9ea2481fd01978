"""The exact distance table (boards up to 3x3): every board's true distance, by BFS from a goal.

Indexed by the board's permutation rank: 9! = 362,880 entries for 3x3, half of them reachable
(181,440 boards). Built in well under a second by a breadth-first search vectorised over each
layer, kept in memory only, one table per blank cell of the goal (for its canonical goal; other
goals are served by renaming tiles, see `board.relabelling`).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Sequence

import numpy as np

from ..board import (
    InvalidRequestError,
    blank_description,
    board_side,
    canonical_goal,
    move_targets,
    permutation_rank,
    permutation_ranks,
)
from .builds import Setup, TableBuild, start_build
from .store import count_build

_log = logging.getLogger(__name__)

EXACT_MAX_SIDE = 3
# A table entry for a board that no search reached (unsolvable for that goal).
UNREACHED = 255

_lock = threading.Lock()
_tables: dict[tuple[int, int], ExactTable] = {}


class ExactTable:
    """The distance to `canonical_goal(side, blank)` of every board, by permutation rank."""

    kind = "table"

    def __init__(self, side: int, blank: int, distances: np.ndarray, build_seconds: float):
        self.side = side
        self.blank = blank
        self.goal = canonical_goal(side, blank)
        self.distances = distances
        self.build_seconds = build_seconds
        self._view = memoryview(distances)

    def distance(self, canonical_board: bytes) -> int:
        """The exact distance of a canonically labelled board (UNREACHED if unsolvable)."""
        return self._view[permutation_rank(canonical_board)]

    @property
    def reachable(self) -> int:
        """How many boards the table holds (181,440 for 3x3)."""
        return int(np.count_nonzero(self.distances != UNREACHED))


def _build(side: int, blank: int, build: TableBuild | None = None) -> ExactTable:
    began = time.perf_counter()
    reachable = math.factorial(side * side) // 2  # the solvable half
    count = side * side
    goal = np.array(canonical_goal(side, blank), dtype=np.int8)
    distances = np.full(math.factorial(count), UNREACHED, dtype=np.uint8)
    distances[permutation_rank(goal.tolist())] = 0
    targets = move_targets(side).reshape(count, 4)
    frontier = goal[None, :]
    blanks = np.array([blank], dtype=np.int64)
    depth = 0
    reached = 1
    while frontier.shape[0]:
        if build is not None:
            build.check()
            build.report(reached / reachable)
        depth += 1
        boards, moved = [], []
        for direction in range(4):
            to = targets[blanks, direction]
            legal = to >= 0
            child = frontier[legal].copy()
            rows = np.arange(child.shape[0])
            at, to = blanks[legal], to[legal]
            child[rows, at] = child[rows, to]
            child[rows, to] = 0
            boards.append(child)
            moved.append(to)
        children = np.concatenate(boards)
        child_blanks = np.concatenate(moved)
        ranks = permutation_ranks(children)
        fresh = distances[ranks] == UNREACHED
        ranks, first = np.unique(ranks[fresh], return_index=True)
        distances[ranks] = depth
        frontier = children[fresh][first]
        blanks = child_blanks[fresh][first]
        reached += ranks.size
    seconds = time.perf_counter() - began
    table = ExactTable(side, blank, distances, seconds)
    count_build("table")
    _log.info(
        "built the exact %dx%d distance table for the blank at %s: %d boards, %d moves at most, "
        "%.2f s", side, side, blank_description(side, blank), table.reachable, depth - 1, seconds,
    )
    return table


def exact_table(goal: Sequence[int], setup: Setup | None = None) -> ExactTable:
    """The exact table serving `goal` (built on first use, then kept in memory).

    The build runs as a TableBuild shared by every caller that needs it; this caller waits
    within `setup` (SetupStoppedError when it runs out).
    """
    side = board_side(goal)
    if side > EXACT_MAX_SIDE:
        raise InvalidRequestError(
            f"an exact distance table exists for boards up to {EXACT_MAX_SIDE}x{EXACT_MAX_SIDE}, "
            f"not {side}x{side}"
        )
    key = (side, list(goal).index(0))
    with _lock:
        table = _tables.get(key)
    if table is not None:
        return table

    def work(build: TableBuild) -> ExactTable:
        built = _build(*key, build)
        with _lock:
            _tables[key] = built
        return built

    setup = setup or Setup()
    title = f"the exact {side}x{side} table (blank at {blank_description(side, key[1])})"
    return start_build(("table", key), title, work, setup.timeout).wait(setup)
