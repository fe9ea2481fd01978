"""Boards: parsing, validation messages, solvability (exhaustively checked), moves, printing."""

from __future__ import annotations

import itertools
import random

import pytest
from puzzle_tables import EIGHT_GOAL, distance_table, eight_puzzle_table, random_walk

from grid_planner.puzzle import (
    KORF_MOVE_ORDER,
    MOVES,
    IllegalMoveError,
    InvalidBoardError,
    InvalidRequestError,
    PuzzleError,
    apply_move,
    default_goal,
    format_board,
    inversions,
    is_solvable,
    parse_board,
    parse_goal,
    replay,
    replay_boards,
)
from grid_planner.puzzle.board import neighbour_table


@pytest.mark.parametrize(
    "text",
    ["1 2 3 4 0 6 7 5 8", "1,2,3,4,0,6,7,5,8", " 1, 2, 3\n4 0 6\t7 5 8 ", "1 2 3, 4 0 6, 7 5 8"],
)
def test_board_parses_from_spaces_and_commas(text):
    assert parse_board(text) == (1, 2, 3, 4, 0, 6, 7, 5, 8)


def test_board_parses_from_sequences_and_bytes():
    expected = (1, 2, 3, 0)
    assert parse_board([1, 2, 3, 0]) == expected
    assert parse_board((1, 2, 3, 0)) == expected
    assert parse_board(bytes([1, 2, 3, 0])) == expected
    assert parse_board(bytearray([1, 2, 3, 0])) == expected


@pytest.mark.parametrize("count", [0, 1, 2, 3, 5, 8, 10, 15, 17])
def test_board_of_non_square_length_names_the_length(count):
    with pytest.raises(InvalidBoardError, match=rf"board has {count} tiles; it needs n\*n"):
        parse_board(list(range(count)))


def test_board_with_out_of_range_value_names_it():
    with pytest.raises(InvalidBoardError, match=r"tile value\(s\) 9 out of range 0\.\.8"):
        parse_board("1 2 3 4 9 6 7 5 8")
    with pytest.raises(InvalidBoardError, match=r"-1, 16 out of range 0\.\.15"):
        parse_board([16, *range(1, 15), -1])


def test_board_with_duplicates_names_them_and_the_missing_tiles():
    with pytest.raises(InvalidBoardError, match=r"duplicate tile\(s\) 3, 5 \(missing 4, 6\)"):
        parse_board("1 2 3 3 5 5 7 8 0")


@pytest.mark.parametrize("bad", ["1 2 x 0", [1, 2, 3.5, 0], [1, 2, None, 0], [True, 2, 3, 0]])
def test_board_with_non_integer_tile_is_invalid(bad):
    with pytest.raises(InvalidBoardError, match="is not an integer"):
        parse_board(bad)


def test_errors_share_a_base_class_and_are_value_errors():
    assert issubclass(InvalidBoardError, PuzzleError)
    assert issubclass(InvalidRequestError, PuzzleError)
    assert issubclass(IllegalMoveError, PuzzleError)
    assert issubclass(PuzzleError, ValueError)


def test_goal_defaults_to_ordered_tiles_with_blank_last():
    assert default_goal(2) == (1, 2, 3, 0)
    assert default_goal(3) == EIGHT_GOAL
    assert parse_goal(None, 4) == (*range(1, 16), 0)
    assert parse_goal([], 3) == EIGHT_GOAL
    assert parse_goal("0 1 2 3 4 5 6 7 8", 3) == tuple(range(9))


def test_bad_goal_is_an_invalid_request_naming_the_fault():
    with pytest.raises(InvalidRequestError, match=r"goal has 4 tiles but the board is 3x3"):
        parse_goal([1, 2, 3, 0], 3)
    with pytest.raises(InvalidRequestError, match=r"goal has duplicate tile\(s\) 1"):
        parse_goal([1, 1, 2, 0], 2)
    with pytest.raises(InvalidRequestError, match=r"goal tile value\(s\) 4"):
        parse_goal([1, 2, 4, 0], 2)


def test_inversions_count_pairs_out_of_order_ignoring_the_blank():
    assert inversions(EIGHT_GOAL) == 0
    assert inversions((0, 1, 2, 3, 4, 5, 6, 7, 8)) == 0
    assert inversions((8, 7, 6, 5, 4, 3, 2, 1, 0)) == 28
    assert inversions((2, 1, 0, 3)) == 1
    rng = random.Random(5)
    for _ in range(200):
        tiles = list(range(16))
        rng.shuffle(tiles)
        plain = [t for t in tiles if t]
        expected = sum(a > b for a, b in itertools.combinations(plain, 2))
        assert inversions(tiles) == expected


