"""`solve` and `compare` against the exact 8-puzzle distance table, plus every status code."""

from __future__ import annotations

import json
import threading

import pytest
from puzzle_tables import (
    EIGHT_GOAL,
    boards_by_depth,
    depth_counts,
    distance_table,
    eight_puzzle_table,
    sample_boards,
)

from grid_planner.puzzle import (
    PUZZLE_ALGORITHMS,
    PuzzleStatus,
    compare,
    default_depth_limit,
    per_run_budget,
    replay,
    solve,
)
from grid_planner.search import Budget, LimitKind

# OEIS A089473: 8-puzzle boards at each distance 0..31 from the goal.
DEPTH_COUNTS = [
    1, 2, 4, 8, 16, 20, 39, 62, 116, 152, 286, 396, 748, 1024, 1893, 2512, 4485, 5638, 9529,
    10878, 16993, 17110, 23952, 20224, 24047, 15578, 14560, 6274, 3910, 760, 221, 2,
]
HARDEST = [(8, 6, 7, 2, 5, 4, 3, 0, 1), (6, 4, 7, 8, 5, 0, 3, 2, 1)]
OPTIMAL_RUNS = [
    ("bfs", ""),
    ("bidirectional_bfs", ""),
    ("astar", "misplaced"),
    ("astar", "manhattan"),
    ("astar", "linear_conflict"),
    ("idastar", "manhattan"),
    ("idastar", "linear_conflict"),
    ("uniform_cost", ""),
]


@pytest.fixture(scope="module")
def table():
    return eight_puzzle_table()


def assert_solves_optimally(outcome, board, distance):
    assert outcome.status is PuzzleStatus.SOLVED, outcome.message
    assert outcome.success
    assert outcome.length == distance
    assert outcome.optimal
    assert replay(board, outcome.moves) == EIGHT_GOAL
    assert outcome.message == f"solved in {distance} moves (optimal)"


def test_depth_distribution_of_the_8_puzzle_is_exact(table):
    counts = depth_counts(table)
    assert counts == DEPTH_COUNTS
    assert len(counts) - 1 == 31
    assert sum(counts) == 181_440


def test_exactly_two_boards_need_31_moves(table):
    hardest = sorted(tuple(board) for board, d in table.items() if d == 31)
    assert hardest == sorted(HARDEST)


@pytest.mark.parametrize(
    ("board", "algorithm", "heuristic"),
    # One uniform-cost run over the whole space is enough.
    [
        pytest.param(b, a, h, id=f"{a}-{h}-hardest{i}")
        for i, b in enumerate(HARDEST)
        for a, h in OPTIMAL_RUNS
        if a != "uniform_cost" or i == 0
    ],
)
def test_optimal_algorithms_solve_both_31_move_boards_in_31(board, algorithm, heuristic):
    assert_solves_optimally(solve(board, algorithm=algorithm, heuristic=heuristic), board, 31)


@pytest.mark.parametrize(("algorithm", "heuristic"), [
    ("astar", "manhattan"), ("astar", "linear_conflict"), ("idastar", "manhattan"),
    ("idastar", "linear_conflict"), ("bidirectional_bfs", ""),
])
def test_fast_optimal_algorithms_match_the_table_on_random_boards(table, algorithm, heuristic):
    for board in sample_boards(EIGHT_GOAL, 30, seed=11):
        assert_solves_optimally(solve(board, algorithm=algorithm, heuristic=heuristic),
                                tuple(board), table[board])


def test_bfs_and_astar_misplaced_match_the_table_on_random_boards(table):
    for board in sample_boards(EIGHT_GOAL, 3, seed=12):
        assert_solves_optimally(solve(board, algorithm="bfs"), tuple(board), table[board])
    for board in sample_boards(EIGHT_GOAL, 8, seed=13, depths=range(23)):
        outcome = solve(board, algorithm="astar", heuristic="misplaced")
        assert_solves_optimally(outcome, tuple(board), table[board])


def test_iddfs_matches_the_table_on_shallow_boards(table):
    for board in sample_boards(EIGHT_GOAL, 20, seed=14, depths=range(15)):
        assert_solves_optimally(solve(board, algorithm="iddfs"), tuple(board), table[board])


