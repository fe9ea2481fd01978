"""Defaults that solve: `auto` picks the fastest optimal solver, and budgets fit the algorithm.

Korf's instances run with nothing but the board, through `solve` and through the CLI with its
default limits (timeout 10 s, memory 1,000,000 states); the full 100 run in `make bench`. The
memory budget counts what each algorithm really holds: IDA* is bounded by time alone, IDDFS's
per-pass table and A*'s open and closed sets by `max_nodes`.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap

import pytest
from puzzle_tables import random_walk
from shared_data import PROJECT_ROOT, korf_instances, to_blank_last

from grid_planner.cli import main
from grid_planner.puzzle import NUMBA_AVAILABLE, PuzzleStatus, replay, solve
from grid_planner.puzzle.solver import DEFAULT_SOLVE_MAX_HELD, choose
from grid_planner.search import Budget, LimitKind

GOAL_15 = (*range(1, 16), 0)
HARD_8 = (8, 6, 7, 2, 5, 4, 3, 0, 1)  # one of the two 31-move boards
# Korf's instance 4 as a new user types it (goal 1..15, 0): 56 moves.
KORF_4 = (10, 7, 12, 13, 3, 15, 14, 8, 0, 2, 5, 1, 9, 6, 4, 11)
# Every 7th instance from Korf's set: the easiest and the hardest ones (#88, #82) are in the
# full bench run; these take ~0.1 s each with the pattern database.
KORF_SAMPLE = tuple(range(4, 101, 7))
needs_numba = pytest.mark.skipif(not NUMBA_AVAILABLE, reason="the compiled IDA* needs numba")


def cli_json(capsys, *argv: str) -> tuple[int, dict]:
    code = main(["puzzle", *argv, "--json"])
    out, _err = capsys.readouterr()
    return code, json.loads(out)


@needs_numba
def test_korf_4_with_defaults_is_solved_optimally_and_names_the_choice(capsys):
    assert to_blank_last(korf_instances()[4][0]) == KORF_4
    outcome = solve(KORF_4)
    assert (outcome.status, outcome.length, outcome.optimal) == (PuzzleStatus.SOLVED, 56, True)
    assert (outcome.algorithm, outcome.heuristic, outcome.backend) == ("idastar", "pdb", "numba")
    assert replay(KORF_4, outcome.moves) == GOAL_15
    assert "auto chose idastar with pdb" in outcome.message
    code, report = cli_json(capsys, " ".join(map(str, KORF_4)))
    assert (code, report["status"], report["length"], report["optimal"]) == (0, "SOLVED", 56, True)
    assert (report["algorithm"], report["heuristic"]) == ("idastar", "pdb")
    assert report["auto"] == ["algorithm", "heuristic"]
    assert report["setup_time"] >= 0.0 and report["nodes_held"] == report["max_frontier"]
    assert replay(KORF_4, report["moves"]) == GOAL_15


@needs_numba
@pytest.mark.parametrize("number", KORF_SAMPLE)
def test_korf_instances_with_cli_defaults_are_solved_at_their_optimal_length(capsys, number):
    board, length = korf_instances()[number]
    board = to_blank_last(board)
    code, report = cli_json(capsys, " ".join(map(str, board)))
    assert (code, report["status"], report["length"]) == (0, "SOLVED", length), report["message"]
    assert replay(board, report["moves"]) == GOAL_15


# Where no table serves the goal: linear_conflict has no compiled form, and the compiled
# IDA* with manhattan solved 5x5 boards 10-25x faster (a 52-move one: 1.0 s against more than
# the default 10 s).
NO_TABLE = "manhattan" if NUMBA_AVAILABLE else "linear_conflict"


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        ((1, 2, 3, 0), "table"),
        ((1, 2, 3, 4, 5, 6, 7, 8, 0), "table"),
        ((*range(15, 0, -1), 0), "pdb"),  # served by the 1..15, 0 database, relabelled
        ((1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), NO_TABLE),
        ((*range(1, 25), 0), NO_TABLE),
    ],
)
def test_auto_picks_the_strongest_heuristic_the_goal_allows(goal, expected):
    board = random_walk(goal, 12, random.Random(5))
    outcome = solve(board, goal)
    assert outcome.status is PuzzleStatus.SOLVED and outcome.optimal
    assert (outcome.algorithm, outcome.heuristic) == ("idastar", expected)
    assert "note" not in outcome.message and "fall" not in outcome.message
    assert replay(board, outcome.moves) == goal


def test_auto_takes_manhattan_where_the_compiled_kernel_runs_and_no_table_serves():
    goal = bytes((*range(1, 25), 0))
    assert choose("", "", goal, compiled=True) == ("idastar", "manhattan",
                                                   ("algorithm", "heuristic"))
    assert choose("", "", goal, compiled=False)[1] == "linear_conflict"
    assert choose("astar", "", goal, compiled=True)[1] == "linear_conflict"  # no kernel
    assert choose("", "", bytes((1, 2, 3, 4, 5, 6, 7, 8, 0)), compiled=True)[1] == "table"
    board = random_walk(tuple(goal), 12, random.Random(5))
    assert solve(board, backend="reference").heuristic == "linear_conflict"


def test_iddfs_on_a_31_move_board_is_solved_under_the_default_memory_budget():
    budget = Budget.from_timeout(300.0, max_held=DEFAULT_SOLVE_MAX_HELD)
    outcome = solve(HARD_8, algorithm="iddfs", budget=budget)
    assert (outcome.status, outcome.length, outcome.optimal) == (PuzzleStatus.SOLVED, 31, True)
    assert replay(HARD_8, outcome.moves) == (1, 2, 3, 4, 5, 6, 7, 8, 0)
    # Its per-pass table, not its path, is what it holds: up to every board of the 8-puzzle.
    assert outcome.max_frontier == 31
    assert 100_000 < outcome.nodes_held <= 181_440


def test_iddfs_table_counts_against_the_memory_budget():
    outcome = solve(HARD_8, algorithm="iddfs", budget=Budget(max_held=5_000))
    assert (outcome.status, outcome.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.MEMORY)
    assert 5_000 <= outcome.nodes_held < 5_004
    assert "iddfs held" in outcome.message and "max_nodes 5000" in outcome.message


def test_astar_on_a_15_puzzle_with_a_small_memory_budget_names_memory(capsys):
    code, report = cli_json(
        capsys, " ".join(map(str, KORF_4)), "--algorithm", "astar", "--heuristic", "manhattan",
        "--max-nodes", "20000",
    )
    assert (code, report["status"], report["limit"]) == (1, "LIMIT_REACHED", "memory")
    assert report["message"].startswith(
        f"memory budget exhausted: astar held {report['nodes_held']:,} states at once (open and "
        "closed sets"
    )
    assert "the limit of max_nodes 20000" in report["message"]
    assert 20_000 <= report["nodes_held"] < 20_004
    assert report["nodes_expanded"] < report["nodes_held"]  # the open set is held too


@needs_numba
def test_idastar_is_bounded_by_time_and_expansions_not_by_the_memory_budget():
    board = to_blank_last(korf_instances()[88][0])  # 65 moves, millions of IDA* nodes
    outcome = solve(board, algorithm="idastar", heuristic="manhattan",
                    budget=Budget.from_timeout(0.5, max_held=1_000))
    assert (outcome.status, outcome.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.DEADLINE)
    assert outcome.nodes_expanded > 1_000 and outcome.nodes_held <= 66
    capped = solve(board, algorithm="idastar", heuristic="manhattan",
                   budget=Budget(max_nodes=5_000, max_held=1_000))
    assert (capped.limit, capped.nodes_expanded) == (LimitKind.MAX_NODES, 5_000)
    assert capped.message == "expansion limit reached: 5,000 nodes expanded (max_expansions 5000)"


# Solves one board with the CLI's defaults but the algorithm and heuristic given, and reports
# the process's peak resident memory before and after (KB, Linux's ru_maxrss).
_MEASURED_SOLVE = textwrap.dedent(
    """
    import json, resource, sys
    from grid_planner.cli import main
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code = main(["puzzle", *sys.argv[1:], "--timeout", "0", "--json"])
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"code": code, "before_kb": before, "after_kb": after}), file=sys.stderr)
    """
)


def test_astar_on_a_15x15_board_stays_within_the_default_memory_budget():
    board = random_walk((*range(1, 225), 0), 4_000, random.Random(7))  # far beyond A*'s reach
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED_SOLVE, " ".join(map(str, board)), "--algorithm", "astar",
         "--heuristic", "manhattan"],
        capture_output=True, text=True, timeout=600, env=env, check=False,
    )
    report = json.loads(done.stdout)
    memory = json.loads(done.stderr.strip().splitlines()[-1])
    assert (memory["code"], report["status"], report["limit"]) == (1, "LIMIT_REACHED", "memory")
    assert DEFAULT_SOLVE_MAX_HELD <= report["nodes_held"] < DEFAULT_SOLVE_MAX_HELD + 4
    grown = (memory["after_kb"] - memory["before_kb"]) * 1024
    print(f"A* on 15x15 under the default budget: {report['nodes_held']:,} states held, "
          f"{grown / 1e6:.0f} MB grown, {memory['after_kb'] / 1024:.0f} MB peak RSS")
    # About 0.55 KB a held state on 15x15 boards (0.3 KB on 4x4): the budget bounds the bytes.
    assert grown < DEFAULT_SOLVE_MAX_HELD * 700
