"""The offline CLI's `puzzle` and `compare` commands, run in-process through `main`: known
boards at their optimal lengths, budgets, unsolvable boards and bad input, and compare's runs on
boards and on the tutorial grid.
"""

from __future__ import annotations

import pytest
from cli_helpers import (
    CELLS_START_GOAL,
    EASY_BOARD,
    HARD_8_PUZZLE,
    KORF_2,
    TUTORIAL_MAP,
    assert_one_error_line,
    run,
    run_json,
)
from PIL import Image

from grid_planner.puzzle import CLASSIC_HEURISTICS, PUZZLE_ALGORITHMS, replay
from grid_planner.search import ALGORITHMS as SEARCH_ALGORITHMS
from grid_planner.search.registry import GRID, domain_algorithms

# --- puzzle -------------------------------------------------------------------------------------


def test_puzzle_two_moves_of_the_blank(capsys):
    code, report, _ = run_json(capsys, "puzzle", EASY_BOARD)
    assert code == 0
    assert report["status"] == "SOLVED"
    assert report["moves"] == ["Down", "Right"]
    assert report["length"] == 2
    assert report["optimal"] is True
    for key in ("nodes_expanded", "nodes_generated", "planning_time"):
        assert key in report


def test_puzzle_prints_moves_and_every_board(capsys):
    code, out, _ = run(capsys, "puzzle", EASY_BOARD)
    assert code == 0
    assert "Down Right" in out
    assert "1 2 3\n4 _ 6\n7 5 8" in out
    assert "1 2 3\n4 5 6\n7 _ 8" in out
    assert "1 2 3\n4 5 6\n7 8 _" in out
    assert "length 2" in out and "optimal yes" in out


def test_puzzle_names_the_heuristic_that_ran_and_why(capsys):
    code, out, _ = run(capsys, "puzzle", EASY_BOARD, "--algorithm", "astar", "--heuristic", "pdb")
    assert code == 0
    assert out.splitlines()[:2] == [
        "astar with table: solved in 2 moves (optimal: no shorter solution exists)",
        "note: pdb: the exact table serves 3x3 boards (pattern databases are for 4x4): used "
        "table",
    ]


@pytest.mark.parametrize(("algorithm", "quality"), [
    ("dfs", "NOT optimal: depth-first solutions are valid but usually far longer than the "
            "shortest"),
    ("bfs", "optimal: no shorter solution exists"),
])
def test_puzzle_says_how_far_a_solution_may_be_from_the_shortest(capsys, algorithm, quality):
    code, out, _ = run(capsys, "puzzle", EASY_BOARD, "--algorithm", algorithm)
    assert code == 0
    assert out.splitlines()[0].endswith(f"({quality})")


def test_puzzle_31_move_board_with_idastar_and_linear_conflict(capsys):
    code, report, _ = run_json(
        capsys, "puzzle", HARD_8_PUZZLE, "--algorithm", "idastar", "--heuristic", "linear_conflict"
    )
    assert code == 0
    assert report["length"] == 31
    assert replay([int(t) for t in HARD_8_PUZZLE.split()], report["moves"]) == (
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        0,
    )


def test_puzzle_with_a_custom_goal(capsys):
    code, report, _ = run_json(capsys, "puzzle", "1 2 3 4 5 6 7 8 0", "--goal", "1 2 3 4 5 6 7 0 8")
    assert code == 0
    assert report["moves"] == ["Left"]


def test_unsolvable_puzzle_exits_1(capsys):
    code, report, _ = run_json(capsys, "puzzle", "1 2 3 4 5 6 8 7 0")
    assert code == 1
    assert report["status"] == "UNSOLVABLE"
    code, out, err = run(capsys, "puzzle", "1 2 3 4 5 6 8 7 0")
    assert code == 1 and out == ""
    assert_one_error_line(err, "UNSOLVABLE", "parity")


