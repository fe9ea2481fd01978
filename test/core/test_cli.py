"""The offline CLI `grid-planner`: plan, puzzle and compare, run in-process through `main`.

Exact outcomes on the shipped tutorial grid (cell (0, 7) to cell (9, 0) is 16 steps), on a PNG
drawn here, and on known puzzle boards; one subprocess run checks the console script itself.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
from collections import deque

import numpy as np
import pytest
from draw_maps import TUTORIAL_ROWS
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner import render
from grid_planner.cli import main
from grid_planner.grid import OccupancyMap, PlanningGrid, plan
from grid_planner.puzzle import CLASSIC_HEURISTICS, PUZZLE_ALGORITHMS, replay
from grid_planner.search import ALGORITHMS as SEARCH_ALGORITHMS
from grid_planner.search.registry import GRID, domain_algorithms

TUTORIAL_MAP = str(PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml")
TUTORIAL_WIDTH, TUTORIAL_HEIGHT = 10, 8
# TUTORIAL_ROWS is printed top row first: cell (x, y) is row 7 - y.
TUTORIAL_BLOCKED = {
    (x, TUTORIAL_HEIGHT - 1 - row)
    for row, line in enumerate(TUTORIAL_ROWS)
    for x, value in enumerate(line.split())
    if value == "1"
}
CELLS_START_GOAL = ["--cells", "--start", "0", "7", "--goal", "9", "0"]

EASY_BOARD = "1 2 3 4 0 6 7 5 8"
HARD_8_PUZZLE = "8 6 7 2 5 4 3 0 1"  # one of the two 3x3 boards 31 moves from the goal
# Korf's 15-puzzle instance 2 (55 moves), mapped to the goal 1 ... 15 0.
KORF_2 = "10 5 1 0 15 9 13 14 2 8 4 7 6 12 11 3"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    return code, json.loads(out), err


def assert_one_error_line(err: str, *fragments: str) -> None:
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err


def assert_valid_path(path, start, goal, blocked, width, height) -> None:
    assert path[0] == list(start)
    assert path[-1] == list(goal)
    for (x0, y0), (x1, y1) in itertools.pairwise(path):
        assert abs(x1 - x0) + abs(y1 - y0) == 1, f"not a unit 4-connected step {x0, y0} -> {x1, y1}"
    for x, y in path:
        assert 0 <= x < width and 0 <= y < height
        assert (x, y) not in blocked, f"path crosses blocked cell {(x, y)}"


def bfs_steps(blocked, width, height, start, goal) -> int:
    distance = {start: 0}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            return distance[cell]
        x, y = cell
        for nxt in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            inside = 0 <= nxt[0] < width and 0 <= nxt[1] < height
            if inside and nxt not in blocked and nxt not in distance:
                distance[nxt] = distance[cell] + 1
                queue.append(nxt)
    raise AssertionError("no path in the test map")


# --- plan ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ["astar", "bfs", "dijkstra", "bidirectional_bfs"])
def test_plan_tutorial_cells_json_gives_the_16_step_path(capsys, algorithm):
    code, report, _ = run_json(
        capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithm", algorithm
    )
    assert code == 0
    assert report["status"] == "SOLVED"
    assert report["length"] == 16
    assert report["optimal"] is True
    assert len(report["path"]) == 17
    assert_valid_path(report["path"], (0, 7), (9, 0), TUTORIAL_BLOCKED, 10, 8)
    assert report["poses"] == [[x + 0.5, y + 0.5] for x, y in report["path"]]
    assert report["nodes_expanded"] > 0 and report["nodes_generated"] >= report["nodes_expanded"]
    assert report["planning_time"] >= 0.0


def test_plan_dfs_gives_a_valid_path_no_shorter_than_16(capsys):
    code, report, _ = run_json(
        capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithm", "dfs"
    )
    assert code == 0
    assert report["length"] >= 16
    assert report["length"] == len(report["path"]) - 1
    assert report["optimal"] is False
    assert_valid_path(report["path"], (0, 7), (9, 0), TUTORIAL_BLOCKED, 10, 8)


def test_plan_dfs_summary_says_the_path_is_not_optimal(capsys):
    code, out, _ = run(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithm", "dfs")
    assert code == 0
    assert "NOT optimal" in out
    assert "valid but usually far longer than the shortest" in out


def test_plan_world_coordinates_give_the_same_path_as_cells(capsys):
    _, by_cells, _ = run_json(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL)
    code, by_world, _ = run_json(
        capsys, "plan", TUTORIAL_MAP, "--start", "0.2", "7.9", "--goal", "9.5", "0.5"
    )
    assert code == 0
    assert by_world["path"] == by_cells["path"]
    assert by_world["poses"] == by_cells["poses"]
    assert by_world["length"] == 16


def test_plan_summary_names_algorithm_length_nodes_and_time(capsys):
    code, out, err = run(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL)
    assert code == 0 and err == ""
    assert "astar" in out and "optimal" in out
    assert "16 steps" in out and "16.000 m" in out
    assert "expanded" in out and "generated" in out and "peak frontier" in out
    assert "ms" in out


def test_goal_on_a_wall_returns_goal_occupied_exit_1(capsys):
    code, report, _ = run_json(
        capsys, "plan", TUTORIAL_MAP, "--cells", "--start", "0", "7", "--goal", "7", "7"
    )
    assert code == 1
    assert report["status"] == "GOAL_OCCUPIED"
    assert report["error_code"] == 206
    assert "(7, 7)" in report["message"]
    assert report["path"] == [] and report["length"] == 0
    code, out, err = run(
        capsys, "plan", TUTORIAL_MAP, "--cells", "--start", "0", "7", "--goal", "7", "7"
    )
    assert code == 1 and out == ""
    assert_one_error_line(err, "GOAL_OCCUPIED")


def test_goal_tolerance_moves_a_blocked_goal_to_the_nearest_free_cell(capsys):
    code, report, _ = run_json(
        capsys,
        "plan",
        TUTORIAL_MAP,
        "--cells",
        "--start",
        "0",
        "7",
        "--goal",
        "7",
        "7",
        "--tolerance",
        "1",
    )
    assert code == 0
    assert report["goal_adjusted"] is True
    assert report["requested_goal_cell"] == [7, 7]
    assert report["path"][-1] in ([6, 7], [8, 7])
    assert report["length"] == 6


@pytest.mark.parametrize(
    ("start", "goal", "status"),
    [
        (("0", "7"), ("10", "0"), "GOAL_OUTSIDE_MAP"),
        (("0", "7"), ("9", "-1"), "GOAL_OUTSIDE_MAP"),
        (("-1", "7"), ("9", "0"), "START_OUTSIDE_MAP"),
        (("0", "8"), ("9", "0"), "START_OUTSIDE_MAP"),
    ],
)
def test_cells_outside_the_map_are_refused(capsys, start, goal, status):
    code, report, _ = run_json(
        capsys, "plan", TUTORIAL_MAP, "--cells", "--start", *start, "--goal", *goal
    )
    assert code == 1
    assert report["status"] == status


def test_world_point_outside_the_map_is_refused(capsys):
    code, report, _ = run_json(
        capsys, "plan", TUTORIAL_MAP, "--start", "0.5", "7.5", "--goal", "10.01", "0.5"
    )
    assert code == 1
    assert report["status"] == "GOAL_OUTSIDE_MAP"
    assert "10.010" in report["message"]


def test_unknown_algorithm_exits_2_naming_the_choices(capsys):
    code, out, err = run(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithm", "dijkstar")
    assert code == 2 and out == ""
    assert_one_error_line(err, "'dijkstar'", "astar", "bfs", "dfs")
    code, report, _ = run_json(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithm", "x")
    assert code == 2
    assert report["status"] == "INVALID_PLANNER"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (
            ["plan", TUTORIAL_MAP, "--start", "0", "seven", "--goal", "9", "0"],
            "'seven' is not a number",
        ),
        (["plan", TUTORIAL_MAP, "--start", "0", "nan", "--goal", "9", "0"], "not a finite number"),
        (["plan", TUTORIAL_MAP, "--start", "0", "7"], "--goal"),
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--robot-radius", "-1"], "must be >= 0"),
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--occupied-threshold", "0"], "1..100"),
        (
            ["plan", TUTORIAL_MAP, "--cells", "--start", "0.5", "7", "--goal", "9", "0"],
            "whole cell",
        ),
        (["plan", "missing.yaml", *CELLS_START_GOAL], "missing.yaml not found"),
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--resolution", "0.5"], "bare image"),
        (["frobnicate"], "invalid choice"),
        ([], "COMMAND"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_no_traceback(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert_one_error_line(err, fragment)


def test_map_load_error_in_json_mode_reports_no_map(capsys):
    code, report, err = run_json(capsys, "plan", "missing.yaml", *CELLS_START_GOAL)
    assert code == 2
    assert report["status"] == "NO_MAP"
    assert "missing.yaml" in report["message"]
    assert_one_error_line(err, "missing.yaml")


def test_help_exits_0_and_lists_every_grid_algorithm(capsys):
    code, out, _ = run(capsys, "plan", "--help")
    assert code == 0
    for name in domain_algorithms(GRID):
        assert name in out


# --- PNG to grid --------------------------------------------------------------------------------


@pytest.fixture
def drawn_png(tmp_path):
    """A 12 x 9 px black-and-white PNG: a wall down from the top with a gap at the bottom."""
    pixels = np.full((9, 12), 255, dtype=np.uint8)  # image row 0 is the top
    pixels[0:7, 5] = 0
    pixels[3, 8:12] = 0
    pixels[8, 2] = 0
    path = tmp_path / "room.png"
    Image.fromarray(pixels).save(path)
    height, width = pixels.shape
    blocked = {(x, height - 1 - row) for row, x in zip(*np.nonzero(pixels == 0), strict=True)}
    return path, blocked, width, height


def test_png_to_grid_plans_the_bfs_shortest_path(capsys, drawn_png):
    path, blocked, width, height = drawn_png
    start_cell, goal_cell = (0, 8), (11, 8)
    expected = bfs_steps(blocked, width, height, start_cell, goal_cell)
    # Cell (0, 8) with origin (-1, -1) at 0.5 m spans x -1..-0.5, y 3..3.5.
    code, report, _ = run_json(
        capsys, "plan", str(path), "--resolution", "0.5", "--origin", "-1", "-1",
        "--start", "-0.75", "3.25", "--goal", "4.75", "3.25",
    )  # fmt: skip
    assert code == 0
    assert report["length"] == expected == 25  # down to the gap, across, up around the shelf
    assert_valid_path(report["path"], start_cell, goal_cell, blocked, width, height)
    assert report["poses"] == [
        [-1 + (x + 0.5) * 0.5, -1 + (y + 0.5) * 0.5] for x, y in report["path"]
    ]


def test_png_origin_with_yaw_and_cells_are_accepted(capsys, drawn_png):
    path, blocked, width, height = drawn_png
    code, report, _ = run_json(
        capsys, "plan", str(path), "--resolution", "0.5", "--origin", "-1", "-1", "0",
        "--cells", "--start", "0", "0", "--goal", "11", "0", "--algorithm", "bfs",
    )  # fmt: skip
    assert code == 0
    assert report["length"] == bfs_steps(blocked, width, height, (0, 0), (11, 0))


def test_png_without_resolution_exits_2_with_a_clear_message(capsys, drawn_png):
    path, *_ = drawn_png
    code, out, err = run(capsys, "plan", str(path), *CELLS_START_GOAL)
    assert code == 2 and out == ""
    assert_one_error_line(err, "room.png", "--resolution")


def test_origin_takes_two_or_three_numbers(capsys, drawn_png):
    path, *_ = drawn_png
    code, _, err = run(
        capsys, "plan", str(path), "--resolution", "1", "--origin", "1", *CELLS_START_GOAL
    )
    assert code == 2
    assert_one_error_line(err, "--origin", "X Y [YAW]")


# --- pictures -----------------------------------------------------------------------------------


def test_png_output_has_the_expected_size_and_orientation(capsys, tmp_path):
    out_png = tmp_path / "plan.png"
    code, out, _ = run(
        capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--png", str(out_png), "--scale", "4"
    )
    assert code == 0
    assert str(out_png) in out
    with Image.open(out_png) as image:
        assert image.format == "PNG"
        assert image.size == (TUTORIAL_WIDTH * 4, TUTORIAL_HEIGHT * 4)
        rgb = np.asarray(image.convert("RGB"))
    # The image's top row is the map's highest row: the start cell (0, 7) is top-left.
    assert tuple(rgb[1, 1]) == render.START_RGB
    assert tuple(rgb[-2, -2]) == render.GOAL_RGB
    assert tuple(rgb[(7 - 7) * 4 + 2, 7 * 4 + 2]) == render.OBSTACLE_RGB  # wall cell (7, 7)
    assert tuple(rgb[(7 - 6) * 4 + 2, 0 * 4 + 2]) == render.PATH_RGB  # path cell (0, 6)


def test_png_default_scale_enlarges_a_small_map(capsys, tmp_path):
    out_png = tmp_path / "plan.png"
    code, _, _ = run(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--png", str(out_png))
    assert code == 0
    scale = render.auto_scale(TUTORIAL_WIDTH, TUTORIAL_HEIGHT)
    assert scale > 1
    with Image.open(out_png) as image:
        assert image.size == (TUTORIAL_WIDTH * scale, TUTORIAL_HEIGHT * scale)


def _map_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line and set(line) <= set("#.*SG")]


def test_ascii_draws_the_path_the_walls_and_the_ends(capsys):
    code, out, _ = run(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--ascii")
    assert code == 0
    lines = _map_lines(out)
    assert len(lines) == TUTORIAL_HEIGHT and all(len(line) == TUTORIAL_WIDTH for line in lines)
    drawing = "".join(lines)
    assert drawing.count("*") == 15  # 17 cells minus S and G
    assert lines[0][0] == "S" and lines[-1][-1] == "G"  # top row printed first
    for x, y in TUTORIAL_BLOCKED:
        assert lines[TUTORIAL_HEIGHT - 1 - y][x] == "#"


def test_ascii_in_json_mode_goes_into_the_one_object(capsys):
    code, report, _ = run_json(capsys, "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--ascii")
    assert code == 0
    assert "".join(_map_lines(report["ascii"])).count("*") == 15


def test_ascii_of_a_big_map_is_cropped_or_shrunk_to_the_cap():
    rows = np.zeros((300, 500), dtype=np.int8)
    rows[100:200, 250] = 100
    grid = PlanningGrid(OccupancyMap.from_rows(rows))
    near = plan(grid, (240, 150), (260, 150))
    text = render.plan_ascii(grid, near, max_width=60, max_height=30)
    lines = _map_lines(text)
    assert len(lines) == 30 and all(len(line) == 60 for line in lines)
    assert "S" in text and "G" in text and "#" in text
    far = plan(grid, (0, 0), (499, 299))
    lines = _map_lines(render.plan_ascii(grid, far, max_width=60, max_height=30))
    assert len(lines) <= 30 and all(len(line) <= 60 for line in lines)
    assert any("S" in line for line in lines) and any("G" in line for line in lines)


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
        capsys, "compare", TUTORIAL_MAP, "--cells", "--start", "0", "7", "--goal", "7", "7"
    )
    assert code == 1
    assert report["status"] == "GOAL_OCCUPIED"


# --- the installed console script ---------------------------------------------------------------


def test_console_script_runs_a_plan():
    script = PROJECT_ROOT / ".venv" / "bin" / "grid-planner"
    if not script.exists():
        pytest.skip(f"{script} is not installed (run `make setup`)")
    # PYTHONPATH puts this checkout first, so the script runs the code under test even when the
    # installed wheel is older.
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        [str(script), "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--json"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["length"] == 16
    failed = subprocess.run(
        [str(script), "plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithm", "nope"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )  # fmt: skip
    assert failed.returncode == 2
    assert_one_error_line(failed.stderr, "nope")
