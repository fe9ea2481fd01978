"""Precomputed puzzle heuristics: the exact table (2x2, 3x3) and additive pattern databases.

Both are built by breadth-first search from a goal and then answer by lookup:

- `ExactTable`: the true distance of every board to the goal, indexed by the board's
  permutation rank (9! = 362,880 entries for 3x3, half of them reachable: 181,440 boards).
  Built in well under a second, kept in memory only.
- `AdditiveDatabase`: the tiles are split into disjoint groups (6-6-3 on 4x4). For each group a
  table holds, for every placement of that group's tiles, the fewest moves *of those tiles*
  that bring them home when the other tiles are erased: the blank moves freely through cells
  no group tile holds, and a move swaps it with an adjacent group tile. The table keeps the
  least such count over the blank's positions, so the blank is not part of the index. Every
  real move moves one tile of one group, so the group values add up to a lower bound (Korf &
  Felner 2002). A table is indexed directly by the group's tile positions,
  `sum(position_i * cells**(k-1-i))` (16**6 entries for 6 tiles on 4x4), so one move changes
  the index by `(to - from) * weight`: the incremental update the compiled IDA* uses. 6-6-3 on
  4x4 is 2 x 16.8 MB + 4 KB (33.6 MB), built in about 10 s with numba (about 30 s with NumPy
  alone), cached on disk (`database_store`) and loaded in about 0.1 s. 7-8 would need
  518,918,400 entries for its 8-tile group even perfectly hashed (4.3 GB directly indexed),
  and a build of minutes: not worth it here, where 6-6-3 solves Korf's 100 in seconds.

Goals and relabelling: a board's distance to a goal does not change when the tiles are renamed
on both, so every table is built for one *canonical* goal per blank cell (tiles 1, 2, ... in
row-major order around the blank: 1..15,0 for the blank last, 0..15 for the blank first) and
any goal with its blank on the same cell is served by renaming tiles (`relabelling`). The
additive databases' groups are groups of goal cells, so the renaming keeps them valid.

Which goals get a pattern database: on 4x4, goals whose blank is in a corner (the 6-6-3 layout
below, mirrored into that corner), which covers both conventions in use (blank first, blank
last) at one 10 s build and 34 MB each. Other 4x4 goals and larger boards use linear conflict
and say so in `ResolvedHeuristic.note`, rather than make a service request wait for a build on
a layout nobody tuned. Boards up to 3x3 use the exact table for `pdb` too.
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from . import database_store
from ._jit import NUMBA_AVAILABLE, njit, warn_fallback_once
from .board import InvalidRequestError, default_goal, parse_goal
from .heuristics import CLASSIC_HEURISTICS, HEURISTICS, tables_for

_log = logging.getLogger(__name__)

EXACT_MAX_SIDE = 3
# The `ResolvedHeuristic.kind`s that look a table up.
PRECOMPUTED_KINDS = ("table", "pdb")
# Direct-indexed group tables larger than this are refused: a 6-tile group on 4x4 has 16.8 M
# entries (its build needs about 6 bytes an entry), a 7-tile group 268 M.
MAX_GROUP_ENTRIES = 1 << 25
UNREACHED = 255
# Directions in MOVES order; a direction's opposite is `direction ^ 1`.
UP, DOWN, LEFT, RIGHT = range(4)

# The 6-6-3 layout of Korf & Felner (2002) for a 4x4 goal with the blank in cell 0, as goal
# cells (A and B: 6 tiles, C: 3):
#    _  A  B  B
#    A  A  B  B
#    A  A  B  B
#    A  C  C  C
# Goals with the blank in another corner use it mirrored into that corner.
_CORNER_663 = ((1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11), (13, 14, 15))

_builds: Counter[str] = Counter()
_memory_lock = threading.RLock()
_exact_tables: dict[tuple[int, int], ExactTable] = {}
_additive_databases: dict[tuple[int, tuple[tuple[int, ...], ...]], AdditiveDatabase] = {}
# Recently resolved (name, goal) pairs, oldest first; bounded because a service may see many
# goals and each entry keeps its goal's tables alive.
_resolved: OrderedDict[tuple[str, bytes], ResolvedHeuristic] = OrderedDict()
_RESOLVED_LIMIT = 64


# --- geometry and labels ----------------------------------------------------------------------


def move_targets(side: int) -> np.ndarray:
    """Flat int64 `targets[cell * 4 + direction]`: where the blank goes (-1: off the board)."""
    count = side * side
    targets = np.full(count * 4, -1, dtype=np.int64)
    for cell in range(count):
        row, column = divmod(cell, side)
        if row > 0:
            targets[cell * 4 + UP] = cell - side
        if row < side - 1:
            targets[cell * 4 + DOWN] = cell + side
        if column > 0:
            targets[cell * 4 + LEFT] = cell - 1
        if column < side - 1:
            targets[cell * 4 + RIGHT] = cell + 1
    return targets


def canonical_goal(side: int, blank: int) -> tuple[int, ...]:
    """The goal every table for this blank cell is built for: 1, 2, ... row-major around it."""
    tiles = [0] * (side * side)
    label = 1
    for cell in range(side * side):
        if cell != blank:
            tiles[cell] = label
            label += 1
    return tuple(tiles)


def relabelling(goal: Sequence[int]) -> bytes:
    """A `bytes.translate` table renaming `goal`'s tiles to the canonical goal's (blank kept)."""
    side = math.isqrt(len(goal))
    canonical = canonical_goal(side, list(goal).index(0))
    table = bytearray(range(256))
    for cell, tile in enumerate(goal):
        table[tile] = canonical[cell]
    return bytes(table)


def permutation_rank(board: Sequence[int]) -> int:
    """The lexicographic rank of the permutation `board` among all orderings of its values."""
    rank = 0
    count = len(board)
    used = 0  # bit v set once value v has been seen
    for i, value in enumerate(board):
        smaller_unused = value - (used & ((1 << value) - 1)).bit_count()
        rank = rank * (count - i) + smaller_unused
        used |= 1 << value
    return rank


def permutation_ranks(boards: np.ndarray) -> np.ndarray:
    """`permutation_rank` of every row of the 2-D array `boards` (int64)."""
    count = boards.shape[1]
    ranks = np.zeros(boards.shape[0], dtype=np.int64)
    for i in range(count):
        smaller_later = (boards[:, i + 1 :] < boards[:, i : i + 1]).sum(axis=1)
        ranks = ranks * (count - i) + smaller_later
    return ranks


def blank_description(side: int, blank: int) -> str:
    """'row r, column c' of a cell, 0-based, for messages."""
    row, column = divmod(blank, side)
    return f"row {row}, column {column}"


# --- the exact table --------------------------------------------------------------------------


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


def _build_exact_table(side: int, blank: int) -> ExactTable:
    began = time.perf_counter()
    count = side * side
    goal = np.array(canonical_goal(side, blank), dtype=np.int8)
    distances = np.full(math.factorial(count), UNREACHED, dtype=np.uint8)
    distances[permutation_rank(goal.tolist())] = 0
    targets = move_targets(side).reshape(count, 4)
    frontier = goal[None, :]
    blanks = np.array([blank], dtype=np.int64)
    depth = 0
    while frontier.shape[0]:
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
    seconds = time.perf_counter() - began
    table = ExactTable(side, blank, distances, seconds)
    _builds["table"] += 1
    _log.info(
        "built the exact %dx%d distance table for the blank at %s: %d boards, %d moves at most, "
        "%.2f s", side, side, blank_description(side, blank), table.reachable, depth - 1, seconds,
    )
    return table


def exact_table(goal: Sequence[int]) -> ExactTable:
    """The exact table serving `goal` (built on first use, then kept in memory)."""
    side = math.isqrt(len(goal))
    if side > EXACT_MAX_SIDE:
        raise InvalidRequestError(
            f"an exact distance table exists for boards up to {EXACT_MAX_SIDE}x{EXACT_MAX_SIDE}, "
            f"not {side}x{side}"
        )
    key = (side, list(goal).index(0))
    with _memory_lock:
        table = _exact_tables.get(key)
        if table is None:
            table = _exact_tables[key] = _build_exact_table(*key)
    return table


# --- additive pattern databases ---------------------------------------------------------------


def _column_masks(side: int) -> tuple[int, int]:
    """Bit masks of the cells not in the first column and not in the last column."""
    not_first = not_last = 0
    for cell in range(side * side):
        if cell % side:
            not_first |= 1 << cell
        if cell % side != side - 1:
            not_last |= 1 << cell
    return not_first, not_last


@njit(cache=True, nogil=True)
def _group_bfs_kernel(
    side, start, start_blank, weights, targets, not_first, not_last, values, seen,
    frontier_blanks, next_blanks, frontier, upcoming,
):  # pragma: no cover - compiled; tests compare it with the NumPy version
    """Breadth-first search over (placement of the group's tiles, blank), layer by layer.

    Layer d holds the states whose tiles made d moves. The blank moves for free through cells
    no group tile holds, so a state stands for the whole free region around its blank: a
    placement's blank cells are bit masks (`seen`: regions already expanded;
    `frontier_blanks`: reached in this layer). A move swaps the blank with an adjacent group
    tile. `values[placement]` becomes the first layer that reached it (the least over blank
    positions). Returns the number of layers.
    """
    count = side * side
    size = weights.shape[0]
    full = (np.int64(1) << count) - 1
    positions = np.empty(size, dtype=np.int64)
    values[start] = 0
    frontier_blanks[start] = np.int64(1) << start_blank
    frontier[0] = start
    frontier_size = 1
    depth = 0
    while frontier_size > 0:
        upcoming_size = 0
        for item in range(frontier_size):
            index = frontier[item]
            blanks = np.int64(frontier_blanks[index])
            frontier_blanks[index] = 0
            rest = index
            occupied = np.int64(0)
            for i in range(size - 1, -1, -1):
                positions[i] = rest % count
                rest //= count
                occupied |= np.int64(1) << positions[i]
            free = full & ~occupied
            region = blanks
            while True:  # flood the free cells around the blank cells
                grow = (
                    ((region & not_first) >> 1) | ((region & not_last) << 1)
                    | (region >> side) | ((region << side) & full)
                )
                wider = region | (grow & free)
                if wider == region:
                    break
                region = wider
            region &= ~np.int64(seen[index])
            if region == 0:
                continue
            seen[index] = np.int64(seen[index]) | region
            for i in range(size):
                source = positions[i]
                bit = np.int64(1) << source
                for direction in range(4):
                    to = targets[source * 4 + direction]
                    if to < 0 or not (region >> to) & 1:
                        continue
                    child = index + (to - source) * weights[i]
                    marks = np.int64(next_blanks[child])
                    if (np.int64(seen[child]) | marks) & bit:
                        continue
                    if marks == 0:
                        upcoming[upcoming_size] = child
                        upcoming_size += 1
                    next_blanks[child] = marks | bit
                    if values[child] == UNREACHED:
                        values[child] = depth + 1
        frontier, upcoming = upcoming, frontier
        frontier_blanks, next_blanks = next_blanks, frontier_blanks
        frontier_size = upcoming_size
        depth += 1
    return depth


def _group_bfs_numpy(side, start, start_blank, weights, targets, values) -> int:
    """`_group_bfs_kernel` vectorised over each layer with NumPy (for installs without numba)."""
    count = side * side
    size = weights.shape[0]
    targets = targets.reshape(count, 4)
    full = np.int64((1 << count) - 1)
    not_first, not_last = (np.int64(mask) for mask in _column_masks(side))
    seen = np.zeros(values.size, dtype=np.int64)
    values[start] = 0
    layer = np.array([start], dtype=np.int64)
    blanks = np.array([1 << start_blank], dtype=np.int64)
    one = np.int64(1)
    depth = 0
    while layer.size:
        positions = (layer[:, None] // weights) % count
        occupied = np.bitwise_or.reduce(one << positions, axis=1)
        free = full & ~occupied
        region = blanks
        while True:
            grow = (
                ((region & not_first) >> 1) | ((region & not_last) << 1)
                | (region >> side) | ((region << side) & full)
            )
            wider = region | (grow & free)
            if np.array_equal(wider, region):
                break
            region = wider
        region &= ~seen[layer]
        seen[layer] |= region
        children, bits = [], []
        for i in range(size):
            source = positions[:, i]
            bit = one << source
            for direction in range(4):
                to = targets[source, direction]
                legal = (to >= 0) & ((region >> np.maximum(to, 0)) & 1).astype(bool)
                child = (layer + (to - source) * weights[i])[legal]
                child_bit = bit[legal]
                fresh = (seen[child] & child_bit) == 0
                children.append(child[fresh])
                bits.append(child_bit[fresh])
        child = np.concatenate(children)
        child_bit = np.concatenate(bits)
        order = np.argsort(child, kind="stable")
        child, child_bit = child[order], child_bit[order]
        layer, first = np.unique(child, return_index=True)
        blanks = np.bitwise_or.reduceat(child_bit, first) if layer.size else child_bit
        depth += 1
        values[layer[values[layer] == UNREACHED]] = depth
    return depth


def _group_weights(cell_count: int, size: int) -> np.ndarray:
    return cell_count ** np.arange(size - 1, -1, -1, dtype=np.int64)


def build_group_table(
    side: int, cells: Sequence[int], blank: int, use_numba: bool | None = None
) -> np.ndarray:
    """The table of one group whose tiles' goal cells are `cells` (in tile order).

    `blank` is the goal's blank cell. `use_numba` None: compiled when numba is available.
    """
    count = side * side
    if count > 32:
        raise InvalidRequestError(f"pattern databases go up to 5x5 boards, not {side}x{side}")
    weights = _group_weights(count, len(cells))
    values = np.full(count ** len(cells), UNREACHED, dtype=np.uint8)
    start = int(np.dot(np.asarray(cells, dtype=np.int64), weights))
    targets = move_targets(side)
    compiled = NUMBA_AVAILABLE if use_numba is None else use_numba
    if compiled:
        masks = np.uint16 if count <= 16 else np.uint32
        states = math.perm(count, len(cells))
        _group_bfs_kernel(
            side, start, blank, weights, targets, *_column_masks(side), values,
            np.zeros(values.size, dtype=masks), np.zeros(values.size, dtype=masks),
            np.zeros(values.size, dtype=masks), np.empty(states, dtype=np.int64),
            np.empty(states, dtype=np.int64),
        )
    else:
        if use_numba is None:
            warn_fallback_once("pattern databases are built with NumPy, several times slower")
        _group_bfs_numpy(side, start, blank, weights, targets, values)
    return values


class AdditiveDatabase:
    """Disjoint additive pattern database for `canonical_goal(side, blank)`.

    `groups` are the goal cells of each group (sorted); a group's tiles are the canonical tiles
    on those cells, in increasing order, and tile i of a k-tile group has the index weight
    `cells**(k-1-i)`. `values` holds the group tables back to back from `group_offset[g]`.
    `origin` says where this copy came from: "built" or "loaded" (from the disk cache).
    """

    kind = "pdb"

    def __init__(
        self,
        side: int,
        groups: tuple[tuple[int, ...], ...],
        values: np.ndarray,
        origin: str,
        seconds: float,
        path: Path | None = None,
    ) -> None:
        count = side * side
        self.side = side
        self.groups = groups
        self.blank = _blank_of(side, groups)
        self.goal = canonical_goal(side, self.blank)
        self.values = values
        self.origin = origin
        self.seconds = seconds
        self.path = path
        self.sizes = tuple(len(cells) for cells in groups)
        self.tile_group = np.full(count, -1, dtype=np.int64)
        self.tile_weight = np.zeros(count, dtype=np.int64)
        offsets = []
        offset = 0
        self._python_groups = []
        for number, cells in enumerate(groups):
            weights = _group_weights(count, len(cells))
            tiles = [self.goal[cell] for cell in cells]
            for tile, weight in zip(tiles, weights, strict=True):
                self.tile_group[tile] = number
                self.tile_weight[tile] = weight
            offsets.append(offset)
            self._python_groups.append((offset, tiles, [int(w) for w in weights]))
            offset += count ** len(cells)
        self.group_offset = np.array(offsets, dtype=np.int64)
        self._view = memoryview(values)

    @property
    def name(self) -> str:
        """The partition's sizes, e.g. '6-6-3'."""
        return "-".join(map(str, self.sizes))

    def group_indices(self, canonical_board: bytes) -> list[int]:
        """Each group's table index for a canonically labelled board."""
        where = canonical_board.index
        return [
            sum(where(tile) * weight for tile, weight in zip(tiles, weights, strict=True))
            for _offset, tiles, weights in self._python_groups
        ]

    def value(self, canonical_board: bytes) -> int:
        """The additive lower bound of a canonically labelled board."""
        where = canonical_board.index
        view = self._view
        total = 0
        for offset, tiles, weights in self._python_groups:
            at = offset
            for tile, weight in zip(tiles, weights, strict=True):
                at += where(tile) * weight
            total += view[at]
        return total


