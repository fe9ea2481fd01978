"""`compare --by-depth`: the 8-puzzle's search cost and b* by solution depth."""

from __future__ import annotations

import json
import math
from collections import deque

import numpy as np
import pytest

from grid_planner.cli import main
from grid_planner.puzzle import apply_move, default_goal
from grid_planner.puzzle.board import permutation_rank
from grid_planner.puzzle.by_depth import (
    boards_at_depth,
    by_depth,
    effective_branching_factor,
    permutation_unrank,
)


def test_effective_branching_factor_of_hand_checked_cases():
    # The textbook's example: 52 nodes generated for a solution at depth 5 give b* = 1.92.
    assert round(effective_branching_factor(52, 5), 2) == 1.92
    assert math.isclose(effective_branching_factor(14, 3), 2.0, rel_tol=1e-9)  # 2 + 4 + 8
    assert math.isclose(effective_branching_factor(3, 1), 3.0, rel_tol=1e-9)
    assert math.isclose(effective_branching_factor(5, 5), 1.0, rel_tol=1e-9)  # a bare path
    with pytest.raises(ValueError, match="depth >= 1"):
        effective_branching_factor(10, 0)


def test_unrank_inverts_the_permutation_rank():
    rng = np.random.default_rng(3)
    for rank in [0, 1, 362_879, *rng.integers(0, 362_880, 50).tolist()]:
        tiles = permutation_unrank(int(rank), 9)
        assert sorted(tiles) == list(range(9))
        assert permutation_rank(tiles) == rank


def distances_from_goal(limit: int) -> dict[tuple[int, ...], int]:
    """Every 8-puzzle board within `limit` moves of the goal, by a plain BFS written here."""
    goal = default_goal(3)
    seen = {goal: 0}
    queue = deque([goal])
    while queue:
        board = queue.popleft()
        if seen[board] == limit:
            continue
        for move in ("Up", "Down", "Left", "Right"):
            try:
                nxt = apply_move(board, move)
            except ValueError:
                continue
            if nxt not in seen:
                seen[nxt] = seen[board] + 1
                queue.append(nxt)
    return seen


def test_boards_are_drawn_at_exactly_their_depth():
    truth = distances_from_goal(7)
    rng = np.random.default_rng(5)
    for depth in (2, 5, 7):
        boards = boards_at_depth(depth, 20, rng)
        assert len(boards) == 20
        assert all(truth.get(tuple(board)) == depth for board in boards)
    with pytest.raises(ValueError, match="no 8-puzzle board is 40 moves"):
        boards_at_depth(40, 1, rng)


def test_better_heuristics_generate_fewer_nodes_at_every_depth():
    rows = by_depth(depths=(2, 8, 14, 20), boards=4, seed=11, ids_max_depth=8)
    for row in rows:
        cells = row.cells
        assert (cells["IDS"] is None) == (row.depth > 8)
        assert all(c is None or (c.solved, c.limited) == (4, 0) for c in cells.values())
        order = [cells[label].generated for label in ("BFS", "A*(h1)", "A*(h2)", "A*(lc)")]
        assert order == sorted(order, reverse=True), (row.depth, order)
        assert all(1.0 <= cells[label].branching <= 4.0 for label in ("BFS", "A*(h2)"))
    deep = rows[-1].cells
    assert deep["BFS"].generated > 10 * deep["A*(h2)"].generated


def test_the_cli_prints_every_depth_and_refuses_a_target(capsys):
    assert main(["compare", "--by-depth", "--boards", "1", "--seed", "2", "--json"]) == 0
    out, _ = capsys.readouterr()
    rows = json.loads(out)
    assert [row["depth"] for row in rows] == list(range(2, 25, 2))
    assert rows[0]["runs"]["IDS"]["solved"] == 1 and rows[-1]["runs"]["IDS"] is None
    assert main(["compare", "--by-depth", "--boards", "1"]) == 0
    out, err = capsys.readouterr()
    assert "Mean nodes generated" in out and "depth 24 done" in err
    # Every run over its budget: each cell reads "*" (it read "-", "not run") and exit 1 (0).
    assert main(["compare", "--by-depth", "--boards", "1", "--max-nodes", "1",
                 "--max-depth", "4"]) == 1
    out, _ = capsys.readouterr()
    depth_2 = next(line.split() for line in out.splitlines() if line.split()[:1] == ["2"])
    assert depth_2[1:] == ["*"] * 6
    assert "(a * alone: all were)" in out
    assert main(["compare", "--by-depth", "1 2 3 4 0 6 7 5 8"]) == 2
    assert "give no TARGET" in capsys.readouterr().err
    assert main(["compare"]) == 2
    assert "compare needs a TARGET" in capsys.readouterr().err
