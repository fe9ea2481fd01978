"""Prebuilt responses: rclpy sends our CDR as the C message, and falls back when it cannot."""

from __future__ import annotations

import numpy as np
import pytest
from builtin_interfaces.msg import Time
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import Path
from nav_msgs.srv import GetPlan
from rclpy.serialization import deserialize_message, serialize_message

from grid_planner.nodes.cdr import ComputePathAnswer, decode_compute_path_answer, decode_path
from grid_planner.nodes.conversions import compute_path_response, path_message, planned_path
from grid_planner.nodes.prebuilt import MessageWire, fallback_count, probe, raw_response_type


def long_path(count: int = 4000):
    steps = np.where(np.arange(count)[:, None] % 2 == 0, [[0.05, 0.0]], [[0.0, 0.05]])
    return planned_path(np.cumsum(steps, axis=0), "map", Time(sec=17, nanosec=5), final_yaw=1.0)


@pytest.fixture
def wire() -> MessageWire:
    """The process's wire; the test fails if any answer had to go out the slow way."""
    wire = probe()
    assert wire.prebuilt, wire.description
    before = fallback_count()
    yield wire
    assert fallback_count() == before, "a prebuilt answer was sent the slow way"


def test_prebuilt_get_plan_response_is_sent_as_the_ordinary_one(wire) -> None:
    path = long_path()
    response = wire.get_plan_response(path)
    assert isinstance(response, GetPlan.Response)
    sent = deserialize_message(serialize_message(response), GetPlan.Response)
    assert sent == GetPlan.Response(plan=path_message(path))


def test_prebuilt_compute_path_response_is_sent_as_the_ordinary_one(wire) -> None:
    answer = ComputePathAnswer(long_path(50), 0, "", 2.45, 1234, 0, 5_000_000)
    response = wire.compute_path_response(answer)
    assert isinstance(response, ComputePath.Response)
    sent = deserialize_message(serialize_message(response), ComputePath.Response)
    assert sent == compute_path_response(answer)


@pytest.mark.parametrize("damage", ["not bytes", "cut inside the pose count"])
def test_a_refused_prebuilt_answer_is_sent_the_ordinary_way(damage) -> None:
    wire = probe()
    path = long_path(10)
    response = wire.get_plan_response(path)
    if damage == "not bytes":
        response._prebuilt_cdr = None
    else:  # the middleware reports an error for this one, after filling the header
        response._prebuilt_cdr = response._prebuilt_cdr[:22]
    before = fallback_count()
    sent = deserialize_message(serialize_message(response), GetPlan.Response)
    assert sent == GetPlan.Response(plan=path_message(path))
    assert fallback_count() == before + 1


def test_plan_topic_gets_bytes_only_when_prebuilt(wire) -> None:
    path = long_path(20)
    assert deserialize_message(wire.plan(path), Path) == path_message(path)
    ordinary = MessageWire(None, "ordinary messages (test)")
    assert ordinary.plan(path) == path_message(path) and not ordinary.prebuilt
    assert type(ordinary.get_plan_response(path)) is GetPlan.Response
    answer = ComputePathAnswer(path, 208, "no path", 0.0, 9, 0, 1)
    assert ordinary.compute_path_response(answer) == compute_path_response(answer)


def test_raw_response_type_hands_the_client_bytes(wire) -> None:
    path = long_path(30)
    raw_get_plan = raw_response_type(GetPlan)
    assert raw_get_plan.Request is GetPlan.Request
    data = serialize_message(wire.get_plan_response(path))
    received = deserialize_message(data, raw_get_plan.Response)
    assert isinstance(received, bytes)
    decoded = decode_path(received)
    assert np.array_equal(decoded.positions, path.positions)
    assert np.array_equal(decoded.orientations, path.orientations)
    raw_compute = raw_response_type(ComputePath)
    answer = ComputePathAnswer(path, 0, "", 1.45, 30, 0, 7)
    data = serialize_message(wire.compute_path_response(answer))
    received = deserialize_message(data, raw_compute.Response)
    assert decode_compute_path_answer(received).nodes_expanded == 30