def test_puzzle_budget_gives_limit_reached_exit_1(capsys):
    code, report, _ = run_json(
        capsys, "puzzle", HARD_8_PUZZLE, "--algorithm", "bfs", "--max-nodes", "500"
    )
    assert code == 1
    assert (report["status"], report["limit"]) == ("LIMIT_REACHED", "memory")
    assert 500 <= report["nodes_held"] < 504
    assert "max_nodes 500" in report["message"]
    code, report, _ = run_json(
        capsys, "puzzle", HARD_8_PUZZLE, "--algorithm", "idastar", "--heuristic", "manhattan",
        "--max-expansions", "300",
    )
    assert (code, report["limit"], report["nodes_expanded"]) == (1, "max_nodes", 300)
    assert report["message"] == "expansion limit reached: 300 nodes expanded (max_expansions 300)"


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["1 2 3 4 0 6 7 5 5"], ["INVALID_BOARD", "duplicate", "5", "missing 8"]),
        (["1 2 3 4 0 6 7 5"], ["INVALID_BOARD", "8 tiles"]),
        (["1 2 x 4 0 6 7 5 8"], ["INVALID_BOARD", "'x'"]),
        ([EASY_BOARD, "--algorithm", "best_first"], ["INVALID_REQUEST", "best_first"]),
        ([EASY_BOARD, "--heuristic", "euclid"], ["INVALID_REQUEST", "euclid"]),
        ([EASY_BOARD, "--goal", "1 2 3"], ["INVALID_REQUEST", "goal"]),
        ([EASY_BOARD, "--max-nodes", "-3"], ["--max-nodes"]),
        ([EASY_BOARD, "--max-expansions", "-3"], ["--max-expansions"]),
        ([EASY_BOARD, "--setup-timeout", "-1"], ["--setup-timeout"]),
    ],
)
def test_invalid_puzzle_input_exits_2_naming_the_fault(capsys, argv, fragments):
    code, out, err = run(capsys, "puzzle", *argv)
    assert code == 2 and out == ""
    assert_one_error_line(err, *fragments)


# --- compare ------------------------------------------------------------------------------------


def test_compare_board_runs_every_algorithm_and_heuristic(capsys):
    code, rows, _ = run_json(capsys, "compare", EASY_BOARD)
    assert code == 0
    expected = [
        (algorithm, heuristic)
        for algorithm in PUZZLE_ALGORITHMS
        for heuristic in (CLASSIC_HEURISTICS if SEARCH_ALGORITHMS[algorithm].informed else ("",))
    ]
    assert [(row["algorithm"], row["heuristic"]) for row in rows] == expected
    assert all(row["status"] == "SOLVED" for row in rows)
    assert {row["length"] for row in rows if row["optimal"]} == {2}
    assert {row["algorithm"] for row in rows if not row["optimal"]} == {"dfs"}
    dfs = next(row for row in rows if row["algorithm"] == "dfs")
    assert dfs["optimal"] is False and dfs["length"] >= 2


def test_compare_board_table_has_a_row_per_run(capsys, tmp_path):
    chart = tmp_path / "runs.png"
    code, out, _ = run(capsys, "compare", EASY_BOARD, "--png", str(chart))
    assert code == 0
    for column in (
        "algorithm",
        "heuristic",
        "status",
        "length",
        "optimal",
        "expanded",
        "generated",
        "peak frontier",
        "time ms",
    ):
        assert column in out
    for algorithm in PUZZLE_ALGORITHMS:
        assert algorithm in out
    assert "shortest: 2 moves (all" in out and "optimal runs agree)" in out
    with Image.open(chart) as image:
        assert image.format == "PNG" and image.size[0] > 300 and image.size[1] > 11 * 20


def test_compare_says_why_a_heuristic_row_names_another(capsys):
    # On a 3x3 board pdb runs as the exact table: two `table` rows, and a note on why.
    code, out, _ = run(capsys, "compare", EASY_BOARD, "--algorithms", "astar",
                       "--heuristics", "table,pdb")
    assert code == 0
    rows = [line.split()[:2] for line in out.splitlines() if line.startswith("astar")]
    assert rows == [["astar", "table"], ["astar", "table"]]
    assert out.rstrip().endswith(
        "note: pdb: the exact table serves 3x3 boards (pattern databases are for 4x4): used table"
    )


