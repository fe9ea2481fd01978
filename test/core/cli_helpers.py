"""What the CLI tests share: running `main` in-process, the tutorial grid's facts, a BFS
reference and the path checks."""

from __future__ import annotations

import itertools
import json
from collections import deque

from draw_maps import TUTORIAL_ROWS
from shared_data import PROJECT_ROOT

from grid_planner.cli import main

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


def strict_json(text: str):
    """`text` parsed as RFC 8259 JSON: one value, and no NaN or Infinity tokens."""

    def refuse(token: str):
        raise ValueError(f"{token} is not JSON")

    return json.loads(text, parse_constant=refuse)


def run_json(capsys, *argv: str):
    code, out, err = run(capsys, *argv, "--json")
    return code, strict_json(out), err


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
