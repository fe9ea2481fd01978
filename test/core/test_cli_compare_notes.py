"""`grid-planner compare`: what its notes say the optimal runs minimise (steps, metres, cost),
the limit its LIMIT_REACHED hint names, and the options it refuses where they do not apply."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import (
    CELLS_START_GOAL,
    EASY_BOARD,
    HARD_8_PUZZLE,
    TUTORIAL_MAP,
    run,
    run_json,
)
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner.cli.compare import APPLIES_TO
from grid_planner.cli.parser import build_parser

DEMO_MAP = str(PROJECT_ROOT / "config" / "maps" / "demo_map.yaml")
COSTED_ROUTE = [
    "--start", "-1.55", "-0.65", "--goal", "2.55", "1.55", "--robot-radius", "0.25",
    "--connectivity", "8", "--cost-model", "inflation", "--inflation-radius", "0.55",
    "--cost-scaling-factor", "3", "--cost-travel-multiplier", "5",
]  # fmt: skip
# 5 x 8 cells, top row first: 8-connected from cell (2, 7) to (0, 0), the fewest steps (7) take
# 8.66 m and the fewest metres (8.41) take 8 steps.
DETOUR_ROWS = ["...#.", "##..#", ".....", "..#..", ".....", ".....", ".....", "..#.#"]
BOARD_IS = (
    f"{EASY_BOARD!r} is a board (a map target is one file name ending in .yaml, .png or .pgm)"
)
BY_DEPTH_IS = "--by-depth draws its own 8-puzzle boards and runs a fixed set of searches on them"


def _notes(out: str) -> list[str]:
    """The lines after the table (the last blank line)."""
    lines = out.rstrip("\n").split("\n")
    return lines[len(lines) - lines[::-1].index(""):]


def _header(out: str) -> list[str]:
    return [title for title in out.splitlines()[2].split("  ") if title]


@pytest.fixture
def detour_map(tmp_path) -> str:
    path = tmp_path / "detour.png"
    pixels = [[0 if char == "#" else 255 for char in row] for row in DETOUR_ROWS]
    Image.fromarray(np.array(pixels, dtype=np.uint8)).save(path)
    return str(path)


# --- what the optimal runs minimise -------------------------------------------------------------


def test_under_a_cost_model_the_note_says_least_cost_and_the_table_shows_it(capsys):
    code, rows, _ = run_json(capsys, "compare", DEMO_MAP, *COSTED_ROUTE)
    assert code == 0
    by_name = {row["algorithm"]: row for row in rows}
    astar, bfs = by_name["astar"], by_name["bfs"]
    # The case the note must not mislabel: BFS takes fewer steps and fewer metres, costs more.
    assert bfs["length"] < astar["length"] and bfs["cost"] < astar["cost"]
    assert bfs["search_cost"] > astar["search_cost"] == pytest.approx(by_name["dijkstra"][
        "search_cost"])
    code, out, _ = run(capsys, "compare", DEMO_MAP, *COSTED_ROUTE)
    assert code == 0
    assert _header(out)[3:6] == ["length", "length (m)", "search cost"]
    best = astar["search_cost"]
    why = "breadth-first searches take the fewest steps, not the least cost"
    notes = _notes(out)
    assert notes[:2] == [
        f"least cost: search cost {best:g} (all 2 optimal runs agree)",
        f"bfs: search cost {bfs['search_cost']:g}, {bfs['search_cost'] - best:g} more: {why}",
    ]
    assert not any("shortest" in note for note in notes if not note.startswith("dfs:"))


def test_eight_connected_the_note_says_shortest_in_metres(capsys, detour_map):
    argv = ["compare", detour_map, "--resolution", "1", "--cells", "--start", "2", "7", "--goal",
            "0", "0", "--connectivity", "8", "--algorithms", "astar,dijkstra,bfs"]
    code, rows, _ = run_json(capsys, *argv)
    assert code == 0
    astar, _, bfs = rows
    assert (astar["length"], bfs["length"]) == (8, 7)  # BFS: fewer steps, more metres
    assert (astar["search_cost"], bfs["search_cost"]) == pytest.approx(
        (7 + 2**0.5, 3 + 4 * 2**0.5)
    )
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert _header(out)[3:6] == ["length", "length (m)", "search cost"]
    assert _notes(out) == [
        "shortest in metres: 8.41421 m (all 2 optimal runs agree)",
        "bfs: 8.65685 m, 0.242641 m longer: breadth-first searches take the fewest steps, not "
        "the shortest in metres",
    ]


def test_four_connected_without_costs_keeps_the_shortest_steps_note(capsys):
    code, out, _ = run(capsys, "compare", TUTORIAL_MAP, *CELLS_START_GOAL,
                       "--algorithms", "astar,bfs")
    assert code == 0
    assert _header(out)[3:5] == ["length", "cost (m)"]
    assert _notes(out) == ["shortest: 16 steps (all 2 optimal runs agree)"]


def test_a_goal_moved_by_the_tolerance_is_said_with_the_cell_reached(capsys):
    # The header named the blocked goal and nothing said the searches ended elsewhere.
    code, out, _ = run(capsys, "compare", TUTORIAL_MAP, "--cells", "--start", "0", "0",
                       "--goal", "7", "7", "--tolerance", "1", "--algorithms", "astar,bfs")
    assert code == 0
    assert _notes(out) == [
        "shortest: 13 steps (all 2 optimal runs agree)",
        "note: the goal cell (7, 7) is blocked; within --tolerance the searches went to cell "
        "(6, 7) (astar, bfs)",
    ]


def test_smoothed_metres_are_said_to_be_after_the_search(capsys):
    code, out, _ = run(capsys, "compare", TUTORIAL_MAP, *CELLS_START_GOAL,
                       "--algorithms", "astar", "--smoothing", "shortcut")
    assert code == 0
    assert _notes(out) == [
        "shortest: 16 steps (the one optimal run)",
        "note: the metres are those of the paths after --smoothing shortcut; the searches and "
        "the notes above compare the paths as searched",
    ]


# --- the limit a LIMIT_REACHED run reached ------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        ([HARD_8_PUZZLE, "--algorithms", "dfs", "--max-depth", "3"], "--max-depth"),
        ([HARD_8_PUZZLE, "--algorithms", "bfs", "--max-nodes", "500"], "--max-nodes"),
        ([TUTORIAL_MAP, *CELLS_START_GOAL, "--algorithms", "bfs", "--max-nodes", "5"],
         "--max-nodes"),
    ],
)
def test_the_limit_hint_names_the_option_of_the_limit_reached(capsys, argv, hint):
    code, out, _ = run(capsys, "compare", *argv)
    assert code == 1
    assert _notes(out) == [f"LIMIT_REACHED: the run exhausted its budget (raise {hint})"]


# --- options that do not apply are refused ------------------------------------------------------


def _refused(capsys, argv: list[str], message: str) -> None:
    code, out, err = run(capsys, "compare", *argv)
    assert (code, out) == (2, "")
    assert err == f"grid-planner: error: {message}\n"


@pytest.mark.parametrize(
    ("option", "applies"),
    [
        (["--png", "depth.png"], "--png: only for maps and boards"),
        (["--algorithms", "astar"], "--algorithms: only for maps and boards"),
        (["--heuristics", "pdb"], "--heuristics: only for boards"),
        (["--goal", "1 2 3 4 5 6 7 0 8"], "--goal: only for maps and boards"),
        (["--start", "0", "0"], "--start: only for maps"),
        (["--connectivity", "8"], "--connectivity: only for maps"),
    ],
)
def test_by_depth_refuses_the_options_it_does_not_use(capsys, tmp_path, option, applies):
    _refused(capsys, ["--by-depth", "--boards", "1", "--seed", "2", *option],
             f"{applies}; {BY_DEPTH_IS}")
    assert not (tmp_path / "depth.png").exists()


@pytest.mark.parametrize(
    "option",
    [
        ["--tolerance", "1"],
        ["--robot-radius", "0.5"],
        ["--occupied-threshold", "50"],
        ["--inflation-radius", "1"],
        ["--cost-scaling-factor", "2"],
        ["--cost-travel-multiplier", "0"],
        ["--allow-unknown"],
        ["--cells"],
    ],
)
def test_a_board_refuses_each_grid_option(capsys, option):
    _refused(capsys, [EASY_BOARD, *option], f"{option[0]}: only for maps; {BOARD_IS}")


def test_a_board_refuses_by_depth_options_naming_each_group(capsys):
    _refused(
        capsys, [EASY_BOARD, "--tolerance", "1", "--boards", "4", "--seed", "3",
                 "--robot-radius", "1"],
        f"--boards, --seed: only for --by-depth; --tolerance, --robot-radius: only for maps; "
        f"{BOARD_IS}",
    )


@pytest.mark.parametrize(
    ("option", "applies"),
    [
        (["--max-depth", "3"], "--max-depth: only for boards and --by-depth"),
        (["--heuristics", "manhattan"], "--heuristics: only for boards"),
        (["--boards", "4"], "--boards: only for --by-depth"),
    ],
)
def test_a_map_refuses_board_and_by_depth_options(capsys, option, applies):
    _refused(capsys, [TUTORIAL_MAP, *CELLS_START_GOAL, *option],
             f"{applies}; {TUTORIAL_MAP} is a map")


def test_heuristics_for_uninformed_algorithms_only_are_refused(capsys):
    _refused(capsys, [EASY_BOARD, "--algorithms", "bfs,dfs", "--heuristics", "manhattan"],
             "--heuristics: only for astar, idastar, and --algorithms gives bfs, dfs")


def test_every_compare_option_says_what_it_applies_to():
    args = build_parser().parse_args(["compare"])
    assert set(args.option_defaults) == set(APPLIES_TO)