def _blank_of(side: int, groups: tuple[tuple[int, ...], ...]) -> int:
    free = set(range(side * side)).difference(*groups)
    return free.pop()


def default_partition(side: int, blank: int) -> tuple[tuple[int, ...], ...] | None:
    """The built-in partition (goal cells) for a goal with the blank on `blank`, if any."""
    if side != 4:
        return None
    last = side - 1
    row, column = divmod(blank, side)
    if row not in (0, last) or column not in (0, last):
        return None

    def mirror(cell: int) -> int:
        r, c = divmod(cell, side)
        return (last - r if row else r) * side + (last - c if column else c)

    return tuple(tuple(sorted(mirror(cell) for cell in cells)) for cells in _CORNER_663)


def _cells_of_groups(goal: Sequence[int], groups: Sequence[Sequence[int]]):
    """Validate `groups` (tiles of `goal`) and return them as sorted goal cells."""
    count = len(goal)
    side = math.isqrt(count)
    at = {tile: cell for cell, tile in enumerate(goal)}
    seen: list[int] = []
    cells = []
    for group in groups:
        tiles = list(group)
        if not tiles:
            raise InvalidRequestError("a pattern database group must hold at least one tile")
        if any(not isinstance(t, int) or not 0 < t < count for t in tiles):
            raise InvalidRequestError(f"group {tiles} holds a value that is no tile 1..{count - 1}")
        if count ** len(tiles) > MAX_GROUP_ENTRIES:
            raise InvalidRequestError(
                f"a {len(tiles)}-tile group on {side}x{side} needs {count ** len(tiles):,} entries"
                f" (at most {MAX_GROUP_ENTRIES:,})"
            )
        seen += tiles
        cells.append(tuple(sorted(at[t] for t in tiles)))
    if sorted(seen) != list(range(1, count)):
        raise InvalidRequestError(
            f"pattern database groups must hold every tile 1..{count - 1} exactly once, got "
            f"{sorted(seen)}"
        )
    return tuple(cells)


