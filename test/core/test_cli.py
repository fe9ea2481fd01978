"""The offline CLI `grid-planner`: plan, its pictures and PNG maps, run in-process through
`main`: exact outcomes on the shipped tutorial grid (cell (0, 7) to cell (9, 0) is 16 steps) and
on a PNG drawn here; one subprocess run checks the console script itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess

import numpy as np
import pytest
from cli_helpers import (
    CELLS_START_GOAL,
    TUTORIAL_BLOCKED,
    TUTORIAL_HEIGHT,
    TUTORIAL_MAP,
    TUTORIAL_WIDTH,
    assert_one_error_line,
    assert_valid_path,
    bfs_steps,
    run,
    run_json,
    strict_json,
)
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner import render
from grid_planner.grid import OccupancyMap, PlanningGrid, plan
from grid_planner.search.registry import GRID, domain_algorithms

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
    # The keys of a found plan, for a reader that looks them up (they were missing).
    assert {key: report[key] for key in (
        "start_cell", "goal_cell", "requested_goal_cell", "goal_adjusted", "connectivity",
        "smoothing", "length_m", "search_cost", "quality", "poses")} == {
        "start_cell": [0, 7], "goal_cell": [7, 7], "requested_goal_cell": [7, 7],
        "goal_adjusted": False, "connectivity": 4, "smoothing": "none", "length_m": None,
        "search_cost": None, "quality": None, "poses": []}
    _, far, _ = run_json(capsys, "plan", TUTORIAL_MAP, "--start", "0.5", "7.5", "--goal",
                         "1e300", "0.5")
    assert (far["status"], far["start_cell"], far["goal_cell"]) == (
        "GOAL_OUTSIDE_MAP", [0, 7], None)  # not the clamped cell 2**62
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
        # 1e300 overflowed the radius's square: a traceback and exit 1.
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--robot-radius", "1e300"],
         "robot_radius 1e+300 m is 1e+300 cells at 1 m/cell, more than the 65,535 cells of "
         "clearance a grid holds"),
        (["compare", TUTORIAL_MAP, *CELLS_START_GOAL, "--cost-model", "inflation",
          "--inflation-radius", "1e153"], "inflation_radius 1e+153 m is 1e+153 cells"),
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--occupied-threshold", "0"], "1..100"),
        (
            ["plan", TUTORIAL_MAP, "--cells", "--start", "0.5", "7", "--goal", "9", "0"],
            "whole cell",
        ),
        (["plan", "missing.yaml", *CELLS_START_GOAL], "missing.yaml not found"),
        # One rule, one message: -1 said ">= 0" where 0 said ">= 1" (and frames 0 ">= 1"
        # where 1 said "in 2..600").
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--scale", "-1"],
         "argument --scale: '-1' must be >= 1"),
        (["animate", TUTORIAL_MAP, *CELLS_START_GOAL, "--gif", "x.gif", "--frames", "0"],
         "frames must be in 2..600, got 0"),
        (["puzzle", "8 6 7 2 5 4 3 0 1", "--algorithm", "iddfs", "--max-depth", "1e30"],
         "argument --max-depth: '1e30' must be below 2**62"),
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


def test_version_prints_the_packages_version(capsys):
    code, out, _ = run(capsys, "--version")
    version = re.search(r'version="([^"]+)"', (PROJECT_ROOT / "setup.py").read_text())[1]
    assert (code, out) == (0, f"grid-planner {version}\n")


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


def test_a_picture_over_the_pixel_limit_is_refused_before_planning(capsys, tmp_path):
    out_png = tmp_path / "plan.png"
    argv = ("plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--png", str(out_png), "--scale", "1200")
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert_one_error_line(
        err, "--png at --scale 1200: a 10 x 8 map at 1200 px per cell is 115,200,000 pixels, "
        "more than the 100,000,000 this renderer draws; use a smaller scale",
    )
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 2
    message = err.split("error: ", 1)[1].strip()
    assert strict_json(out) == {"status": "INVALID_REQUEST", "message": message}
    assert not out_png.exists()


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


@pytest.mark.parametrize("x", ["-1e0", "-1.", "-1E+0", "-1.0"])
def test_a_negative_coordinate_in_any_number_form_is_a_value_not_an_option(capsys, x):
    demo = str(PROJECT_ROOT / "config" / "maps" / "demo_map.yaml")
    code, report, err = run_json(capsys, "plan", demo, "--start", x, "0.5", "--goal", "2.5", "1.5")
    assert (code, err) == (0, "")
    assert report["path"][0] == [20, 25]  # (-1.0, 0.5) m on 0.1 m cells from (-3, -2)