def test_dfs_finds_a_valid_solution_within_its_default_depth_and_says_it_may_be_long(table):
    assert default_depth_limit(3) == 31
    for board in sample_boards(EIGHT_GOAL, 2, seed=15):
        outcome = solve(board, algorithm="dfs")
        assert outcome.status is PuzzleStatus.SOLVED
        assert outcome.optimal is False
        assert table[board] <= outcome.length <= 31
        assert replay(tuple(board), outcome.moves) == EIGHT_GOAL
        assert "not guaranteed shortest with dfs" in outcome.message


def test_dfs_and_iddfs_with_a_too_small_depth_limit_report_limit_reached(table):
    board = tuple(boards_by_depth(EIGHT_GOAL)[20][0])
    for algorithm in ("dfs", "iddfs"):
        outcome = solve(board, algorithm=algorithm, max_depth=12)
        assert outcome.status is PuzzleStatus.LIMIT_REACHED
        assert outcome.limit is LimitKind.MAX_DEPTH
        assert outcome.message == "no solution within the depth limit of 12 moves"
        assert outcome.moves == []
    assert solve(board, algorithm="iddfs", max_depth=20).length == 20


@pytest.mark.parametrize(("limit", "budget_limit"), [
    (181_439, None), (4_294_967_295, None), (4_294_967_295, 181_439)])
def test_dfs_with_a_limit_no_board_path_reaches_expands_no_board_twice(limit, budget_limit):
    """A 3x3 board has 181,440 boards reachable, so no path that repeats none is longer than
    181,439 moves: such a limit (the request's, or the budget's) cuts nothing. With it DFS
    expanded boards again whenever it reached them higher, past 4 million in 10 s, one move
    from the goal."""
    outcome = solve((1, 2, 3, 4, 5, 6, 7, 0, 8), algorithm="dfs", max_depth=limit,
                    budget=Budget(max_nodes=181_440, max_depth=budget_limit))
    assert outcome.status is PuzzleStatus.SOLVED, outcome.message
    assert replay((1, 2, 3, 4, 5, 6, 7, 0, 8), outcome.moves) == EIGHT_GOAL


def test_every_algorithm_solves_every_2x2_board_optimally_or_validly():
    goal = (1, 2, 3, 0)
    for board, distance in distance_table(goal).items():
        for algorithm in PUZZLE_ALGORITHMS:
            outcome = solve(board, algorithm=algorithm, heuristic="linear_conflict")
            assert outcome.status is PuzzleStatus.SOLVED
            assert replay(tuple(board), outcome.moves) == goal
            if algorithm == "dfs":
                assert distance <= outcome.length <= default_depth_limit(2)
            else:
                assert outcome.length == distance


def test_any_goal_is_honoured():
    goal = (0, 1, 2, 3, 4, 5, 6, 7, 8)
    board = (1, 2, 0, 3, 4, 5, 6, 7, 8)
    outcome = solve(board, goal=goal)
    assert outcome.moves == ["Left", "Left"]
    assert outcome.goal == goal
    assert solve(goal, goal=goal).moves == []


def test_unsolvable_board_is_answered_from_parity_without_searching():
    outcome = solve("2 1 3 4 5 6 7 8 0", algorithm="bfs")
    assert outcome.status is PuzzleStatus.UNSOLVABLE
    assert outcome.success is False
    assert (outcome.nodes_expanded, outcome.nodes_generated, outcome.planning_time) == (0, 0, 0)
    assert outcome.result is None
    assert "unsolvable" in outcome.message and "parity" in outcome.message
    even = solve((*range(1, 14), 15, 14, 0))
    assert even.status is PuzzleStatus.UNSOLVABLE
    assert "blank row" in even.message


