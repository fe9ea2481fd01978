"""The compiled IDA* (`fast_idastar`): the reference IDA* step for step, budgets, Korf's 15-puzzles.

The real 6-6-3 database is built once for this module into a temporary cache (about 10 s).
"""

from __future__ import annotations

import hashlib
import os
import random
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from grid_fixtures import kernel, needs_compilation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from puzzle_tables import EIGHT_GOAL, eight_puzzle_table, random_walk, sample_boards
from shared_data import korf_instances, to_blank_last

import grid_planner
from grid_planner.puzzle import (
    KORF_MOVE_ORDER,
    NUMBA_AVAILABLE,
    PuzzleProblem,
    PuzzleStatus,
    default_goal,
    fast_idastar,
    is_solvable,
    prepare,
    replay,
    resolve_heuristic,
    solve,
    warm_up,
)
from grid_planner.puzzle import compiled_idastar as compiled_module
from grid_planner.puzzle.idastar_kernel import idastar_kernel
from grid_planner.puzzle.tables import pdb as pdb_module
from grid_planner.puzzle.tables.store import CACHE_ENV
from grid_planner.search import Budget, LimitKind, SearchStatus, idastar

pytestmark = pytest.mark.skipif(not NUMBA_AVAILABLE, reason="the compiled IDA* needs numba")

GOAL_15 = default_goal(4)
KORF_GOAL = tuple(range(16))
# Instances that 6-6-3 solves in a few thousand nodes, and two that take a few million.
QUICK_KORF = (9, 42, 71, 79, 94, 97)
MEDIUM_KORF = (82, 88)


@pytest.fixture(scope="module")
def korf():
    return korf_instances()


