"""Heuristics: admissible on every 8-puzzle board, exact on known cases, incremental = full."""

from __future__ import annotations

import itertools
import random

import pytest
from puzzle_tables import EIGHT_GOAL, distance_table, eight_puzzle_table, random_walk

from grid_planner.puzzle import (
    HEURISTICS,
    InvalidRequestError,
    PuzzleProblem,
    linear_conflict,
    manhattan,
    misplaced,
)
from grid_planner.puzzle.heuristics import longest_increasing_run, tables_for
from grid_planner.puzzle.resolve import heuristic_function

HARD_EIGHT = (7, 8, 0, 6, 5, 4, 1, 2, 3)


@pytest.fixture(scope="module")
def table():
    return eight_puzzle_table()


def naive_pairwise_linear_conflict(board, goal):
    """The common overestimate: Manhattan + 2 per pair of tiles reversed in their goal line."""
    side = round(len(board) ** 0.5)
    home = {tile: divmod(i, side) for i, tile in enumerate(goal)}
    extra = 0
    for line in range(side):
        row = [(c, board[line * side + c]) for c in range(side)]
        column = [(r, board[r * side + line]) for r in range(side)]
        for cells, axis in ((row, 0), (column, 1)):
            mine = [(at, home[t][1 - axis]) for at, t in cells if t and home[t][axis] == line]
            extra += 2 * sum(1 for (_, a), (_, b) in itertools.combinations(mine, 2) if a > b)
    return manhattan(board, goal) + extra


def test_hard_board_shows_why_pairwise_linear_conflict_is_not_admissible(table):
    assert table[bytes(HARD_EIGHT)] == 26
    assert naive_pairwise_linear_conflict(HARD_EIGHT, EIGHT_GOAL) == 28  # > 26: overestimates
    assert manhattan(HARD_EIGHT) == 14
    assert linear_conflict(HARD_EIGHT) == 24
    assert linear_conflict(HARD_EIGHT) <= 26


@pytest.mark.parametrize("name", HEURISTICS)
def test_every_heuristic_is_admissible_on_all_181440_boards(table, name):
    h = heuristic_function(name, EIGHT_GOAL)
    over = [board for board, distance in table.items() if h(board) > distance]
    assert over == []


def test_heuristics_are_ordered_and_zero_exactly_at_the_goal(table):
    tables = tables_for(bytes(EIGHT_GOAL))
    for board in itertools.islice(table, 0, None, 7):
        low, mid, high = tables.misplaced(board), tables.manhattan(board), tables.linear_conflict(
            board)
        assert low <= mid <= high
        assert (high == 0) == (board == bytes(EIGHT_GOAL))
        # Every move changes Manhattan by one, so it has the parity of the true distance.
        assert (mid - table[board]) % 2 == 0


def test_heuristics_never_count_the_blank():
    one_move = (1, 2, 3, 4, 5, 6, 7, 0, 8)  # only tile 8 is off its square
    assert (misplaced(one_move), manhattan(one_move), linear_conflict(one_move)) == (1, 1, 1)
    blank_first = tuple(range(9))
    one_move = (1, 0, 2, 3, 4, 5, 6, 7, 8)
    assert misplaced(one_move, blank_first) == manhattan(one_move, blank_first) == 1


def test_heuristics_work_for_any_goal_on_2x2_exhaustively():
    for goal in itertools.permutations(range(4)):
        distances = distance_table(goal)
        for board, distance in distances.items():
            for name in HEURISTICS:
                assert heuristic_function(name, goal)(board) <= distance
            assert manhattan(board, goal) % 2 == distance % 2


def test_heuristics_admissible_for_a_blank_first_3x3_goal():
    goal = tuple(range(9))
    distances = distance_table(goal)
    functions = [heuristic_function(name, goal) for name in HEURISTICS]
    for board in itertools.islice(distances, 0, None, 3):
        assert all(h(board) <= distances[board] for h in functions)


def test_linear_conflict_counts_one_tile_leaving_not_every_pair():
    # Row 0 holds 3 2 1 in reverse: two of the three must leave the row -> +4, not +6.
    board = (3, 2, 1, 4, 5, 6, 7, 8, 0)
    assert manhattan(board) == 4
    assert linear_conflict(board) == 4 + 4
    # A single swapped pair costs exactly 2 extra.
    assert linear_conflict((2, 1, 3, 4, 5, 6, 7, 8, 0)) == 2 + 2


def test_longest_increasing_run():
    assert longest_increasing_run([]) == 0
    assert longest_increasing_run([3, 2, 1]) == 1
    assert longest_increasing_run([0, 3, 1, 2]) == 3
    assert longest_increasing_run([2, 0, 3, 1]) == 2


def test_unknown_heuristic_is_an_invalid_request():
    with pytest.raises(InvalidRequestError, match="unknown heuristic 'euclid'"):
        heuristic_function("euclid", EIGHT_GOAL)
    with pytest.raises(InvalidRequestError, match="unknown heuristic"):
        PuzzleProblem(EIGHT_GOAL, heuristic="euclid")


@pytest.mark.parametrize("side", [2, 3, 4, 5])
@pytest.mark.parametrize("name", HEURISTICS)
def test_incremental_heuristic_equals_full_recomputation_along_random_walks(side, name):
    rng = random.Random(side * 31 + len(name))
    goal = list(range(side * side))
    rng.shuffle(goal)
    board = random_walk(tuple(goal), 60, rng)
    problem = PuzzleProblem(board, goal, name)
    state = problem.start
    h = problem.heuristic(state)
    for _ in range(1500):
        children = list(problem.successors_with_heuristic(state, h))
        plain = list(problem.successors(state))
        assert [(m, c, k) for m, c, k, _ in children] == plain
        for _move, child, _cost, h_child in children:
            assert h_child == problem.heuristic(child)
        _move, state, _cost, h = rng.choice(children)