@pytest.mark.parametrize(
    ("board", "fragment"),
    [
        ("1 2 3 4 5 6 7 8", "board has 8 tiles"),
        ("1 2 3 4 5 6 7 8 9", "9 out of range 0..8"),
        ("1 1 3 4 5 6 7 8 0", "duplicate tile(s) 1"),
        ("1 2 three 0", "'three' is not an integer"),
        ("", "board has 0 tiles"),
    ],
)
def test_invalid_board_status_and_message(board, fragment):
    outcome = solve(board)
    assert outcome.status is PuzzleStatus.INVALID_BOARD
    assert fragment in outcome.message
    assert outcome.nodes_generated == 0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"algorithm": "dijkstra"}, "unknown algorithm 'dijkstra'"),
        ({"heuristic": "euclid"}, "unknown heuristic 'euclid'"),
        ({"algorithm": "bfs", "heuristic": "euclid"}, "unknown heuristic 'euclid'"),
        ({"goal": [1, 2, 3, 0]}, "goal has 4 tiles but the board is 3x3"),
        ({"goal": "1 2 3 4 5 6 7 8 8"}, "goal has duplicate tile(s) 8"),
        ({"max_depth": -1}, "max_depth must be >= 0"),
        ({"max_depth": 2.5}, "max_depth must be an integer"),
        # 2**70 passed this check and raised a ValueError from the search.
        ({"algorithm": "iddfs", "max_depth": 2**70},
         "max_depth must be below 2**62, got 1180591620717411303424"),
        ({"budget": "x"}, "budget must be a Budget or None, got 'x'"),
    ],
)

def test_invalid_request_status_and_message(kwargs, fragment):
    outcome = solve("1 2 3 4 0 6 7 5 8", **kwargs)
    assert outcome.status is PuzzleStatus.INVALID_REQUEST
    assert fragment in outcome.message


@pytest.mark.parametrize("algorithm", ["bfs", "dfs", "iddfs", "bidirectional_bfs", "uniform_cost"])
def test_a_heuristic_named_for_an_uninformed_algorithm_is_said_to_go_unread(algorithm):
    outcome = solve("1 2 3 4 0 6 7 5 8", algorithm=algorithm, heuristic="manhattan")
    unused = f"manhattan: unused, {algorithm} is uninformed (it reads no heuristic)"
    assert (outcome.status, outcome.heuristic, outcome.fallback) == (
        PuzzleStatus.SOLVED, "", unused
    )
    assert outcome.message.endswith(f"; {unused}")
    assert solve("1 2 3 4 0 6 7 5 8", algorithm=algorithm).fallback == ""


def test_empty_algorithm_and_heuristic_mean_auto_and_the_answer_names_the_choice():
    for empty in ("", "auto"):
        outcome = solve("1 2 3 4 0 6 7 5 8", algorithm=empty, heuristic=empty)
        assert (outcome.algorithm, outcome.heuristic) == ("idastar", "table")
        assert outcome.auto == ("algorithm", "heuristic")
        assert outcome.moves == ["Down", "Right"]
        assert "auto chose idastar with table" in outcome.message
        assert outcome.to_dict()["auto"] == ["algorithm", "heuristic"]
    explicit = solve("1 2 3 4 0 6 7 5 8", algorithm="astar", heuristic="manhattan")
    assert (explicit.algorithm, explicit.heuristic, explicit.auto) == ("astar", "manhattan", ())
    assert "auto" not in explicit.message
    uninformed = solve("1 2 3 4 0 6 7 5 8", algorithm="bfs")
    assert (uninformed.heuristic, uninformed.auto) == ("", ())
    informed = solve("1 2 3 4 0 6 7 5 8", algorithm="astar")
    assert (informed.heuristic, informed.auto) == ("table", ("heuristic",))
    chosen = solve("1 2 3 4 0 6 7 5 8", heuristic="misplaced")
    assert (chosen.algorithm, chosen.auto) == ("idastar", ("algorithm",))


def test_status_codes_match_solve_puzzle_srv():
    assert {s.name: int(s) for s in PuzzleStatus} == {
        "SOLVED": 0, "UNSOLVABLE": 1, "INVALID_BOARD": 2, "INVALID_REQUEST": 3,
        "LIMIT_REACHED": 4,
    }