@pytest.fixture(scope="module")
def pdb_15(tmp_path_factory):
    """The 6-6-3 database for the goal 1..15, 0, built once into a temporary cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_ENV, str(tmp_path_factory.mktemp("pdb_cache")))
        prepare("pdb", 4)
        return resolve_heuristic("pdb", bytes(GOAL_15))


def same_search(fast, reference) -> None:
    """The two results are the same search: path, counts, frontier, status."""
    assert fast.status is reference.status
    assert fast.actions == reference.actions
    assert fast.states == reference.states
    assert (fast.nodes_expanded, fast.nodes_generated, fast.max_frontier) == (
        reference.nodes_expanded, reference.nodes_generated, reference.max_frontier
    )
    assert (fast.optimal, fast.limit, fast.cost) == (reference.optimal, reference.limit,
                                                     reference.cost)


# --- the same search as the reference --------------------------------------------------------


@kernel
def test_manhattan_reproduces_korfs_node_count_with_his_move_order(korf):
    board, length = korf[79]
    heuristic = resolve_heuristic("manhattan", bytes(KORF_GOAL))
    result = fast_idastar(bytes(board), heuristic, move_order=KORF_MOVE_ORDER)
    assert result.length == length == 42
    assert result.nodes_generated == 540_860
    reference = idastar(PuzzleProblem(board, KORF_GOAL, "manhattan", KORF_MOVE_ORDER))
    same_search(result, reference)


@kernel
@pytest.mark.parametrize("name", ["manhattan", "table"])
def test_same_search_as_the_reference_on_random_8_puzzles(name):
    goal = bytes(EIGHT_GOAL)
    heuristic = resolve_heuristic(name, goal)
    for board in sample_boards(EIGHT_GOAL, 40, seed=11):
        fast = fast_idastar(board, heuristic)
        same_search(fast, idastar(PuzzleProblem(board, EIGHT_GOAL, name)))


@kernel
def test_same_search_as_the_reference_on_15_puzzles_and_any_goal():
    rng = random.Random(8)
    for _ in range(6):
        goal = list(range(16))
        rng.shuffle(goal)
        board = random_walk(tuple(goal), 40, rng)
        heuristic = resolve_heuristic("manhattan", bytes(goal))
        same_search(fast_idastar(bytes(board), heuristic),
                    idastar(PuzzleProblem(board, goal, "manhattan")))


def test_pdb_incremental_lookups_give_the_reference_search(korf, pdb_15):
    for number in (42, 97):
        board = to_blank_last(korf[number][0])
        fast = fast_idastar(bytes(board), pdb_15)
        same_search(fast, idastar(PuzzleProblem(board, GOAL_15, pdb_15)))


def test_resumed_chunks_and_grown_stacks_change_nothing(monkeypatch, korf, pdb_15):
    board = bytes(to_blank_last(korf[9][0]))
    whole = fast_idastar(board, pdb_15)
    monkeypatch.setattr(compiled_module, "_STACK_MARGIN", 1)  # the stack grows every pass
    pieces = fast_idastar(board, pdb_15, chunk=7)  # and the kernel pauses every 7 expansions
    same_search(pieces, whole)
    eight = sample_boards(EIGHT_GOAL, 5, seed=2, depths={30, 31})
    for heuristic in (resolve_heuristic("manhattan", bytes(EIGHT_GOAL)),):
        for start in eight:
            same_search(fast_idastar(start, heuristic, chunk=3),
                        idastar(PuzzleProblem(start, EIGHT_GOAL, "manhattan")))


eight_boards = st.permutations(list(range(9))).map(tuple)


@kernel
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=eight_boards, name=st.sampled_from(["table", "pdb"]))
def test_table_heuristics_find_the_true_length_on_any_8_puzzle(board, name):
    if not is_solvable(board):  # swapping two tiles flips the parity
        tiles = list(board)
        a, b = [i for i, tile in enumerate(tiles) if tile][:2]
        tiles[a], tiles[b] = tiles[b], tiles[a]
        board = tuple(tiles)
    outcome = solve(board, algorithm="idastar", heuristic=name)
    assert outcome.status is PuzzleStatus.SOLVED and outcome.optimal
    assert outcome.length == eight_puzzle_table()[bytes(board)]
    assert replay(board, outcome.moves) == EIGHT_GOAL
    # With the exact table IDA* walks straight down: the start and each board on the way are
    # expanded, the goal is recognised when generated.
    assert outcome.nodes_expanded == outcome.length
    same_search(outcome.result, idastar(PuzzleProblem(board, EIGHT_GOAL, name)))


# --- the 15-puzzle with the 6-6-3 database ----------------------------------------------------


def test_the_built_database_has_the_pinned_contents(pdb_15):
    database = pdb_15.database
    pinned = pdb_module.KNOWN_PAYLOADS[(4, database.groups)]
    assert hashlib.sha256(database.values).hexdigest() == pinned


@pytest.mark.parametrize("number", QUICK_KORF + MEDIUM_KORF)
def test_pdb_solves_korf_instances_at_their_published_length(korf, pdb_15, number):
    board, length = korf[number]
    board = to_blank_last(board)
    outcome = solve(board, algorithm="idastar", heuristic="pdb")
    assert outcome.status is PuzzleStatus.SOLVED, outcome.message
    assert (outcome.length, outcome.optimal) == (length, True)
    assert outcome.message == f"solved in {length} moves (optimal)"
    assert replay(board, outcome.moves) == GOAL_15


def test_pdb_bounds_korf_instances_from_below_and_beats_manhattan(korf, pdb_15):
    manhattan = resolve_heuristic("manhattan", bytes(GOAL_15)).evaluate
    for board, length in korf.values():
        board = bytes(to_blank_last(board))
        assert manhattan(board) <= pdb_15.evaluate(board) <= length


def test_backends_agree(korf, pdb_15):
    board = to_blank_last(korf[97][0])
    fast = solve(board, algorithm="idastar", heuristic="pdb")
    reference = solve(board, algorithm="idastar", heuristic="pdb", backend="reference")
    assert (fast.moves, fast.nodes_generated) == (reference.moves, reference.nodes_generated)
    refused = solve(board, algorithm="idastar", heuristic="pdb", backend="gpu")
    assert refused.status is PuzzleStatus.INVALID_REQUEST and "backend" in refused.message


# --- budgets ----------------------------------------------------------------------------------


def test_node_budget_stops_a_hard_instance_deterministically(korf, pdb_15):
    board = to_blank_last(korf[88][0])  # 65 moves, about 20 million nodes with 6-6-3
    budget = Budget(max_nodes=20_000)
    first = solve(board, algorithm="idastar", heuristic="pdb", budget=budget)
    again = solve(board, algorithm="idastar", heuristic="pdb", budget=budget)
    assert (first.status, first.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.MAX_NODES)
    assert first.nodes_expanded == 20_000
    assert (first.nodes_generated, first.max_frontier) == (again.nodes_generated,
                                                           again.max_frontier)
    assert first.message == "expansion limit reached: 20,000 nodes expanded (max_expansions 20000)"
    assert first.nodes_held == first.max_frontier  # IDA* holds its path and nothing more
    reference = idastar(PuzzleProblem(board, GOAL_15, pdb_15), budget)
    assert (first.nodes_generated, first.max_frontier) == (reference.nodes_generated,
                                                           reference.max_frontier)
    nothing = solve(board, algorithm="idastar", heuristic="pdb", budget=Budget(max_nodes=0))
    assert (nothing.status, nothing.nodes_expanded) == (PuzzleStatus.LIMIT_REACHED, 0)


@kernel
def test_cancel_from_another_thread_stops_the_compiled_search():
    board = random_walk(tuple((*range(1, 25), 0)), 400, random.Random(3))  # hopeless for IDA*
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    try:
        outcome = solve(board, algorithm="idastar", heuristic="manhattan",
                        budget=Budget(cancel=cancel))
    finally:
        timer.cancel()
    assert (outcome.status, outcome.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.CANCELLED)
    assert outcome.message.startswith("search cancelled after ")
    assert outcome.nodes_expanded > 0
    assert outcome.planning_time < 5.0  # generous: one chunk is milliseconds


@kernel
def test_deadline_stops_the_compiled_search():
    board = random_walk(tuple((*range(1, 25), 0)), 400, random.Random(4))
    result = fast_idastar(bytes(board), resolve_heuristic("manhattan", bytes((*range(1, 25), 0))),
                          Budget.from_timeout(0.2))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.DEADLINE)
    assert result.elapsed < 5.0


def test_start_at_the_goal_is_solved_without_expanding(pdb_15):
    result = fast_idastar(bytes(GOAL_15), pdb_15)
    assert (result.status, result.states, result.actions) == (SearchStatus.SOLVED,
                                                              [bytes(GOAL_15)], [])
    assert (result.nodes_expanded, result.nodes_generated, result.max_frontier) == (0, 1, 1)


@needs_compilation
def test_warm_up_compiles_the_kernel_and_reports_seconds():
    assert warm_up() >= 0.0
    assert idastar_kernel.signatures


# --- without numba ----------------------------------------------------------------------------

_NO_NUMBA = textwrap.dedent(
    """
    import logging, sys
    sys.modules["numba"] = None  # as if numba were not installed
    logging.basicConfig(level=logging.WARNING)
    from grid_planner.puzzle import NUMBA_AVAILABLE, solve
    from grid_planner.puzzle.resolve import database_heuristic
    from grid_planner.puzzle.tables import additive_database
    from grid_planner.puzzle import PuzzleProblem
    from grid_planner.search import idastar
    assert not NUMBA_AVAILABLE
    outcome = solve("8 6 7 2 5 4 3 0 1", algorithm="idastar", heuristic="table")
    print(outcome.status.name, outcome.length)
    goal = (1, 2, 3, 4, 5, 6, 7, 8, 0)
    database = additive_database(goal, ((1, 2, 3, 4), (5, 6, 7, 8)))
    result = idastar(PuzzleProblem("8 6 7 2 5 4 3 0 1", goal, database_heuristic(database, goal)))
    print(database.origin, result.length)
    """
)


def test_without_numba_everything_still_works_slowly_with_warnings(tmp_path):
    environment = dict(os.environ)
    package_root = str(Path(grid_planner.__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    environment[CACHE_ENV] = str(tmp_path)
    run = subprocess.run([sys.executable, "-c", _NO_NUMBA], capture_output=True, text=True,
                         env=environment, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["SOLVED", "31", "built", "31"]
    assert "numba is not importable: IDA* runs on the reference implementation" in run.stderr
    assert "numba is not importable: pattern databases are built with NumPy" in run.stderr


_FIRST_SOLVES = textwrap.dedent(
    """
    from grid_planner.puzzle import compiled_idastar, solve, solver

    searched = []
    run_compiled = solver.fast_idastar
    def watched(*args, **kwargs):
        searched.append(compiled_idastar._warm)  # loaded before the search's clock started?
        return run_compiled(*args, **kwargs)
    solver.fast_idastar = watched
    reference = solve("1 2 3 4 5 6 0 7 8", algorithm="idastar", heuristic="manhattan",
                      backend="reference")
    print(reference.backend, compiled_idastar._warm)
    first = solve("1 2 3 4 5 6 0 7 8", algorithm="idastar", heuristic="manhattan")
    print(first.backend, searched, first.setup_time > 0.0, "setup" in first.message)
    second = solve("1 2 3 4 5 6 0 7 8", algorithm="idastar", heuristic="manhattan")
    print(second.backend, searched, "setup" in second.message)
    """
)


@needs_compilation
def test_the_first_compiled_solve_loads_the_kernels_in_its_set_up_not_its_search():
    environment = dict(os.environ)
    package_root = str(Path(grid_planner.__file__).resolve().parent.parent)
    environment["PYTHONPATH"] = os.pathsep.join(
        [package_root, *filter(None, [environment.get("PYTHONPATH")])]
    )
    run = subprocess.run([sys.executable, "-c", _FIRST_SOLVES], capture_output=True, text=True,
                         env=environment, timeout=300, check=False)
    assert run.returncode == 0, run.stderr
    # A reference solve loads nothing; the first compiled one loads the kernels before its
    # search, in its set-up time (which its message leaves to tables); the second finds them
    # loaded.
    assert run.stdout.splitlines() == [
        "reference False", "numba [True] True False", "numba [True, True] False",
    ]