def database_path(side: int, groups: tuple[tuple[int, ...], ...], directory: Path) -> Path:
    """The cache file of a database: named by size, canonical goal and partition."""
    goal = canonical_goal(side, _blank_of(side, groups))
    goal_text = "".join(f"{tile:x}" for tile in goal) if side <= 4 else "-".join(map(str, goal))
    layout = hashlib.sha256(repr(groups).encode()).hexdigest()[:10]
    sizes = "-".join(str(len(cells)) for cells in groups)
    return directory / f"pdb-{side}x{side}-goal-{goal_text}-{sizes}-{layout}.gpdb"


def load_or_build_database(
    side: int, groups: tuple[tuple[int, ...], ...], directory: Path | None = None
) -> AdditiveDatabase:
    """The database for these goal-cell `groups`, from `directory`'s cache or built (and stored).

    No memory cache: `additive_database` adds that. Thread-safe within a process only if the
    caller serialises (it does).
    """
    directory = database_store.cache_dir() / "pattern_databases" if directory is None else directory
    path = database_path(side, groups, directory)
    goal = canonical_goal(side, _blank_of(side, groups))
    count = side * side
    expected = {
        "kind": "additive pattern database",
        "side": side,
        "goal": list(goal),
        "groups": [list(cells) for cells in groups],
        "table_sizes": [count ** len(cells) for cells in groups],
    }
    sizes = "-".join(str(len(cells)) for cells in groups)

    def build() -> tuple[np.ndarray, dict]:
        began = time.perf_counter()
        _log.info(
            "building the %s additive pattern database for %dx%d (blank at %s); "
            "cached afterwards in %s", sizes, side, side, blank_description(side, goal.index(0)),
            directory,
        )

        def build_group(number: int) -> np.ndarray:
            started = time.perf_counter()
            table = build_group_table(side, groups[number], goal.index(0))
            _log.info(
                "  group %d/%d (%d tiles, %s entries) done in %.2f s", number + 1, len(groups),
                len(groups[number]), f"{table.size:,}", time.perf_counter() - started,
            )
            return table

        # The compiled BFS releases the GIL, so the groups build side by side on several cores.
        workers = min(len(groups), os.cpu_count() or 1) if NUMBA_AVAILABLE else 1
        with ThreadPoolExecutor(max_workers=workers) as pool:
            tables = list(pool.map(build_group, range(len(groups))))
        seconds = time.perf_counter() - began
        _builds["pdb"] += 1
        _log.info("built the %s pattern database in %.2f s", sizes, seconds)
        return np.concatenate(tables), {"build_seconds": round(seconds, 3)}

    began = time.perf_counter()
    values, origin = database_store.load_or_build(path, expected, build)
    seconds = time.perf_counter() - began
    if origin == "loaded":
        _log.info("loaded the %s pattern database from %s in %.2f s", sizes, path, seconds)
    return AdditiveDatabase(side, groups, values, origin, seconds, path)


