"""The `table` and `pdb` heuristics: exact and admissible, relabelled per goal, cached safely.

Checked against the independent BFS of `puzzle_tables`. The pattern-database logic runs on small
partitions of the 8-puzzle and the 15-puzzle (the same code as 6-6-3); every test that touches
the disk cache gets its own temporary folder through GRID_PLANNER_CACHE_DIR.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import os
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from grid_fixtures import kernel
from puzzle_tables import EIGHT_GOAL, distance_table, eight_puzzle_table, random_walk, sample_boards

import grid_planner
from grid_planner.puzzle import (
    HEURISTICS,
    InvalidRequestError,
    PuzzleStatus,
    additive_database,
    exact_table,
    fast_idastar,
    prepare,
    replay,
    resolve_heuristic,
    solve,
)
from grid_planner.puzzle.board import (
    canonical_goal,
    permutation_rank,
    permutation_ranks,
    rank_tiles,
)
from grid_planner.puzzle.heuristics import tables_for
from grid_planner.puzzle.resolve import database_heuristic, heuristic_function
from grid_planner.puzzle.tables import build_count, default_partition, load_or_build_database
from grid_planner.puzzle.tables.group_bfs import build_group_table
from grid_planner.puzzle.tables.store import CACHE_ENV, cache_dir, read_database

FOUR_FOUR = ((1, 2, 3, 4), (5, 6, 7, 8))  # tiles of EIGHT_GOAL
FOUR_FOUR_CELLS = ((0, 1, 2, 3), (4, 5, 6, 7))
GOAL_15 = (*range(1, 16), 0)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache folder for this test; returns where the databases go."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    return tmp_path / "pattern_databases"


@pytest.fixture(scope="module")
def table():
    return eight_puzzle_table()


# --- the exact table ------------------------------------------------------------------------


def test_table_heuristic_is_the_true_distance_on_every_3x3_board(table):
    h = heuristic_function("table", EIGHT_GOAL)
    assert [board for board, distance in table.items() if h(board) != distance] == []
    assert exact_table(EIGHT_GOAL).reachable == len(table) == 181_440


def test_table_serves_other_goals_by_relabelling_and_builds_once_per_blank_cell():
    exact_table(EIGHT_GOAL)
    builds = build_count("table")
    same_blank = (8, 6, 4, 2, 7, 5, 3, 1, 0)
    distances = distance_table(same_blank)
    h = heuristic_function("table", same_blank)
    assert [board for board, distance in distances.items() if h(board) != distance] == []
    assert build_count("table") == builds
    blank_first = tuple(range(9))
    h = heuristic_function("table", blank_first)
    distances = distance_table(blank_first)
    assert all(h(board) == distance for board, distance in list(distances.items())[::11])


def test_pdb_on_3x3_and_2x2_is_the_exact_table():
    assert resolve_heuristic("pdb", bytes(EIGHT_GOAL)).kind == "table"
    goal = (3, 0, 2, 1)
    distances = distance_table(goal)
    h = heuristic_function("pdb", goal)
    assert {board: h(board) for board in distances} == distances


def test_permutation_rank_is_the_lexicographic_rank():
    for rank, order in enumerate(itertools.permutations(range(5))):
        assert permutation_rank(order) == rank
    boards = np.array(list(itertools.permutations(range(4))), dtype=np.int8)
    assert permutation_ranks(boards).tolist() == list(range(24))
    # The compiled form (the exact table's lookup inside the IDA* kernel) agrees.
    assert [rank_tiles(np.array(order, dtype=np.int64)) for order in boards] == list(range(24))


# --- additive pattern databases ---------------------------------------------------------------


def test_additive_4_4_database_is_admissible_and_at_least_manhattan_on_every_3x3_board(
    cache, table
):
    h = database_heuristic(additive_database(EIGHT_GOAL, FOUR_FOUR), EIGHT_GOAL)
    values = {board: h.evaluate(board) for board in table}
    assert [board for board, distance in table.items() if values[board] > distance] == []
    # Each group value counts every move of its tiles, so it is at least their Manhattan sum.
    # (It need not be consistent: the least over blank cells may drop by more than one a move.)
    manhattan = tables_for(bytes(EIGHT_GOAL)).manhattan
    assert [board for board in table if values[board] < manhattan(board)] == []
    assert [board for board, value in values.items() if value == 0] == [bytes(EIGHT_GOAL)]
    assert sum(values.values()) > sum(map(manhattan, table))


@kernel
@pytest.mark.parametrize(
    ("side", "cells", "blank"),
    [(3, (0, 1, 2, 3), 8), (3, (1, 2, 3, 4, 5), 0), (3, (4, 7), 8), (4, (1, 4, 5, 8), 0),
     (4, (13, 14, 15), 0)],
)
def test_compiled_and_numpy_group_builds_are_identical(side, cells, blank):
    compiled = build_group_table(side, cells, blank, use_numba=True)
    vectorised = build_group_table(side, cells, blank, use_numba=False)
    assert np.array_equal(compiled, vectorised)
    goal_index = sum(cell * (side * side) ** (len(cells) - 1 - i) for i, cell in enumerate(cells))
    assert compiled[goal_index] == 0


def test_default_partition_is_6_6_3_for_each_corner_and_none_elsewhere():
    for blank in (0, 3, 12, 15):
        groups = default_partition(4, blank)
        assert sorted(len(cells) for cells in groups) == [3, 6, 6]
        assert sorted(cell for cells in groups for cell in cells) == [
            cell for cell in range(16) if cell != blank
        ]
    assert default_partition(4, 15) == tuple(
        tuple(sorted(15 - cell for cell in cells)) for cells in default_partition(4, 0)
    )
    assert default_partition(4, 5) is None
    assert default_partition(5, 0) is None
    assert canonical_goal(4, 15) == GOAL_15
    assert canonical_goal(4, 0) == tuple(range(16))


def test_a_goal_with_the_same_blank_cell_reuses_the_database_by_relabelling(cache):
    database = additive_database(EIGHT_GOAL, FOUR_FOUR)
    builds = build_count("pdb")
    other = (8, 6, 4, 2, 7, 5, 3, 1, 0)  # blank on the same cell, every tile renamed
    same_cells = ((8, 6, 4, 2), (7, 5, 3, 1))  # the tiles of `other` on FOUR_FOUR's cells
    assert additive_database(other, same_cells) is database
    assert build_count("pdb") == builds
    h = database_heuristic(database, other)
    distances = distance_table(other)
    assert [board for board, distance in distances.items() if h.evaluate(board) > distance] == []
    for board in sample_boards(other, 25, seed=3):
        result = fast_idastar(board, h)
        assert result.length == distances[board]
        assert replay(board, result.actions) == other


def test_a_database_serves_only_goals_with_its_blank_cell(cache):
    database = additive_database(EIGHT_GOAL, FOUR_FOUR)
    with pytest.raises(InvalidRequestError, match="blank on its cell"):
        database_heuristic(database, tuple(range(9)))


@pytest.mark.parametrize(
    ("groups", "fragment"),
    [(((1, 2, 3), (5, 6, 7, 8)), "exactly once"), (((1, 2, 3, 4), (4, 5, 6, 7, 8)), "exactly once"),
     (((1, 2, 3, 4, 9), (5, 6, 7, 8)), "no tile"), (((), (1, 2, 3, 4, 5, 6, 7, 8)), "at least")],
)
def test_bad_partitions_are_invalid_requests(cache, groups, fragment):
    with pytest.raises(InvalidRequestError, match=fragment):
        additive_database(EIGHT_GOAL, groups)


# --- the disk cache ---------------------------------------------------------------------------


def test_a_database_is_stored_under_the_cache_folder_and_loaded_back(cache):
    assert cache_dir() == cache.parent
    built = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert built.origin == "built" and built.path.parent == cache
    assert built.path.name.startswith("pdb-3x3-goal-123456780-4-4-")
    loaded = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert loaded.origin == "loaded"
    assert np.array_equal(loaded.values, built.values)
    _values, header = read_database(built.path, {"side": 3})
    assert header["goal"] == list(EIGHT_GOAL)
    assert header["groups"] == [list(cells) for cells in FOUR_FOUR_CELLS]
    assert header["table_sizes"] == [9**4, 9**4]


def _damage(path: Path, how: str) -> None:
    data = bytearray(path.read_bytes())
    if how == "truncated":
        data = data[: len(data) - 1000]
    elif how == "payload byte flipped":
        data[len(data) // 2] ^= 0x04
    elif how == "checksum byte flipped":
        data[-1] ^= 0x80
    elif how == "header byte flipped":
        data[20] ^= 0x01
    else:
        data = bytearray(b"not a database")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "how",
    ["truncated", "payload byte flipped", "checksum byte flipped", "header byte flipped",
     "replaced"],
)
def test_a_damaged_file_is_rebuilt_with_a_warning(cache, caplog, how):
    built = load_or_build_database(3, FOUR_FOUR_CELLS)
    _damage(built.path, how)
    with caplog.at_level(logging.WARNING, logger="grid_planner.puzzle"):
        again = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert again.origin == "built"
    assert np.array_equal(again.values, built.values)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "unusable" in warnings[0] and "rebuilding" in warnings[0]
    assert load_or_build_database(3, FOUR_FOUR_CELLS).origin == "loaded"


def test_a_file_for_another_goal_is_never_trusted(cache, caplog):
    built = load_or_build_database(3, FOUR_FOUR_CELLS)
    other_cells = ((0, 1, 2, 4), (3, 5, 6, 7))
    impostor = load_or_build_database(3, other_cells).path
    impostor.write_bytes(built.path.read_bytes())  # right format, wrong partition
    with caplog.at_level(logging.WARNING, logger="grid_planner.puzzle"):
        again = load_or_build_database(3, other_cells)
    assert again.origin == "built"
    assert "groups" in caplog.text
    assert not np.array_equal(again.values, built.values)


def test_an_unwritable_cache_folder_costs_only_the_store(tmp_path, monkeypatch, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv(CACHE_ENV, str(blocker))
    with caplog.at_level(logging.WARNING, logger="grid_planner.puzzle"):
        database = load_or_build_database(3, FOUR_FOUR_CELLS)
    assert database.origin == "built"
    assert "without storing" in caplog.text


_RACER = textwrap.dedent(
    """
    import hashlib, pathlib, sys, time
    from grid_planner.puzzle.tables import load_or_build_database
    go, folder, name = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    (go.parent / name).touch()
    while not go.exists():
        time.sleep(0.002)
    groups = ((0, 1, 4, 5), (2, 3, 6, 7), (8, 9, 12, 13), (10, 11, 14))  # 4-4-4-3, 0.1 s
    database = load_or_build_database(4, groups, folder)
    print(database.origin, hashlib.sha256(database.values).hexdigest())
    """
)


def test_two_processes_building_the_same_database_build_it_once(tmp_path):
    folder = tmp_path / "cache"
    go = tmp_path / "go"
    environment = dict(os.environ)
    package_root = str(Path(grid_planner.__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", _RACER, str(go), str(folder), f"ready{number}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment,
        )
        for number in range(2)
    ]
    began = time.monotonic()
    while not all((tmp_path / f"ready{n}").exists() for n in range(2)):
        assert time.monotonic() - began < 60, "the racers did not start"
        time.sleep(0.01)
    go.touch()
    answers = []
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err
        answers.append(out.split())
    assert sorted(origin for origin, _digest in answers) == ["built", "loaded"]
    assert answers[0][1] == answers[1][1]
    stored, _header = read_database(next(folder.glob("*.gpdb")), {"side": 4})
    assert hashlib.sha256(stored).hexdigest() == answers[0][1]


# --- heuristic names, fallbacks and prepare ---------------------------------------------------


def test_table_and_pdb_are_heuristic_names():
    assert {"table", "pdb"} <= set(HEURISTICS)


def test_pdb_without_a_database_falls_back_to_linear_conflict_and_says_so():
    board = random_walk((*range(1, 25), 0), 12, random.Random(2))
    outcome = solve(board, algorithm="auto", heuristic="pdb")
    assert outcome.status is PuzzleStatus.SOLVED and outcome.optimal
    # The answer names what ran; the fallback says why, and auto chose only the algorithm.
    assert (outcome.algorithm, outcome.heuristic, outcome.auto) == (
        "idastar", "linear_conflict", ("algorithm",)
    )
    assert outcome.fallback == (
        "pdb: no pattern database for 5x5 goals (4x4 only): used linear_conflict"
    )
    assert outcome.message.endswith(f"; {outcome.fallback}; auto chose idastar")
    assert outcome.to_dict()["fallback"] == outcome.fallback
    middle_blank = (1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
    resolved = resolve_heuristic("pdb", bytes(middle_blank))
    assert resolved.kind == "linear_conflict" and "row 1, column 1" in resolved.note
    board = random_walk(middle_blank, 10, random.Random(4))
    outcome = solve(board, middle_blank, "astar", "pdb")
    assert outcome.success and "used linear_conflict" in outcome.message
    outcome = solve(board, middle_blank, "idastar", "table")
    assert outcome.success and "no exact table for 4x4" in outcome.message
    assert outcome.heuristic == "linear_conflict"


def test_pdb_on_a_3x3_board_runs_the_exact_table_and_says_so():
    outcome = solve((1, 2, 3, 4, 0, 6, 7, 5, 8), None, "astar", "pdb")
    assert (outcome.status, outcome.heuristic, outcome.moves) == (
        PuzzleStatus.SOLVED, "table", ["Down", "Right"]
    )
    assert outcome.fallback == (
        "pdb: the exact table serves 3x3 boards (pattern databases are for 4x4): used table"
    )
    asked = solve((1, 2, 3, 4, 0, 6, 7, 5, 8), None, "astar", "table")
    assert (asked.heuristic, asked.fallback) == ("table", "")
    # Named before anything runs: an unsolvable board is answered without the table.
    unsolvable = solve((2, 1, 3, 4, 5, 6, 7, 8, 0), None, "astar", "pdb")
    assert (unsolvable.status, unsolvable.heuristic, unsolvable.fallback) == (
        PuzzleStatus.UNSOLVABLE, "table", outcome.fallback
    )


def test_prepare_builds_once_and_reports_seconds(cache):
    goal = (2, 1, 0, 3, 4, 5, 6, 7, 8)
    first = prepare("table", 3, goal)
    builds = build_count()
    assert builds >= 1 and first >= 0.0
    again = prepare("table", 3, goal)
    assert again >= 0.0 and build_count() == builds  # the second call found the table ready
    assert prepare("manhattan", 4) >= 0.0
    assert prepare("pdb", 5) >= 0.0
    assert build_count() == builds  # classic heuristics, and pdb on 5x5, build nothing
    assert resolve_heuristic("pdb", bytes((*range(1, 25), 0))).kind == "linear_conflict"
    with pytest.raises(InvalidRequestError, match="unknown heuristic"):
        prepare("euclid", 3)
    with pytest.raises(InvalidRequestError, match="side"):
        prepare("table", 1)
