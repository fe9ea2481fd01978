"""Compiled IDA* for sliding puzzles (numba), with Manhattan, exact-table or additive-PDB bounds.

The search is the reference `grid_planner.search.idastar` step for step: the same move order
(MOVES unless told otherwise), the same pruning (f = g + h > bound; the move that undoes the
last one is never generated), the same goal test on generation and the same counting, so with
the same heuristic it returns the same solution, `nodes_expanded`, `nodes_generated` and
`max_frontier` (Korf's 1985 counts with his move order). What differs is the machinery:

- one board array updated in place, an explicit stack of (blank cell, h, arriving direction,
  next direction) per depth, and no Python object per node;
- heuristics updated per move: Manhattan by one table difference, the additive databases by
  moving one group's index by `(to - from) * weight` (only the moved tile's group changes);
  the exact table (3x3) looks up the child's permutation rank;
- all search state lives in arrays, so the kernel is resumable: each call expands at most up
  to `stop_at` nodes and returns PAUSED; `grid_planner.jit.driver` checks the deadline and the
  cancel event between calls (every CHUNK_EXPANSIONS expansions, a few milliseconds), reports
  progress there, and caps the last chunk at `max_nodes`, so LIMIT_REACHED comes back with the
  same LimitKind and, for max_nodes, the same counts as the reference. The kernel releases
  the GIL (`nogil`), so a ROS callback can set the cancel event while it runs.

Boards are searched in canonical labels (`board.relabelling`: tiles renamed so the goal is the
canonical one for its blank cell); renaming keeps every move, so the moves found are the moves
of the original board.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE, driver, njit

from ..search.result import Budget, SearchResult, SearchStatus
from .board import MOVES, InvalidRequestError, manhattan_table, move_targets, rank_tiles
from .resolve import ResolvedHeuristic, database_heuristic, resolve_heuristic
from .tables import build_database, exact_table

# The heuristics the kernel evaluates itself.
FAST_HEURISTIC_KINDS = ("manhattan", "table", "pdb")
MODE_MANHATTAN, MODE_TABLE, MODE_PDB = 0, 1, 2
_MODES = {"manhattan": MODE_MANHATTAN, "table": MODE_TABLE, "pdb": MODE_PDB}

# Expansions per kernel call between two budget checks (a few milliseconds).
CHUNK_EXPANSIONS = 1 << 16
# Bounds larger than this never happen with an admissible heuristic below 16x16.
_INFINITE = 1 << 40
# Spare stack depth beyond the bound; a pass whose bound outgrows the stack gets a new one.
_STACK_MARGIN = 16

# The kernel's own slots of the driver's state array (FOUND holds the last move's direction).
_FIRST = driver.FIRST_FAMILY_SLOT
_DEPTH = _FIRST  # depth of the node on top of the stack; -1 before a pass starts
_BOUND = _FIRST + 1
_NEXT_BOUND = _FIRST + 2
_PENDING = _FIRST + 3  # 1: a generated child (or a pass's start) waits to be expanded
_PENDING_DIRECTION = _FIRST + 4
_PENDING_H = _FIRST + 5
_START_BLANK = _FIRST + 6
_START_H = _FIRST + 7
_STATE_SIZE = _FIRST + 8

# Whether this process has compiled or loaded the kernels (`warm_once`).
_warm = False
_warm_lock = threading.Lock()

_DIRECTION = {move: index for index, move in enumerate(MOVES)}  # Up 0, Down 1, Left 2, Right 3


@njit(cache=True, nogil=True)
def idastar_kernel(
    tiles,
    goal,
    targets,
    order,
    mode,
    manhattan,
    exact,
    tile_group,
    tile_weight,
    group_offset,
    group_index,
    pattern,
    node_blank,
    node_h,
    node_in,
    node_next,
    state,
    stop_at,
):  # pragma: no cover - compiled; the reference-equality tests cover it
    """Run IDA* until solved, proven unsolvable, `stop_at` expansions, or the stack is full.

    `tiles` is the current board (the start's when a pass begins); `targets[cell * 4 + d]` is
    where the blank goes in direction d (-1: off); `order` lists the directions to try.
    """
    count = tiles.shape[0]
    capacity = node_blank.shape[0]
    depth = state[_DEPTH]
    bound = state[_BOUND]
    next_bound = state[_NEXT_BOUND]
    expanded = state[driver.EXPANDED]
    generated = state[driver.GENERATED]
    max_frontier = state[driver.MAX_FRONTIER]
    pending = state[_PENDING]
    pending_direction = state[_PENDING_DIRECTION]
    pending_h = state[_PENDING_H]
    status = driver.PAUSED
    while True:
        if pending:
            if depth < 0 and bound + 2 > capacity:
                status = driver.GROW
                break
            if expanded >= stop_at:
                status = driver.PAUSED
                break
            expanded += 1
            pending = 0
            if depth < 0:  # a new pass starts at the start board
                depth = 0
                node_blank[0] = state[_START_BLANK]
                node_h[0] = state[_START_H]
                node_in[0] = -1
            else:
                blank = node_blank[depth]
                source = targets[blank * 4 + pending_direction]
                tile = tiles[source]
                tiles[blank] = tile
                tiles[source] = 0
                if mode == MODE_PDB:
                    group_index[tile_group[tile]] += (blank - source) * tile_weight[tile]
                depth += 1
                node_blank[depth] = source
                node_h[depth] = pending_h
                node_in[depth] = pending_direction
            node_next[depth] = 0
            if depth + 1 > max_frontier:
                max_frontier = depth + 1
            continue
        k = node_next[depth]
        if k == 4:
            if depth == 0:
                if next_bound >= _INFINITE:
                    status = driver.EXHAUSTED
                    break
                bound = next_bound
                next_bound = _INFINITE
                depth = -1
                pending = 1
                continue
            # Undo the move into this node: the tile now on the parent's blank cell goes back.
            parent_blank = node_blank[depth - 1]
            source = node_blank[depth]
            tile = tiles[parent_blank]
            tiles[source] = tile
            tiles[parent_blank] = 0
            if mode == MODE_PDB:
                group_index[tile_group[tile]] -= (parent_blank - source) * tile_weight[tile]
            depth -= 1
            continue
        node_next[depth] = k + 1
        direction = order[k]
        blank = node_blank[depth]
        source = targets[blank * 4 + direction]
        if source < 0:
            continue
        arrived = node_in[depth]
        if arrived >= 0 and direction == (arrived ^ 1):
            continue
        generated += 1
        tile = tiles[source]
        h = node_h[depth]
        if mode == MODE_MANHATTAN:
            h += manhattan[blank * count + tile] - manhattan[source * count + tile]
        elif mode == MODE_PDB:
            group = tile_group[tile]
            base = group_offset[group]
            index = group_index[group]
            h += (
                np.int64(pattern[base + index + (blank - source) * tile_weight[tile]])
                - np.int64(pattern[base + index])
            )
        else:
            tiles[blank] = tile
            tiles[source] = 0
            h = np.int64(exact[rank_tiles(tiles)])
            tiles[source] = tile
            tiles[blank] = 0
        f = depth + 1 + h
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        if h == 0:
            at_goal = True
            for cell in range(count):
                value = tiles[cell]
                if cell == blank:
                    value = tile
                elif cell == source:
                    value = 0
                if value != goal[cell]:
                    at_goal = False
                    break
            if at_goal:
                state[driver.FOUND] = direction
                status = driver.SOLVED
                break
        pending = 1
        pending_direction = direction
        pending_h = h
    state[_DEPTH] = depth
    state[_BOUND] = bound
    state[_NEXT_BOUND] = next_bound
    driver.save_counters(state, expanded, generated, max_frontier)
    state[_PENDING] = pending
    state[_PENDING_DIRECTION] = pending_direction
    state[_PENDING_H] = pending_h
    return status


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
        return max(1, int(self.state[_DEPTH]) + 1)

    def bound(self) -> int:
        """The f bound of the current pass."""
        return int(self.state[_BOUND])

    def grow(self) -> None:
        """Stacks deep enough for the current bound (GROW comes only between passes)."""
        capacity = int(self.state[_BOUND]) + 2 + _STACK_MARGIN
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
    state = driver.reset_state(np.empty(_STATE_SIZE, dtype=np.int64))
    state[_DEPTH] = -1
    state[_BOUND] = h_start
    state[_NEXT_BOUND] = _INFINITE
    state[_PENDING] = 1
    state[_START_BLANK] = canonical.index(0)
    state[_START_H] = h_start
    search = _IdaStar(
        np.frombuffer(canonical, dtype=np.uint8).astype(np.int64), _tables_for(heuristic),
        np.array([_DIRECTION[move] for move in move_order], dtype=np.int64), group_index, state,
    )
    ended = driver.run(search, budget, chunk)
    counts = (ended.nodes_expanded, ended.nodes_generated, ended.max_frontier, ended.max_frontier)
    if ended.status is not SearchStatus.SOLVED:
        return SearchResult.ended("idastar", ended.status, began, counts, limit=ended.limit)
    node_in = search.stacks[2]
    directions = [int(node_in[d]) for d in range(1, int(state[_DEPTH]) + 1)]
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