def additive_database(
    goal: Sequence[int], groups: Sequence[Sequence[int]] | None = None
) -> AdditiveDatabase:
    """The additive database serving `goal`, from memory, the disk cache, or built.

    `groups` are tiles of `goal` (None: `default_partition`, which exists for 4x4 goals with
    the blank in a corner). A goal whose blank sits where an existing database's does, with
    the same groups of goal cells, reuses it: tiles are renamed, not rebuilt.
    """
    side = math.isqrt(len(goal))
    blank = list(goal).index(0)
    if groups is None:
        cells = default_partition(side, blank)
        if cells is None:
            raise InvalidRequestError(
                f"no built-in pattern database for a {side}x{side} goal with the blank at "
                f"{blank_description(side, blank)}"
            )
    else:
        cells = _cells_of_groups(goal, groups)
    key = (side, cells)
    with _memory_lock:
        database = _additive_databases.get(key)
        if database is None:
            database = _additive_databases[key] = load_or_build_database(side, cells)
    return database


def build_database(side: int, groups: tuple[tuple[int, ...], ...]) -> AdditiveDatabase:
    """A database for these goal-cell `groups`, built in memory (no cache read or written)."""
    began = time.perf_counter()
    blank = _blank_of(side, groups)
    values = np.concatenate([build_group_table(side, cells, blank) for cells in groups])
    return AdditiveDatabase(side, groups, values, "built", time.perf_counter() - began)


