"""Additive pattern databases: disjoint groups of tiles whose table values add up to a bound.

The tiles are split into disjoint groups (6-6-3 on 4x4). Each group's table (`group_bfs`) holds
the fewest moves of that group's tiles that bring them home; every real move moves one tile of
one group, so the group values add up to a lower bound (Korf & Felner 2002). Tables are indexed
directly by the group's tile positions, so one move changes the index by `(to - from) * weight`:
the incremental update the compiled IDA* uses. 6-6-3 on 4x4 is 2 x 16.8 MB + 4 KB (33.6 MB),
built in about 10 s with numba (about 30 s with NumPy alone), cached on disk (`store`) and
loaded in about 0.1 s. 7-8 would need 518,918,400 entries for its 8-tile group even perfectly
hashed (4.3 GB directly indexed), and a build of minutes: not worth it here, where 6-6-3 solves
Korf's 100 in seconds.

Every table is built for one *canonical* goal per blank cell (`board.canonical_goal`) and any
goal with its blank on the same cell is served by renaming tiles; the groups are groups of goal
cells, so the renaming keeps them valid. Which goals get a database: on 4x4, goals whose blank
is in a corner (the 6-6-3 layout below, mirrored into that corner), which covers both
conventions in use (blank first, blank last) at one 10 s build and 34 MB each.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from grid_planner.jit import NUMBA_AVAILABLE

from ..board import InvalidRequestError, blank_description, board_side, canonical_goal
from . import store
from .builds import Setup, TableBuild, start_build
from .group_bfs import build_group_table, group_placements, group_weights

_log = logging.getLogger(__name__)

# Direct-indexed group tables larger than this are refused: a 6-tile group on 4x4 has 16.8 M
# entries (its build needs about 6 bytes an entry), a 7-tile group 268 M.
MAX_GROUP_ENTRIES = 1 << 25

# The 6-6-3 layout of Korf & Felner (2002) for a 4x4 goal with the blank in cell 0, as goal
# cells (A and B: 6 tiles, C: 3):
#    _  A  B  B
#    A  A  B  B
#    A  A  B  B
#    A  C  C  C
# Goals with the blank in another corner use it mirrored into that corner.
_CORNER_663 = ((1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11), (13, 14, 15))

# SHA-256 of the tables of the built-in databases, so a cached file whose tables were edited
# (and re-checksummed) is rebuilt instead of silently giving wrong or weaker bounds.
KNOWN_PAYLOADS: dict[tuple[int, tuple[tuple[int, ...], ...]], str] = {
    (4, ((1, 4, 5, 8, 9, 12), (2, 3, 6, 7, 10, 11), (13, 14, 15))):
        "fc43b0389cb9cd1c9f186e849a17cab43a4c2e69c9e1dbb6808014bc632bba4d",
    (4, ((2, 6, 7, 10, 11, 15), (0, 1, 4, 5, 8, 9), (12, 13, 14))):
        "c4b17fb19e0d85a39213cc8e2ac00fdedd056a08aa84093c55bb191cb52378c5",
    (4, ((0, 4, 5, 8, 9, 13), (6, 7, 10, 11, 14, 15), (1, 2, 3))):
        "1dea8d800de0842cc42fe130231653807998cb9cb6fd8bac6c5fa4d6b0235026",
    (4, ((3, 6, 7, 10, 11, 14), (4, 5, 8, 9, 12, 13), (0, 1, 2))):
        "cd3b11255ea3741809946949d687ab2cc2a9176d0bfd029c3d3ddafa5ea31836",
}

_lock = threading.Lock()
_databases: dict[tuple[int, tuple[tuple[int, ...], ...]], AdditiveDatabase] = {}


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
            weights = group_weights(count, len(cells))
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
    side = board_side(goal)
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
    side: int,
    groups: tuple[tuple[int, ...], ...],
    directory: Path | None = None,
    build: TableBuild | None = None,
) -> AdditiveDatabase:
    """The database for these goal-cell `groups`, from `directory`'s cache or built (and stored).

    No memory cache: `additive_database` adds that. `build`, when given, is the TableBuild this
    runs in: its progress is reported and its `check` can stop the work between chunks.
    """
    directory = store.cache_dir() / "pattern_databases" if directory is None else directory
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
    check = build.check if build is not None else store.nothing_to_check

    def make() -> tuple[np.ndarray, dict]:
        began = time.perf_counter()
        _log.info(
            "building the %s additive pattern database for %dx%d (blank at %s); "
            "cached afterwards in %s", sizes, side, side, blank_description(side, goal.index(0)),
            directory,
        )
        total = sum(group_placements(side, len(cells)) for cells in groups)
        reached = [0] * len(groups)

        def build_group(number: int) -> np.ndarray:
            started = time.perf_counter()

            def on_chunk(count: int) -> None:
                reached[number] = count
                check()
                if build is not None:
                    build.report(sum(reached) / total)

            table = build_group_table(side, groups[number], goal.index(0), on_chunk=on_chunk)
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
        store.count_build("pdb")
        _log.info("built the %s pattern database in %.2f s", sizes, seconds)
        return np.concatenate(tables), {"build_seconds": round(seconds, 3)}

    began = time.perf_counter()
    values, origin = store.load_or_build(
        path, expected, make, check, KNOWN_PAYLOADS.get((side, groups))
    )
    seconds = time.perf_counter() - began
    if origin == "loaded":
        _log.info("loaded the %s pattern database from %s in %.2f s", sizes, path, seconds)
    return AdditiveDatabase(side, groups, values, origin, seconds, path)


def database_title(side: int, cells: tuple[tuple[int, ...], ...]) -> str:
    """How a build of this database is named in progress reports."""
    blank = _blank_of(side, cells)
    sizes = "-".join(str(len(group)) for group in cells)
    return (
        f"the {sizes} pattern database for {side}x{side} (blank at "
        f"{blank_description(side, blank)})"
    )


def additive_database(
    goal: Sequence[int],
    groups: Sequence[Sequence[int]] | None = None,
    setup: Setup | None = None,
) -> AdditiveDatabase:
    """The additive database serving `goal`, from memory, the disk cache, or built.

    `groups` are tiles of `goal` (None: `default_partition`, which exists for 4x4 goals with
    the blank in a corner). A goal whose blank sits where an existing database's does, with
    the same groups of goal cells, reuses it: tiles are renamed, not rebuilt. Loading or
    building runs as a TableBuild shared by every caller that needs the same database; this
    caller waits within `setup` (SetupStoppedError when it runs out).
    """
    side = board_side(goal)
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
    with _lock:
        database = _databases.get(key)
    if database is not None:
        return database

    def work(build: TableBuild) -> AdditiveDatabase:
        loaded = load_or_build_database(side, cells, build=build)
        with _lock:
            _databases[key] = loaded
        return loaded

    setup = setup or Setup()
    running = start_build(("pdb", key), database_title(side, cells), work, setup.timeout)
    return running.wait(setup)


def build_database(side: int, groups: tuple[tuple[int, ...], ...]) -> AdditiveDatabase:
    """A database for these goal-cell `groups`, built in memory (no cache read or written)."""
    began = time.perf_counter()
    blank = _blank_of(side, groups)
    values = np.concatenate([build_group_table(side, cells, blank) for cells in groups])
    return AdditiveDatabase(side, groups, values, "built", time.perf_counter() - began)
