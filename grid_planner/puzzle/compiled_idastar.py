"""Compiled IDA* for sliding puzzles (numba), with Manhattan, exact-table or additive-PDB bounds.

The search is the reference `grid_planner.search.idastar` step for step: the same move order
(MOVES unless told otherwise), the same pruning (f = g + h > bound; the move that undoes the
last one is never generated), the same goal test on generation and the same counting, so with
the same heuristic it returns the same solution, `nodes_expanded`, `nodes_generated` and
`max_frontier` (Korf's 1985 counts with his move order). What differs is the machinery, the
kernel of `idastar_kernel` (one board updated in place, an explicit stack, heuristics updated
per move). Here it is set up and driven: `grid_planner.jit.driver` runs it in chunks of
CHUNK_EXPANSIONS expansions (a few milliseconds), checks the deadline and the cancel event
between them, reports progress there, and caps the last chunk at `max_nodes`, so LIMIT_REACHED
comes back with the same LimitKind and, for max_nodes, the same counts as the reference.

Boards are searched in canonical labels (`board.relabelling`: tiles renamed so the goal is the
canonical one for its blank cell); renaming keeps every move, so the moves found are the moves
of the original board.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, driver

from ..search.result import Budget, SearchResult, SearchStatus
from .board import MOVES, InvalidRequestError, manhattan_table, move_targets
from .idastar_kernel import (
    BOUND,
    DEPTH,
    INFINITE_BOUND,
    MODE_MANHATTAN,
    MODE_PDB,
    MODE_TABLE,
    NEXT_BOUND,
    PENDING,
    START_BLANK,
    START_H,
    STATE_SIZE,
    idastar_kernel,
)
from .resolve import ResolvedHeuristic, database_heuristic, resolve_heuristic
from .tables import build_database, exact_table

# The heuristics the kernel evaluates itself.
_MODES = {"manhattan": MODE_MANHATTAN, "table": MODE_TABLE, "pdb": MODE_PDB}
FAST_HEURISTIC_KINDS = tuple(_MODES)

# Expansions per kernel call between two budget checks (a few milliseconds).
CHUNK_EXPANSIONS = 1 << 16
# Spare stack depth beyond the bound; a pass whose bound outgrows the stack gets a new one.
_STACK_MARGIN = 16

# Whether this process has compiled or loaded the kernels (`warm_once`).
_warm = False
_warm_lock = threading.Lock()

_DIRECTION = {move: index for index, move in enumerate(MOVES)}  # Up 0, Down 1, Left 2, Right 3


_EMPTY_U8 = np.zeros(1, dtype=np.uint8)
_EMPTY_I64 = np.zeros(1, dtype=np.int64)


class _Tables:
    """The read-only arrays one heuristic and board size give the kernel (shared by runs)."""

    def __init__(self, heuristic: ResolvedHeuristic) -> None:
        canonical = heuristic.goal.translate(heuristic.relabel)
        self.goal = np.frombuffer(canonical, dtype=np.uint8).astype(np.int64)
        self.targets = move_targets(heuristic.side)
        self.target_list = self.targets.tolist()
        self.mode = _MODES[heuristic.kind]
        self.manhattan = _EMPTY_I64
        self.exact = _EMPTY_U8
        self.tile_group = self.tile_weight = self.group_offset = _EMPTY_I64
        self.pattern = _EMPTY_U8
        if heuristic.kind == "manhattan":
            self.manhattan = manhattan_table(canonical)
        elif heuristic.kind == "table":
            self.exact = heuristic.table.distances
        else:
            database = heuristic.database
            self.tile_group = database.tile_group
            self.tile_weight = database.tile_weight
            self.group_offset = database.group_offset
            self.pattern = database.values


_tables_lock = threading.Lock()
_tables: dict[int, tuple[ResolvedHeuristic, _Tables]] = {}


def _tables_for(heuristic: ResolvedHeuristic) -> _Tables:
    with _tables_lock:
        found = _tables.get(id(heuristic))
        if found is None or found[0] is not heuristic:
            if len(_tables) > 64:
                _tables.clear()
            found = _tables[id(heuristic)] = (heuristic, _Tables(heuristic))
    return found[1]


def _path_boards(start: bytes, targets: list[int], directions: Sequence[int]) -> tuple[list, list]:
    """The boards and move names along `directions` from `start` (`targets`: `move_targets`)."""
    board = bytearray(start)
    blank = board.index(0)
    states = [bytes(board)]
    actions = []
    for direction in directions:
        target = targets[blank * 4 + direction]
        board[blank], board[target] = board[target], 0
        blank = target
        states.append(bytes(board))
        actions.append(MOVES[direction])
    return states, actions


class _IdaStar(driver.Kernel):
    """The IDA* kernel on one board: the board, the four node stacks and the state."""

    def __init__(
        self, tiles: np.ndarray, tables: _Tables, order: np.ndarray, group_index: np.ndarray,
        state: np.ndarray,
    ) -> None:
        self.tiles = tiles
        self.tables = tables
        self.order = order
        self.group_index = group_index
        self.state = state
        self.stacks: list[np.ndarray] = []
        self.grow()

    def step(self, allowed: int) -> int:
        """One call of the IDA* kernel."""
        tables = self.tables
        return idastar_kernel(
            self.tiles, tables.goal, tables.targets, self.order, tables.mode, tables.manhattan,
            tables.exact, tables.tile_group, tables.tile_weight, tables.group_offset,
            self.group_index, tables.pattern, *self.stacks, self.state,
            int(self.state[driver.EXPANDED]) + allowed,
        )

    def held(self) -> int:
        """The boards on the stack: IDA* holds its path and nothing else."""
        return max(1, int(self.state[DEPTH]) + 1)

    def bound(self) -> int:
        """The f bound of the current pass."""
        return int(self.state[BOUND])

    def grow(self) -> None:
        """Stacks deep enough for the current bound (GROW comes only between passes)."""
        capacity = int(self.state[BOUND]) + 2 + _STACK_MARGIN
        self.stacks = [np.zeros(capacity, dtype=np.int64) for _ in range(4)]


def fast_idastar(
    start: bytes,
    heuristic: ResolvedHeuristic,
    budget: Budget | None = None,
    move_order: Sequence[str] = MOVES,
    chunk: int = CHUNK_EXPANSIONS,
) -> SearchResult:
    """IDA* from the board `start` to `heuristic.goal`, compiled; a SearchResult like idastar's.

    `heuristic.kind` must be in FAST_HEURISTIC_KINDS. Solvability is the caller's business:
    an unsolvable start makes IDA* deepen until the budget stops it.
    """
    if heuristic.kind not in FAST_HEURISTIC_KINDS:
        raise InvalidRequestError(
            f"the compiled IDA* evaluates {', '.join(FAST_HEURISTIC_KINDS)}, not "
            f"{heuristic.kind!r}"
        )
    if sorted(move_order) != sorted(MOVES):
        raise InvalidRequestError(f"move order must be a permutation of {MOVES}, got {move_order}")
    began = time.perf_counter()
    start = bytes(start)
    if start == heuristic.goal:
        return SearchResult.ended("idastar", SearchStatus.SOLVED, began, (0, 1, 1, 1), [start])
    h_start = heuristic.evaluate(start)
    canonical = start.translate(heuristic.relabel)
    group_index = _EMPTY_I64
    if heuristic.kind == "pdb":
        group_index = np.array(heuristic.database.group_indices(canonical), dtype=np.int64)
    state = driver.reset_state(np.empty(STATE_SIZE, dtype=np.int64))
    state[DEPTH] = -1
    state[BOUND] = h_start
    state[NEXT_BOUND] = INFINITE_BOUND
    state[PENDING] = 1
    state[START_BLANK] = canonical.index(0)
    state[START_H] = h_start
    search = _IdaStar(
        np.frombuffer(canonical, dtype=np.uint8).astype(np.int64), _tables_for(heuristic),
        np.array([_DIRECTION[move] for move in move_order], dtype=np.int64), group_index, state,
    )
    ended = driver.run(search, budget, chunk)
    counts = (ended.nodes_expanded, ended.nodes_generated, ended.max_frontier, ended.max_frontier)
    if ended.status is not SearchStatus.SOLVED:
        return SearchResult.ended("idastar", ended.status, began, counts, limit=ended.limit)
    node_in = search.stacks[2]
    directions = [int(node_in[d]) for d in range(1, int(state[DEPTH]) + 1)]
    directions.append(ended.found)
    states, actions = _path_boards(start, search.tables.target_list, directions)
    cost = float(len(actions))
    return SearchResult.ended("idastar", ended.status, began, counts, states, actions, cost)


def warm_up() -> float:
    """Compile (or load from numba's cache) the puzzle kernels; returns the seconds it took.

    Runs each heuristic mode once on a tiny 2x2 board through the same code path and argument
    types as real solves. Without numba it returns 0 (the fallback is logged on first use).
    """
    global _warm
    if not NUMBA_AVAILABLE:
        return 0.0
    began = time.perf_counter()
    goal = bytes((1, 2, 3, 0))
    start = bytes((0, 1, 3, 2))  # two moves from the goal
    budget = Budget(max_nodes=1000, deadline=time.monotonic() + 60.0)
    for table in (None, exact_table(goal), build_database(2, ((0, 1), (2,)))):
        heuristic = (
            resolve_heuristic("manhattan", goal) if table is None
            else database_heuristic(table, goal)
        )
        fast_idastar(start, heuristic, budget)
    _warm = True
    return time.perf_counter() - began


def warm_once() -> float:
    """`warm_up` unless this process has done it; the seconds this call spent. A solve calls
    this in its set-up, so the first compiled solve's planning time and deadline never pay
    for numba's load (about 1 s from the cache; concurrent first solves wait for one load)."""
    if _warm:
        return 0.0
    began = time.perf_counter()
    with _warm_lock:
        if not _warm:
            warm_up()
    return time.perf_counter() - began