def test_budget_limits_map_to_limit_reached_with_a_message():
    board = HARDEST[0]
    outcome = solve(board, algorithm="bfs", budget=Budget(max_nodes=1000))
    assert outcome.status is PuzzleStatus.LIMIT_REACHED
    assert outcome.limit is LimitKind.MAX_NODES
    assert outcome.nodes_expanded == 1000
    assert outcome.message == "expansion limit reached: 1,000 nodes expanded (max_expansions 1000)"
    outcome = solve(board, algorithm="bfs", budget=Budget(max_held=1000))
    assert (outcome.status, outcome.limit) == (PuzzleStatus.LIMIT_REACHED, LimitKind.MEMORY)
    assert 1000 <= outcome.nodes_held < 1004  # stopped before the expansion past the limit
    assert outcome.message == (
        f"memory budget exhausted: bfs held {outcome.nodes_held:,} states at once (frontier and "
        "visited set, O(b^d)), the limit of max_nodes 1000; IDA* (algorithm idastar) needs "
        "memory only for its path"
    )
    cancel = threading.Event()
    cancel.set()
    outcome = solve(board, algorithm="astar", heuristic="manhattan", budget=Budget(cancel=cancel))
    assert outcome.limit is LimitKind.CANCELLED
    assert outcome.message.startswith("search cancelled after ")
    outcome = solve(board, budget=Budget(deadline=0.0))
    assert outcome.limit is LimitKind.DEADLINE
    assert outcome.message.startswith("time limit reached after")


def test_outcome_to_dict_is_json_ready_with_the_cli_fields():
    outcome = solve("1 2 3 4 0 6 7 5 8")
    data = json.loads(json.dumps(outcome.to_dict()))
    assert data["status"] == "SOLVED"
    assert data["status_code"] == 0
    assert data["moves"] == ["Down", "Right"]
    assert data["length"] == 2
    for key in ("nodes_expanded", "nodes_generated", "planning_time", "max_frontier",
                "optimal", "message", "algorithm", "heuristic", "limit", "board", "goal"):
        assert key in data
    assert outcome.boards()[-1] == EIGHT_GOAL
    assert len(outcome.boards()) == 3


def test_compare_runs_every_algorithm_and_informed_ones_per_heuristic(table):
    board = tuple(boards_by_depth(EIGHT_GOAL)[14][3])
    outcomes = compare(board)
    runs = [(o.algorithm, o.heuristic) for o in outcomes]
    assert runs == [
        ("astar", "misplaced"), ("astar", "manhattan"), ("astar", "linear_conflict"),
        ("idastar", "misplaced"), ("idastar", "manhattan"), ("idastar", "linear_conflict"),
        ("bfs", ""), ("bidirectional_bfs", ""), ("iddfs", ""), ("dfs", ""),
        ("uniform_cost", ""),
    ]
    for outcome in outcomes:
        assert outcome.status is PuzzleStatus.SOLVED
        assert replay(board, outcome.moves) == EIGHT_GOAL
        if outcome.algorithm != "dfs":
            assert (outcome.length, outcome.optimal) == (14, True)


def test_compare_on_a_15_puzzle_reports_hopeless_runs_as_limit_reached():
    board = (5, 1, 2, 4, 9, 6, 3, 8, 13, 10, 7, 11, 14, 0, 15, 12)  # 10 moves from the goal
    budget = per_run_budget(timeout=30.0, max_nodes=20_000, max_expansions=3000)
    outcomes = compare(board, budget_per_run=budget,
                       algorithms=("astar", "bfs", "iddfs", "idastar"),
                       heuristics=("linear_conflict",))
    by_name = {o.algorithm: o for o in outcomes}
    assert by_name["astar"].length == by_name["idastar"].length == 10
    assert by_name["bfs"].status is PuzzleStatus.SOLVED
    hard = (15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 1, 2, 0)
    outcomes = compare(hard, budget_per_run=Budget(max_nodes=2000),
                       algorithms=("bfs", "iddfs", "bidirectional_bfs"))
    assert [(o.status, o.limit, o.nodes_expanded) for o in outcomes] == [
        (PuzzleStatus.LIMIT_REACHED, LimitKind.MAX_NODES, 2000)
    ] * 3


def test_a_one_move_solve_says_move_not_moves():
    assert solve("1 2 3 4 5 6 7 0 8", algorithm="bfs").message == "solved in 1 move (optimal)"
