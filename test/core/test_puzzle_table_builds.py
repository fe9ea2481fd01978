"""Table builds on their own: no global lock, their own timeout, cancellable, progress, a cache
that cannot be tricked.

A build is held open (or slowed) by wrapping the real group build, so the races are exact and
cheap: the 4x4 goal's partition is swapped for a small one (4-4-4-3, built in a fraction of a
second) and the disk cache is a temporary folder.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import threading
from collections import OrderedDict

import numpy as np
import pytest

from grid_planner.cli.progress import table_build_bars
from grid_planner.puzzle import PuzzleStatus, replay, solve
from grid_planner.puzzle import resolve as resolve_module
from grid_planner.puzzle.tables import (
    Setup,
    SetupStoppedError,
    build_count,
    load_or_build_database,
    running_builds,
    store,
)
from grid_planner.puzzle.tables import builds as builds_module
from grid_planner.puzzle.tables import pdb as pdb_module
from grid_planner.search import Budget, LimitKind

GOAL_15 = (*range(1, 16), 0)
TWO_MOVES_15 = (*range(1, 14), 0, 14, 15)
TWO_MOVES_8 = (1, 2, 3, 4, 5, 6, 0, 7, 8)
SMALL_PARTITION = ((0, 1, 4, 5), (2, 3, 6, 7), (8, 9, 12, 13), (10, 11, 14))  # 4-4-4-3
FOUR_FOUR_CELLS = ((0, 1, 2, 3), (4, 5, 6, 7))  # 3x3, blank at cell 8


@pytest.fixture
def fresh_tables(tmp_path, monkeypatch):
    """An empty disk cache and memory caches, and the small partition for 4x4 goals."""
    monkeypatch.setenv(store.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(pdb_module, "_databases", {})
    monkeypatch.setattr(resolve_module, "_resolved", OrderedDict())
    small = lambda side, blank: SMALL_PARTITION if (side, blank) == (4, 15) else None  # noqa: E731
    monkeypatch.setattr(pdb_module, "default_partition", small)
    monkeypatch.setattr(resolve_module, "default_partition", small)
    yield tmp_path / "pattern_databases"
    builds_module.cancel_builds()
    for build in running_builds():
        with pytest.raises(SetupStoppedError):
            build.wait()


@pytest.fixture
def held_build(monkeypatch):
    """Group builds wait for `release` (set it to let them finish); `started` once one waits."""
    started, release = threading.Event(), threading.Event()
    real = pdb_module.build_group_table

    def waiting(side, cells, blank, use_numba=None, on_chunk=None):
        started.set()
        while not release.wait(0.01):
            on_chunk(0)  # the build's checks run while it waits, as between real chunks
        return real(side, cells, blank, use_numba, on_chunk)

    monkeypatch.setattr(pdb_module, "build_group_table", waiting)
    yield started, release
    release.set()


def test_a_build_in_progress_blocks_no_other_solve_and_its_wait_is_not_search_time(
    fresh_tables, held_build
):
    started, release = held_build
    answers = {}
    waiting = threading.Thread(target=lambda: answers.update(pdb=solve(
        TWO_MOVES_15, algorithm="idastar", heuristic="pdb", budget=Budget.from_timeout(0.2),
    )))
    waiting.start()
    assert started.wait(30)
    # While the 4x4 database is being built: other tables and classic heuristics answer at once.
    eight = solve(TWO_MOVES_8, budget=Budget.from_timeout(0.2))
    fifteen = solve(TWO_MOVES_15, heuristic="manhattan", budget=Budget.from_timeout(0.2))
    assert [(o.status, o.length) for o in (eight, fifteen)] == [(PuzzleStatus.SOLVED, 2)] * 2
    assert waiting.is_alive()
    threading.Event().wait(0.5)  # longer than the waiting solve's 0.2 s search timeout
    release.set()
    waiting.join(60)
    outcome = answers["pdb"]
    assert (outcome.status, outcome.length, outcome.heuristic) == (PuzzleStatus.SOLVED, 2, "pdb")
    assert outcome.setup_time >= 0.5 > outcome.planning_time
    assert f"setup {outcome.setup_time:.2f} s" in outcome.message
    assert replay(TWO_MOVES_15, outcome.moves) == GOAL_15


def test_a_build_stops_at_its_own_timeout_and_stores_nothing(fresh_tables, held_build):
    started, _release = held_build
    impatient = {}
    other = threading.Thread(target=lambda: started.wait(30) and impatient.update(outcome=solve(
        TWO_MOVES_15, heuristic="pdb", setup=Setup(timeout=0.05)
    )))
    other.start()
    outcome = solve(TWO_MOVES_15, heuristic="pdb", setup=Setup(timeout=0.3))
    other.join(60)
    assert (outcome.status, outcome.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.DEADLINE)
    assert outcome.message.startswith("building the 4-4-4-3 pattern database for 4x4")
    assert "stopped at its setup timeout of 0.3 s" in outcome.message
    assert outcome.setup_time >= 0.3 and outcome.nodes_expanded == 0
    # A caller with a shorter timeout than the build's stops waiting on its own.
    assert impatient["outcome"].message.startswith("the 4-4-4-3 pattern database for 4x4")
    assert "was not ready within the setup timeout of 0.05 s" in impatient["outcome"].message
    for build in running_builds():
        build.wait()  # the stopped build ends; nothing is left running or written
    assert running_builds() == []
    assert not list(fresh_tables.glob("*.gpdb"))


def test_a_cancelled_wait_ends_at_once_and_a_cancelled_build_ends_its_thread(
    fresh_tables, held_build
):
    started, _release = held_build
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    outcome = solve(TWO_MOVES_15, heuristic="pdb", budget=Budget(cancel=cancel))
    assert (outcome.status, outcome.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.CANCELLED)
    assert outcome.message.startswith("cancelled while waiting for the 4-4-4-3 pattern database")
    (build,) = running_builds()  # the build goes on for whoever needs it next...
    builds_module.cancel_builds()  # ...until shutdown cancels it
    with pytest.raises(SetupStoppedError, match="was cancelled"):
        build.wait()
    assert running_builds() == [] and started.is_set()


def test_progress_reaches_listeners_and_the_cli_bar_on_a_terminal(fresh_tables, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    monkeypatch.setattr("grid_planner.cli.progress.SHOW_AFTER_S", 0.0)
    heard = []
    builds_module.add_listener(lambda build: heard.append((build.fraction, build.finished)))
    try:
        with table_build_bars():
            outcome = solve(TWO_MOVES_15, heuristic="pdb")
    finally:
        builds_module._listeners.clear()
    assert outcome.status is PuzzleStatus.SOLVED and outcome.heuristic == "pdb"
    assert heard[0] == (0.0, False) and heard[-1] == (1.0, True)
    assert "building the 4-4-4-3 pattern database for 4x4" in screen.getvalue()
    assert "%|" in screen.getvalue()  # a bar was drawn (and erased when the build ended)


@pytest.mark.timeout(60)
def test_a_fifo_in_the_cache_neither_hangs_nor_is_trusted(fresh_tables, caplog):
    path = pdb_module.database_path(3, FOUR_FOUR_CELLS, fresh_tables)
    fresh_tables.mkdir(parents=True)
    os.mkfifo(path)
    with caplog.at_level(logging.WARNING, logger="grid_planner.puzzle"):
        database = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert database.origin == "built"
    assert "not a regular file" in caplog.text
    assert path.is_file()
    assert load_or_build_database(3, FOUR_FOUR_CELLS).origin == "loaded"


def test_an_edited_and_re_checksummed_database_is_rebuilt(fresh_tables, caplog, monkeypatch):
    true = load_or_build_database(3, FOUR_FOUR_CELLS)
    digest = hashlib.sha256(true.values).hexdigest()
    monkeypatch.setitem(pdb_module.KNOWN_PAYLOADS, (3, FOUR_FOUR_CELLS), digest)
    weaker = np.minimum(true.values, 1)  # admissible, useless: every solve would crawl
    _payload, header = store.read_database(true.path, {})
    store.write_database(true.path, header, weaker)  # a valid file with a fresh checksum
    builds = build_count("pdb")
    with caplog.at_level(logging.WARNING, logger="grid_planner.puzzle"):
        again = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert again.origin == "built" and build_count("pdb") == builds + 1
    assert np.array_equal(again.values, true.values)
    assert "differ from the known contents" in caplog.text


def test_an_oversized_file_is_refused_unread(fresh_tables, caplog):
    path = pdb_module.database_path(3, FOUR_FOUR_CELLS, fresh_tables)
    fresh_tables.mkdir(parents=True)
    with open(path, "wb") as stream:
        stream.truncate(1 << 30)  # sparse: 1 GiB announced, nothing allocated
    with caplog.at_level(logging.WARNING, logger="grid_planner.puzzle"):
        database = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert database.origin == "built"
    assert "more than a table of this kind can take" in caplog.text