def test_solvability_matches_reachability_for_every_2x2_board_and_goal():
    boards = list(itertools.permutations(range(4)))
    for goal in boards:
        reachable = distance_table(goal)
        assert len(reachable) == 12
        for board in boards:
            assert is_solvable(board, goal) == (bytes(board) in reachable), (board, goal)


def test_solvability_matches_reachability_for_every_3x3_board():
    reachable = eight_puzzle_table()
    solvable = [
        board for board in itertools.permutations(range(9)) if is_solvable(board, EIGHT_GOAL)
    ]
    assert len(solvable) == len(reachable) == 181_440
    assert all(bytes(board) in reachable for board in solvable)


def test_solvability_for_another_3x3_goal_matches_reachability():
    goal = (0, 1, 2, 3, 4, 5, 6, 7, 8)
    reachable = distance_table(goal)
    rng = random.Random(7)
    for _ in range(20_000):
        board = list(range(9))
        rng.shuffle(board)
        assert is_solvable(board, goal) == (bytes(board) in reachable)


@pytest.mark.parametrize("side", [4, 5, 6])
def test_even_and_odd_widths_random_walks_stay_solvable_and_a_swap_breaks_it(side):
    rng = random.Random(side)
    goal = list(range(side * side))
    rng.shuffle(goal)
    for steps in (0, 1, 7, 40, 301):
        board = list(random_walk(tuple(goal), steps, rng))
        assert is_solvable(board, goal)
        tiles = [i for i, tile in enumerate(board) if tile]
        a, b = rng.sample(tiles, 2)
        board[a], board[b] = board[b], board[a]
        assert not is_solvable(board, goal)


def test_sam_loyds_14_15_puzzle_is_unsolvable():
    assert not is_solvable((*range(1, 14), 15, 14, 0))
    assert is_solvable((*range(1, 16), 0))


def test_moves_name_the_blank_motion():
    board = (1, 2, 3, 4, 0, 5, 6, 7, 8)
    assert apply_move(board, "Up") == (1, 0, 3, 4, 2, 5, 6, 7, 8)
    assert apply_move(board, "Down") == (1, 2, 3, 4, 7, 5, 6, 0, 8)
    assert apply_move(board, "Left") == (1, 2, 3, 0, 4, 5, 6, 7, 8)
    assert apply_move(board, "Right") == (1, 2, 3, 4, 5, 0, 6, 7, 8)


def test_moves_off_the_board_and_unknown_moves_are_refused():
    corner = (0, 1, 2, 3)
    with pytest.raises(IllegalMoveError, match=r"move Up would push the blank \(row 0"):
        apply_move(corner, "Up")
    with pytest.raises(IllegalMoveError, match="move Left"):
        apply_move(corner, "Left")
    with pytest.raises(IllegalMoveError, match="unknown move 'North'"):
        apply_move(corner, "North")


def test_replay_returns_the_final_board_and_every_board_on_the_way():
    start = (1, 2, 3, 4, 0, 6, 7, 5, 8)
    assert replay(start, ["Down", "Right"]) == EIGHT_GOAL
    assert replay(start, ["Down", "Right"], 3) == EIGHT_GOAL
    assert replay(start, []) == start
    assert replay_boards(start, ["Down", "Right"]) == [
        start, (1, 2, 3, 4, 5, 6, 7, 0, 8), EIGHT_GOAL,
    ]


def test_format_board_prints_an_aligned_grid():
    assert format_board((1, 2, 3, 4, 0, 6, 7, 5, 8)) == "1 2 3\n4 _ 6\n7 5 8"
    assert format_board((*range(1, 16), 0)).splitlines() == [
        " 1  2  3  4", " 5  6  7  8", " 9 10 11 12", "13 14 15  _",
    ]
    assert format_board((1, 2, 3, 0), blank=".") == "1 2\n3 ."


def test_neighbour_table_respects_the_move_order_and_the_edges():
    table = neighbour_table(3)
    assert table[4] == [(1, "Up"), (7, "Down"), (3, "Left"), (5, "Right")]
    assert table[0] == [(3, "Down"), (1, "Right")]
    assert neighbour_table(3, KORF_MOVE_ORDER)[4] == [
        (1, "Up"), (3, "Left"), (5, "Right"), (7, "Down"),
    ]
    assert set(MOVES) == set(KORF_MOVE_ORDER)
    with pytest.raises(InvalidRequestError, match="move order"):
        neighbour_table(3, ("Up", "Up", "Left", "Right"))
