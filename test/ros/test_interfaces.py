"""The generated service types import, carry SPEC.md's constants and survive serialisation."""

from __future__ import annotations

from grid_planner_interfaces.srv import ComputePath, SolvePuzzle
from rclpy.serialization import deserialize_message, serialize_message


def test_compute_path_codes_match_spec() -> None:
    codes = {
        name: getattr(ComputePath.Response, name)
        for name in (
            "NONE", "UNKNOWN", "INVALID_PLANNER", "TF_ERROR", "START_OUTSIDE_MAP",
            "GOAL_OUTSIDE_MAP", "START_OCCUPIED", "GOAL_OCCUPIED", "TIMEOUT", "NO_VALID_PATH",
            "NO_MAP", "NO_START", "INVALID_POSE",
        )
    }
    assert codes == {
        "NONE": 0, "UNKNOWN": 200, "INVALID_PLANNER": 201, "TF_ERROR": 202,
        "START_OUTSIDE_MAP": 203, "GOAL_OUTSIDE_MAP": 204, "START_OCCUPIED": 205,
        "GOAL_OCCUPIED": 206, "TIMEOUT": 207, "NO_VALID_PATH": 208, "NO_MAP": 209,
        "NO_START": 210, "INVALID_POSE": 211,
    }


def test_compute_path_tolerance_defaults_to_negative() -> None:
    request = ComputePath.Request()
    assert request.tolerance == -1.0
    assert request.use_start is False
    assert request.algorithm == ""


def test_solve_puzzle_status_codes_match_spec() -> None:
    response = SolvePuzzle.Response
    assert (
        response.SOLVED, response.UNSOLVABLE, response.INVALID_BOARD,
        response.INVALID_REQUEST, response.LIMIT_REACHED,
    ) == (0, 1, 2, 3, 4)


def test_solve_puzzle_request_round_trips_through_serialisation() -> None:
    request = SolvePuzzle.Request(
        board=[8, 6, 7, 2, 5, 4, 3, 0, 1], goal=[], algorithm="idastar",
        heuristic="linear_conflict", max_depth=40, timeout=2.5,
    )
    decoded = deserialize_message(serialize_message(request), SolvePuzzle.Request)
    assert list(decoded.board) == [8, 6, 7, 2, 5, 4, 3, 0, 1]
    assert (decoded.algorithm, decoded.heuristic, decoded.max_depth, decoded.timeout) == (
        "idastar", "linear_conflict", 40, 2.5,
    )


def test_compute_path_response_round_trips_through_serialisation() -> None:
    response = ComputePath.Response(error_code=ComputePath.Response.NO_VALID_PATH)
    response.error_msg = "no path"
    response.path_length = 3.25
    response.nodes_expanded = 12345678901
    response.planning_time.nanosec = 5_000_000
    response.path.header.frame_id = "map"
    decoded = deserialize_message(serialize_message(response), ComputePath.Response)
    assert (decoded.error_code, decoded.error_msg, decoded.path_length) == (208, "no path", 3.25)
    assert decoded.nodes_expanded == 12345678901
    assert decoded.planning_time.nanosec == 5_000_000
    assert decoded.path.header.frame_id == "map"
