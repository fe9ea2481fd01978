"""What `grid-planner` prints: strict JSON (null for a non-finite number), one answer when an
output file cannot be written, empty file names refused, an unused heuristic noted, and huge
measures written compactly."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import (
    CELLS_START_GOAL,
    EASY_BOARD,
    TUTORIAL_MAP,
    assert_one_error_line,
    run,
    run_json,
    strict_json,
)
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner.cli.output import print_json
from grid_planner.report import decimal

TUTORIAL_PGM = str(PROJECT_ROOT / "config" / "maps" / "tutorial_grid.pgm")


# --- JSON ---------------------------------------------------------------------------------------


def test_print_json_writes_non_finite_numbers_as_null(capsys):
    print_json({"a": [1.5, float("inf"), {"b": float("nan")}], "c": (float("-inf"), 2)})
    out = capsys.readouterr().out
    assert strict_json(out) == {"a": [1.5, None, {"b": None}], "c": [None, 2]}


def test_plan_json_on_a_map_without_obstacles_is_strict_json(capsys, tmp_path):
    room = tmp_path / "room.png"
    Image.fromarray(np.full((1, 2), 255, dtype=np.uint8)).save(room)
    code, answer, _ = run_json(capsys, "plan", str(room), "--resolution", "1", "--cells",
                               "--start", "0", "0", "--goal", "1", "0")
    assert code == 0
    assert answer["quality"]["min_clearance_m"] is None
    assert answer["quality"]["mean_clearance_m"] is None


def test_puzzle_json_with_an_unwritable_gif_prints_one_object(capsys, tmp_path):
    code, out, err = run(capsys, "puzzle", EASY_BOARD, "--gif", str(tmp_path), "--json")
    assert code == 2
    answer = strict_json(out)  # one value: a second object would be "Extra data"
    assert answer["status"] == "INVALID_REQUEST"
    assert answer["message"].startswith(f"cannot write {tmp_path}: ")
    assert_one_error_line(err, f"cannot write {tmp_path}")


# --- empty file names ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "argument"),
    [
        (["plan", TUTORIAL_MAP, *CELLS_START_GOAL, "--png", ""], "--png"),
        (["plan", "", *CELLS_START_GOAL], "MAP"),
        (["puzzle", EASY_BOARD, "--gif", ""], "--gif"),
        (["compare", EASY_BOARD, "--png", ""], "--png"),
        (["animate", TUTORIAL_MAP, *CELLS_START_GOAL, "--gif", ""], "--gif"),
    ],
)
def test_an_empty_file_name_is_refused(capsys, argv, argument):
    code, out, err = run(capsys, *argv)
    assert (code, out) == (2, "")
    prog = f"grid-planner {argv[0]}"
    assert err == (
        f"{prog}: error: argument {argument}: expected a file name, got '' "
        f"(see '{prog} --help')\n"
    )


# --- a heuristic an uninformed algorithm does not read ------------------------------------------


@pytest.mark.parametrize(("algorithm", "heuristic"), [("bfs", "manhattan"), ("dfs", "pdb")])
def test_puzzle_notes_a_heuristic_the_algorithm_does_not_use(capsys, algorithm, heuristic):
    note = f"{heuristic}: unused, {algorithm} is uninformed (it reads no heuristic)"
    argv = ["puzzle", EASY_BOARD, "--algorithm", algorithm, "--heuristic", heuristic]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert out.splitlines()[1] == f"note: {note}"
    code, answer, _ = run_json(capsys, *argv)
    assert (code, answer["heuristic"], answer["fallback"]) == (0, "", note)


def test_puzzle_with_auto_heuristic_and_an_uninformed_algorithm_notes_nothing(capsys):
    code, answer, _ = run_json(capsys, "puzzle", EASY_BOARD, "--algorithm", "bfs")
    assert (code, answer["fallback"]) == (0, "")


# --- huge measures ------------------------------------------------------------------------------


def test_decimal_keeps_three_decimals_until_numbers_get_huge():
    assert [decimal(value) for value in (6.12426, 0.0, 999_999_999.0, 1e9, 1e300, float("inf"))] \
        == ["6.124", "0.000", "999999999.000", "1e+09", "1e+300", "inf"]


def test_plan_summary_writes_huge_measures_compactly(capsys):
    code, out, _ = run(capsys, "plan", TUTORIAL_PGM, "--resolution", "1e300", *CELLS_START_GOAL)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == (
        "Path found by astar: 16 steps (1.6e+301 m), optimal (no shorter path exists)."
    )
    assert "  path:      17 cells, 16 steps, 1.6e+301 m, search cost 16.000" in lines
    assert any(line.startswith("  clearance: 1e+300 m at least, ") for line in lines)