def test_compare_15_puzzle_with_a_small_budget_shows_limit_reached(capsys):
    argv = [
        "compare",
        KORF_2,
        "--max-nodes",
        "20000",
        "--timeout",
        "3",
        "--algorithms",
        "bfs,astar",
    ]
    code, rows, _ = run_json(capsys, *argv)
    assert [(row["algorithm"], row["heuristic"]) for row in rows] == [
        ("bfs", ""),  # in the order given
        ("astar", "misplaced"),
        ("astar", "manhattan"),
        ("astar", "linear_conflict"),
    ]
    # 55 moves deep, far beyond 20,000 states of memory for all of them: nothing solved, exit 1.
    assert [row["status"] for row in rows] == ["LIMIT_REACHED"] * 4
    assert code == 1
    bfs = rows[0]
    assert bfs["limit"] == "memory" and 20000 <= bfs["nodes_held"] < 20004
    code, out, _ = run(capsys, *argv)
    assert "LIMIT_REACHED" in out


def test_compare_unsolvable_board_is_reported_once(capsys):
    code, out, err = run(capsys, "compare", "1 2 3 4 5 6 8 7 0")
    assert code == 1 and out == ""
    assert_one_error_line(err, "UNSOLVABLE")
    # --json is a list of runs here too (it was one object): a row for each algorithm.
    code, rows, _ = run_json(capsys, "compare", "1 2 3 4 5 6 8 7 0", "--algorithms",
                             "bfs,astar", "--heuristics", "manhattan,misplaced")
    assert code == 1  # the rows of a solvable board's table: informed ones once per heuristic
    assert [(row["algorithm"], row["heuristic"], row["status"]) for row in rows] == [
        ("bfs", "", "UNSOLVABLE"), ("astar", "manhattan", "UNSOLVABLE"),
        ("astar", "misplaced", "UNSOLVABLE")]


def test_compare_grid_optimal_algorithms_agree_on_16(capsys):
    code, rows, _ = run_json(capsys, "compare", TUTORIAL_MAP, *CELLS_START_GOAL)
    assert code == 0
    by_name = {row["algorithm"]: row for row in rows}
    assert list(by_name) == list(domain_algorithms(GRID))
    for name in ("astar", "bfs", "dijkstra"):
        assert by_name[name]["status"] == "SOLVED"
        assert by_name[name]["length"] == 16
        assert by_name[name]["optimal"] is True
    assert by_name["dfs"]["length"] >= 16


def test_compare_grid_table_and_chart(capsys, tmp_path):
    chart = tmp_path / "grid.png"
    code, out, _ = run(
        capsys,
        "compare",
        TUTORIAL_MAP,
        "--start",
        "0.5",
        "7.5",
        "--goal",
        "9.5",
        "0.5",
        "--png",
        str(chart),
    )
    assert code == 0
    assert "shortest: 16 steps" in out
    assert chart.exists()


def test_compare_grid_node_budget_shows_limit_reached(capsys):
    code, rows, _ = run_json(capsys, "compare", TUTORIAL_MAP, *CELLS_START_GOAL, "--max-nodes", "5")
    assert code == 1
    assert {row["status"] for row in rows} == {"LIMIT_REACHED"}


def test_compare_grid_needs_start_and_goal(capsys):
    code, out, err = run(capsys, "compare", TUTORIAL_MAP)
    assert code == 2 and out == ""
    assert_one_error_line(err, "--start", "--goal")


def test_compare_grid_blocked_goal_is_reported_once(capsys):
    code, report, _ = run_json(
        capsys, "compare", TUTORIAL_MAP, "--cells", "--start", "0", "7", "--goal", "7", "7",
        "--algorithms", "astar,bfs",
    )
    assert code == 1
    assert [(row["algorithm"], row["status"], row["search_cost"]) for row in report] == [
        ("astar", "GOAL_OCCUPIED", None), ("bfs", "GOAL_OCCUPIED", None)]
