"""`grid-planner` with costs, 8-connectivity and smoothing: flags, JSON fields, pictures."""

from __future__ import annotations

import math

import numpy as np
import pytest
from cli_helpers import assert_one_error_line, run, run_json
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner import render

DEMO_MAP = str(PROJECT_ROOT / "config" / "maps" / "demo_map.yaml")
ROUTE = ["--start", "-1.55", "-0.65", "--goal", "2.55", "1.55", "--robot-radius", "0.25"]
COST_AWARE = ["--connectivity", "8", "--cost-model", "inflation", "--inflation-radius", "0.55",
              "--cost-scaling-factor", "3", "--smoothing", "shortcut"]


def test_the_defaults_plan_as_before_four_connected_uniform_and_unsmoothed(capsys):
    code, answer, _ = run_json(capsys, "plan", DEMO_MAP, *ROUTE)
    assert code == 0
    assert (answer["connectivity"], answer["smoothing"]) == (4, "none")
    assert answer["heuristic"] == "manhattan"
    assert answer["length_m"] == pytest.approx(answer["length"] * 0.1)
    assert answer["search_cost"] == answer["length"]
    assert len(answer["poses"]) == len(answer["path"])


def test_cost_aware_smoothed_plans_report_their_shape_and_quality(capsys):
    _, plain, _ = run_json(capsys, "plan", DEMO_MAP, *ROUTE)
    code, answer, _ = run_json(capsys, "plan", DEMO_MAP, *ROUTE, *COST_AWARE)
    assert code == 0
    assert (answer["connectivity"], answer["smoothing"], answer["heuristic"]) == (
        8, "shortcut", "octile",
    )
    assert set(answer["quality"]) == {
        "length_m", "min_clearance_m", "mean_clearance_m", "heading_change_deg",
    }
    assert answer["quality"]["min_clearance_m"] > 0.25
    assert answer["quality"]["heading_change_deg"] < plain["quality"]["heading_change_deg"] / 2
    assert answer["quality"]["mean_clearance_m"] > plain["quality"]["mean_clearance_m"]
    steps = np.diff(np.array(answer["poses"]), axis=0)
    assert (np.hypot(*steps.T) <= 0.1 + 1e-9).all()  # poses about a cell (0.1 m) apart
    assert answer["poses"][0] == pytest.approx([-1.55, -0.65])
    assert answer["poses"][-1] == pytest.approx([2.55, 1.55])


def test_the_summary_names_the_cost_model_and_the_smoothing(capsys):
    code, out, _ = run(capsys, "plan", DEMO_MAP, *ROUTE, *COST_AWARE)
    assert code == 0
    assert "no path costs less under the inflation cost model" in out
    assert "8-connected, cost model inflation, smoothed (shortcut:" in out
    assert "clearance:" in out and "turning" in out


def test_a_map_without_obstacles_has_no_clearance_figure(capsys, tmp_path):
    strip = tmp_path / "strip.png"
    Image.new("L", (400, 1), 254).save(strip)
    strip_args = ("plan", str(strip), "--resolution", "0.05", "--cells", "--start", "0", "0",
                  "--goal", "399", "0")
    code, out, _ = run(capsys, *strip_args)
    assert code == 0
    assert "clearance: no obstacle on the map; turning 0 deg in all" in out
    code, answer, _ = run_json(capsys, *strip_args)
    assert answer["quality"]["min_clearance_m"] is None  # JSON has no infinity


def test_the_picture_shades_costs_and_draws_the_smoothed_line(capsys, tmp_path):
    out_png = tmp_path / "plan.png"
    code, _, _ = run(capsys, "plan", DEMO_MAP, *ROUTE, *COST_AWARE, "--png", str(out_png),
                     "--scale", "10")
    assert code == 0
    with Image.open(out_png) as image:
        rgb = np.asarray(image.convert("RGB")).reshape(-1, 3)
    colours = {tuple(c) for c in np.unique(rgb, axis=0).tolist()}
    assert render.SMOOTHED_PATH_RGB in colours and render.RAW_PATH_RGB in colours
    assert render.PATH_RGB not in colours  # the searched cells are pink under the line
    # Shaded free cells: colours between white and the cost colour (235, 150, 40).
    shades = [c for c in colours if c[0] >= 235 and c[2] < c[1] < 255]
    assert len(shades) >= 3


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [("--connectivity", "6", "invalid choice: 6"),
     ("--cost-model", "smac", "invalid choice: 'smac'"),
     ("--smoothing", "spline", "invalid choice: 'spline'"),
     ("--cost-travel-multiplier", "-1", "must be >= 0"),
     ("--cost-travel-multiplier", "1e7", "'1e7' must be at most 1000"),
     ("--inflation-radius", "nan", "not a finite number")],
)
def test_bad_flags_are_one_line_usage_errors(capsys, flag, value, words):
    code, _, err = run(capsys, "plan", DEMO_MAP, *ROUTE, flag, value)
    assert code == 2
    assert_one_error_line(err, flag, words)


def test_compare_on_a_map_runs_every_algorithm_eight_connected(capsys):
    code, rows, _ = run_json(capsys, "compare", DEMO_MAP, *ROUTE, "--connectivity", "8")
    assert code == 0
    by_name = {row["algorithm"]: row for row in rows}
    assert by_name["astar"]["heuristic"] == "octile"
    assert by_name["astar"]["cost"] == pytest.approx(by_name["dijkstra"]["cost"])
    # BFS counts steps: its path may be longer in metres, never in steps.
    assert by_name["bfs"]["length"] <= by_name["astar"]["length"]
    assert not by_name["bfs"]["optimal"]
    assert math.isfinite(by_name["dfs"]["cost"])


def test_map_only_flags_are_refused_for_a_board(capsys):
    code, _, err = run(capsys, "compare", "1 2 3 4 0 6 7 5 8", "--smoothing", "shortcut")
    assert code == 2
    assert_one_error_line(err, "--smoothing", "only for maps")
