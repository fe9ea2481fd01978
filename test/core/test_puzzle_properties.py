"""Hypothesis properties of the puzzle core: valid replays, admissibility, status codes."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from puzzle_tables import EIGHT_GOAL, eight_puzzle_table, random_walk

from grid_planner.puzzle import (
    HEURISTICS,
    PuzzleStatus,
    default_goal,
    is_solvable,
    replay,
    solve,
)
from grid_planner.puzzle.resolve import heuristic_function
from grid_planner.search import Budget

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])

eight_boards = st.permutations(list(range(9))).map(tuple)


def solvable_variant(board: tuple[int, ...], goal: tuple[int, ...]) -> tuple[int, ...]:
    """`board` itself if solvable, else with its first two tiles swapped (which is)."""
    if is_solvable(board, goal):
        return board
    tiles = list(board)
    a, b = [i for i, tile in enumerate(tiles) if tile][:2]
    tiles[a], tiles[b] = tiles[b], tiles[a]
    return tuple(tiles)


@FAST
@given(board=eight_boards, algorithm=st.sampled_from(["astar", "idastar", "bidirectional_bfs"]),
       heuristic=st.sampled_from(HEURISTICS[1:]))
def test_returned_moves_replay_to_the_goal_in_the_true_distance(board, algorithm, heuristic):
    table = eight_puzzle_table()
    outcome = solve(board, algorithm=algorithm, heuristic=heuristic)
    if bytes(board) in table:
        assert outcome.status is PuzzleStatus.SOLVED
        assert replay(board, outcome.moves) == EIGHT_GOAL
        assert outcome.length == table[bytes(board)]
    else:
        assert outcome.status is PuzzleStatus.UNSOLVABLE
        assert outcome.nodes_generated == 0


@settings(max_examples=300, deadline=None)
@given(board=eight_boards, name=st.sampled_from(HEURISTICS))
def test_heuristics_never_exceed_the_true_distance(board, name):
    board = solvable_variant(board, EIGHT_GOAL)
    assert heuristic_function(name, EIGHT_GOAL)(bytes(board)) <= eight_puzzle_table()[
        bytes(board)]


@st.composite
def walked_boards(draw, sides=(2, 3, 4, 5), max_steps=200):
    """(goal, board, steps): a random goal and a board `steps` random moves away from it."""
    side = draw(st.sampled_from(sides))
    goal = tuple(draw(st.permutations(list(range(side * side)))))
    steps = draw(st.integers(0, max_steps))
    board = random_walk(goal, steps, random.Random(draw(st.integers(0, 2**32))))
    return goal, board, steps


@settings(max_examples=100, deadline=None)
@given(walk=walked_boards())
def test_a_swap_of_two_tiles_always_makes_a_board_unsolvable(walk):
    goal, board, _steps = walk
    tiles = list(board)
    a, b = [i for i, tile in enumerate(tiles) if tile][:2]
    tiles[a], tiles[b] = tiles[b], tiles[a]
    outcome = solve(tiles, goal, algorithm="bfs")
    assert outcome.status is PuzzleStatus.UNSOLVABLE
    assert (outcome.nodes_expanded, outcome.nodes_generated) == (0, 0)
    assert "unsolvable" in outcome.message


@settings(max_examples=40, deadline=None)
@given(walk=walked_boards(sides=(3, 4), max_steps=40))
def test_idastar_and_astar_agree_and_never_exceed_the_walk(walk):
    goal, board, steps = walk
    budget = Budget(max_nodes=100_000)
    a = solve(board, goal, "astar", "linear_conflict", budget=budget)
    b = solve(board, goal, "idastar", "manhattan", budget=budget)
    assert a.success and b.success
    assert a.length == b.length
    assert a.length <= steps
    assert (steps - a.length) % 2 == 0  # every move flips the blank's square colour
    assert replay(board, a.moves) == goal
    assert replay(board, b.moves) == goal


non_square = st.integers(0, 40).filter(lambda n: n < 4 or round(n**0.5) ** 2 != n)


@settings(max_examples=100, deadline=None)
@given(length=non_square, data=st.data())
def test_boards_of_wrong_length_are_invalid_naming_the_length(length, data):
    tiles = data.draw(st.lists(st.integers(0, 50), min_size=length, max_size=length))
    outcome = solve(tiles)
    assert outcome.status is PuzzleStatus.INVALID_BOARD
    assert f"board has {length} tiles" in outcome.message


@settings(max_examples=100, deadline=None)
@given(side=st.integers(2, 5), data=st.data())
def test_boards_with_an_out_of_range_tile_are_invalid_naming_it(side, data):
    count = side * side
    tiles = list(default_goal(side))
    bad = data.draw(st.one_of(st.integers(-1000, -1), st.integers(count, 1000)))
    tiles[data.draw(st.integers(0, count - 1))] = bad
    outcome = solve(tiles)
    assert outcome.status is PuzzleStatus.INVALID_BOARD
    assert str(bad) in outcome.message
    assert f"out of range 0..{count - 1}" in outcome.message


@settings(max_examples=100, deadline=None)
@given(side=st.integers(2, 5), data=st.data())
def test_boards_with_a_duplicate_tile_are_invalid_naming_it(side, data):
    count = side * side
    tiles = list(default_goal(side))
    source, target = data.draw(
        st.lists(st.integers(0, count - 1), min_size=2, max_size=2, unique=True))
    tiles[target] = tiles[source]
    outcome = solve(tiles)
    assert outcome.status is PuzzleStatus.INVALID_BOARD
    assert f"duplicate tile(s) {tiles[source]}" in outcome.message
