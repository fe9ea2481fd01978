"""puzzle_node under load and bad input, over real DDS: long solves never starve short ones,
requests beyond the limits are answered BUSY at once, oversized boards are refused, and a good
request is answered afterwards."""

from __future__ import annotations

from collections import Counter

import pytest
from grid_planner_interfaces.srv import SolvePuzzle
from ros_harness import cpu_seconds, ros_client, running, wait_until
from shared_data import korf_instances

from grid_planner.nodes.qos import SERVICE_QOS

Response = SolvePuzzle.Response
EASY_15 = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0, 15]
EASY_8 = [1, 2, 3, 4, 0, 6, 7, 5, 8]
BUSY_MESSAGE = (
    "busy: 2 running and 1 waiting requests, the limits of max_concurrent_solves, "
    "max_queued_solves; try again later"
)


@pytest.fixture(scope="module")
def puzzle(tmp_path_factory):
    """A puzzle_node with two running slots and one queue place a lane, and a client."""
    log_dir = tmp_path_factory.mktemp("puzzle_hard_to_break")
    args = ["--ros-args", "-r", "__ns:=/phb", "-p", "max_queued_solves:=1",
            "-p", "max_nodes:=1000000000"]
    with running("puzzle_node", args, log_dir) as proc, ros_client("puzzle_hb") as client:
        service = client.node.create_client(SolvePuzzle, "/phb/solve_puzzle",
                                            qos_profile=SERVICE_QOS)
        client.call(service, SolvePuzzle.Request(board=EASY_8))  # matched both ways
        yield client, service, proc


def assert_good_solve_answered(puzzle) -> None:
    client, service, _ = puzzle
    answer = client.call(service, SolvePuzzle.Request(board=EASY_8))
    assert (answer.status, answer.length) == (Response.SOLVED, 2)


def test_long_solves_starve_neither_small_boards_nor_the_queue_limit(puzzle) -> None:
    client, service, proc = puzzle
    before = cpu_seconds(proc.process.pid)
    # Instance 60 takes IDA* with Manhattan distance 3.3 billion nodes: it runs into its timeout.
    long_request = SolvePuzzle.Request(
        board=korf_instances()[60][0], goal=list(range(16)), algorithm="idastar",
        heuristic="manhattan", timeout=8.0,
    )
    long_solves = [service.call_async(long_request) for _ in range(2)]
    wait_until(lambda: cpu_seconds(proc.process.pid) - before > 1.0,
               what="both long solves to run")
    short = client.call(service, SolvePuzzle.Request(board=EASY_8))
    assert (short.status, short.length) == (Response.SOLVED, 2)
    assert not any(future.done() for future in long_solves)  # the 8-puzzle overtook them
    beyond = [service.call_async(SolvePuzzle.Request(board=EASY_15)) for _ in range(5)]
    wait_until(lambda: sum(f.done() for f in beyond) >= 4, what="four busy answers")
    assert not any(future.done() for future in long_solves)
    wait_until(lambda: all(f.done() for f in [*long_solves, *beyond]), timeout=60.0,
               what="every solve answered")
    statuses = Counter(future.result().status for future in beyond)
    assert statuses == {Response.BUSY: 4, Response.SOLVED: 1}, statuses
    busy = {f.result().message for f in beyond if f.result().status == Response.BUSY}
    assert busy == {BUSY_MESSAGE}
    assert all(not f.result().success for f in beyond if f.result().status == Response.BUSY)
    assert [f.result().status for f in long_solves] == [Response.LIMIT_REACHED] * 2
    assert "refused 1 request(s) since the last report" in proc.output()
    assert_good_solve_answered(puzzle)


def test_a_board_beyond_max_board_side_is_refused(puzzle) -> None:
    client, service, _ = puzzle
    board = [*range(1, 49), 0]  # 7 x 7
    answer = client.call(service, SolvePuzzle.Request(board=board))
    assert (answer.status, answer.success) == (Response.INVALID_BOARD, False)
    assert answer.message == (
        "board has 49 tiles, more than the 36 of the largest side accepted (max_board_side 6)"
    )
    assert_good_solve_answered(puzzle)