def build_count(kind: str | None = None) -> int:
    """How many tables this process has built ('table', 'pdb', or None for both)."""
    return sum(_builds.values()) if kind is None else _builds[kind]


def clear_memory_caches() -> None:
    """Forget every table held in memory (the disk cache stays); for tests."""
    with _memory_lock:
        _exact_tables.clear()
        _additive_databases.clear()
        _resolved.clear()


# --- heuristic resolution ---------------------------------------------------------------------


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
        self.side = math.isqrt(len(goal))
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


def _check_name(name: str) -> None:
    if name not in HEURISTICS:
        raise InvalidRequestError(
            f"unknown heuristic {name!r}; heuristics are {', '.join(HEURISTICS)}"
        )


def resolve_heuristic(name: str, goal: bytes) -> ResolvedHeuristic:
    """What heuristic `name` means for `goal` (a validated goal as bytes), tables included.

    Builds or loads the table it needs on first use; cached per (name, goal) afterwards.
    """
    _check_name(name)
    goal = bytes(goal)
    key = (name, goal)
    with _memory_lock:
        found = _resolved.get(key)
        if found is not None:
            _resolved.move_to_end(key)
            return found
    side = math.isqrt(len(goal))
    blank = goal.index(0)
    if name in CLASSIC_HEURISTICS:
        resolved = ResolvedHeuristic(name, name, goal)
    elif side <= EXACT_MAX_SIDE:
        resolved = ResolvedHeuristic(name, "table", goal, table=exact_table(goal))
    elif name == "table":
        resolved = ResolvedHeuristic(
            name, "linear_conflict", goal,
            note=f"no exact table for {side}x{side} boards (only up to "
            f"{EXACT_MAX_SIDE}x{EXACT_MAX_SIDE}; try pdb): used linear_conflict",
        )
    elif default_partition(side, blank) is None:
        where = "" if side != 4 else f" with the blank at {blank_description(side, blank)}"
        offered = "only 4x4 goals with the blank in a corner" if side == 4 else "4x4 only"
        resolved = ResolvedHeuristic(
            name, "linear_conflict", goal,
            note=f"no pattern database for {side}x{side} goals{where} ({offered}): used "
            "linear_conflict",
        )
    else:
        resolved = ResolvedHeuristic(name, "pdb", goal, database=additive_database(goal))
    with _memory_lock:
        _resolved[key] = resolved
        while len(_resolved) > _RESOLVED_LIMIT:
            _resolved.popitem(last=False)
    return resolved


