"""15- and 24-puzzle benchmarks (Korf 1985, Korf & Felner 2002) from ../shared/puzzles.

Korf's goal has the blank top-left (0 1 2 ... 15). The library takes any goal, so most tests
use that goal directly; one maps an instance to the goal 1..15, 0 as the README describes
(tile v -> 16 - v, list reversed) to check that the mapping keeps the length.
"""

from __future__ import annotations

import pytest
from shared_data import shared_path

from grid_planner.puzzle import (
    KORF_MOVE_ORDER,
    PuzzleProblem,
    PuzzleStatus,
    is_solvable,
    linear_conflict,
    manhattan,
    replay,
    solve,
)
from grid_planner.search import Budget, LimitKind, SearchStatus, idastar

KORF_GOAL = tuple(range(16))
GOAL_24 = tuple(range(25))


def read_instances(name: str, tiles: int) -> dict[int, tuple[tuple[int, ...], int]]:
    """{id: (board, optimal length)} from one of the shared instance files."""
    instances = {}
    for line in shared_path("puzzles", name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            numbers = [int(v) for v in line.split()]
            assert len(numbers) == tiles + 2, line
            instances[numbers[0]] = (tuple(numbers[1 : tiles + 1]), numbers[-1])
    return instances


@pytest.fixture(scope="module")
def korf100():
    instances = read_instances("korf100.txt", 16)
    assert len(instances) == 100
    return instances


@pytest.fixture(scope="module")
def korf_nodes():
    table = {}
    for line in shared_path("puzzles", "korf100_ida_md_nodes.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            number, h0, length, generated = map(int, line.split())
            table[number] = (h0, length, generated)
    return table


def to_blank_last(board: tuple[int, ...]) -> tuple[int, ...]:
    """The README's mapping from Korf's blank-first goal to the goal 1..15, 0."""
    return tuple(16 - tile if tile else 0 for tile in reversed(board))


def test_all_instances_are_solvable_and_heuristics_are_lower_bounds(korf100, korf_nodes):
    for number, (board, length) in korf100.items():
        assert is_solvable(board, KORF_GOAL)
        assert is_solvable(to_blank_last(board))
        h0, published_length, _generated = korf_nodes[number]
        assert published_length == length
        assert manhattan(board, KORF_GOAL) == h0
        # The mapping is a relabelling plus a half turn: it keeps every heuristic.
        assert manhattan(to_blank_last(board)) == h0
        assert linear_conflict(to_blank_last(board)) == linear_conflict(board, KORF_GOAL)
        assert h0 <= linear_conflict(board, KORF_GOAL) <= length
        assert (length - h0) % 2 == 0


def test_24_puzzle_instances_have_admissible_heuristics():
    instances = read_instances("korf24_50.txt", 25)
    assert len(instances) == 50
    for board, length in instances.values():
        assert is_solvable(board, GOAL_24)
        assert manhattan(board, GOAL_24) <= linear_conflict(board, GOAL_24) <= length


@pytest.mark.parametrize("number", [55, 79])
def test_easy_korf_instances_solve_at_their_published_length_with_idastar(korf100, number):
    board, length = korf100[number]
    outcome = solve(board, KORF_GOAL, "idastar", "linear_conflict",
                    budget=Budget(max_nodes=200_000))
    assert outcome.status is PuzzleStatus.SOLVED, outcome.message
    assert (outcome.length, outcome.optimal) == (length, True)
    assert replay(board, outcome.moves) == KORF_GOAL


def test_a_korf_instance_mapped_to_the_default_goal_keeps_its_length(korf100):
    board, length = korf100[12]
    outcome = solve(to_blank_last(board), algorithm="idastar", heuristic="linear_conflict",
                    budget=Budget(max_nodes=200_000))
    assert (outcome.status, outcome.length) == (PuzzleStatus.SOLVED, length)
    assert replay(to_blank_last(board), outcome.moves) == (*range(1, 16), 0)


def test_idastar_manhattan_reproduces_korfs_node_count_with_his_move_order(korf100, korf_nodes):
    # Korf 1985 counts nodes generated over all iterations, the start once, the undo move
    # never; his blank moves are tried Up, Left, Right, Down. Instance 79 is the smallest.
    board, length = korf100[79]
    problem = PuzzleProblem(board, KORF_GOAL, "manhattan", move_order=KORF_MOVE_ORDER)
    result = idastar(problem)
    assert result.length == length == 42
    assert result.nodes_generated == korf_nodes[79][2] == 540_860


def test_hard_instance_hits_the_node_budget_deterministically(korf100):
    board, _length = korf100[88]  # 65 moves
    budget = Budget(max_nodes=20_000)
    first = solve(board, KORF_GOAL, "idastar", "linear_conflict", budget=budget)
    again = solve(board, KORF_GOAL, "idastar", "linear_conflict", budget=budget)
    assert first.status is PuzzleStatus.LIMIT_REACHED
    assert first.limit is LimitKind.MAX_NODES
    assert first.nodes_expanded == 20_000
    assert first.nodes_generated == again.nodes_generated
    assert first.max_frontier == again.max_frontier
    astar_run = solve(board, KORF_GOAL, "astar", "linear_conflict", budget=budget)
    assert (astar_run.status, astar_run.nodes_expanded) == (PuzzleStatus.LIMIT_REACHED, 20_000)


def test_deadline_stops_a_24_puzzle_search_within_a_generous_bound():
    board, _length = read_instances("korf24_50.txt", 25)[1]
    result = idastar(PuzzleProblem(board, GOAL_24, "linear_conflict"), Budget.from_timeout(0.3))
    assert (result.status, result.limit) == (SearchStatus.LIMIT_REACHED, LimitKind.DEADLINE)
    assert result.elapsed < 5.0  # the one wall-clock bound of the suite, deliberately generous