def database_heuristic(database: AdditiveDatabase | ExactTable, goal) -> ResolvedHeuristic:
    """A heuristic for `goal` that uses a given table (e.g. a custom partition in tests)."""
    goal = bytes(goal)
    if math.isqrt(len(goal)) != database.side or goal.index(0) != database.blank:
        raise InvalidRequestError(
            "a table serves only goals of its size with the blank on its cell "
            f"({database.side}x{database.side}, cell {database.blank})"
        )
    if isinstance(database, ExactTable):
        return ResolvedHeuristic("table", "table", goal, table=database)
    return ResolvedHeuristic("pdb", "pdb", goal, database=database)


def prepare(heuristic: str, side: int, goal: Sequence[int] | None = None) -> float:
    """Build or load what `heuristic` needs for `goal` (None: the default goal); the seconds.

    For a ROS node's start-up: after it, solves with this heuristic and goal pay no build.
    Classic heuristics need nothing (a few microseconds).
    """
    began = time.perf_counter()
    _check_name(heuristic)
    if isinstance(side, bool) or not isinstance(side, int) or not 2 <= side <= 16:
        raise InvalidRequestError(f"side must be an integer 2..16, got {side!r}")
    target = default_goal(side) if goal is None else parse_goal(goal, side)
    resolve_heuristic(heuristic, bytes(target))
    return time.perf_counter() - began
