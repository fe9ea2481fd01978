"""Prebuilt CDR: the NumPy-built bytes read back, through the middleware, as the same messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
from builtin_interfaces.msg import Duration, Time
from geometry_msgs.msg import PoseStamped
from grid_planner_interfaces.srv import ComputePath
from hypothesis import given, settings
from hypothesis import strategies as st
from nav_msgs.msg import Path
from rclpy.serialization import deserialize_message, serialize_message

from grid_planner.nodes.cdr import (
    CdrError,
    ComputePathAnswer,
    PathArrays,
    decode_compute_path_answer,
    decode_path,
    encode_compute_path_answer,
    encode_path,
)
from grid_planner.nodes.conversions import compute_path_response, path_message, planned_path

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)
frames = st.text(max_size=12)


@st.composite
def path_arrays(draw) -> PathArrays:
    count = draw(st.integers(0, 6))
    values = draw(st.lists(finite, min_size=7 * count, max_size=7 * count))
    doubles = np.array(values, dtype=float).reshape(count, 7)
    return PathArrays(draw(frames), draw(st.integers(-2**31, 2**31 - 1)),
                      draw(st.integers(0, 2**32 - 1)), doubles[:, :3], doubles[:, 3:])


def assert_same_path(decoded: PathArrays, expected: PathArrays) -> None:
    """Same values; strings end at a NUL on the wire, as rclpy's C conversion stores them."""
    assert (decoded.frame_id, decoded.stamp_sec, decoded.stamp_nanosec) == (
        expected.frame_id.split("\0")[0], expected.stamp_sec, expected.stamp_nanosec)
    assert np.array_equal(decoded.positions, expected.positions)
    assert np.array_equal(decoded.orientations, expected.orientations)


@settings(max_examples=150, deadline=None)
@given(path_arrays())
def test_encoded_path_reads_back_as_the_ordinary_message(path: PathArrays) -> None:
    ordinary = path_message(path)
    encoded = encode_path(path)
    reference = serialize_message(ordinary)
    assert len(encoded) == len(reference)
    assert deserialize_message(encoded, Path) == deserialize_message(reference, Path)
    assert_same_path(decode_path(reference), path)


@settings(max_examples=100, deadline=None)
@given(path_arrays(), st.integers(0, 2**16 - 1), st.text(max_size=40), finite,
       st.integers(0, 2**64 - 1), st.integers(0, 2**31 - 1), st.integers(0, 999_999_999))
def test_encoded_compute_path_answer_reads_back_as_the_ordinary_response(
    path, code, message, length, nodes, sec, nanosec
) -> None:
    answer = ComputePathAnswer(path, code, message, length, nodes, sec, nanosec)
    ordinary = compute_path_response(answer)
    encoded, reference = encode_compute_path_answer(answer), serialize_message(ordinary)
    assert len(encoded) == len(reference)
    assert deserialize_message(encoded, ComputePath.Response) == deserialize_message(
        reference, ComputePath.Response)
    decoded = decode_compute_path_answer(reference)
    assert_same_path(decoded.path, path)
    assert (decoded.error_code, decoded.error_msg, decoded.nodes_expanded) == (
        code, message.split("\0")[0], nodes)
    assert (decoded.planning_time_sec, decoded.planning_time_nanosec) == (sec, nanosec)
    assert decoded.path_length == length


def test_planned_path_bytes_match_a_path_built_pose_by_pose() -> None:
    points = np.array([[0.5, 0.5], [1.5, 0.5], [1.5, 1.5], [1.5, 2.5]])
    path = planned_path(points, "map", Time(sec=12, nanosec=34), final_yaw=0.7)
    expected = Path()
    expected.header.frame_id, expected.header.stamp = "map", Time(sec=12, nanosec=34)
    for (x, y), yaw in zip(points, [0.0, math.pi / 2, math.pi / 2, 0.7], strict=True):
        pose = PoseStamped(header=expected.header)
        pose.pose.position.x, pose.pose.position.y = x, y
        pose.pose.orientation.z, pose.pose.orientation.w = math.sin(yaw / 2), math.cos(yaw / 2)
        expected.poses.append(pose)
    decoded = deserialize_message(encode_path(path), Path)
    assert decoded.header == expected.header and len(decoded.poses) == 4
    for got, want in zip(decoded.poses, expected.poses, strict=True):
        assert got.header == want.header
        assert (got.pose.position.x, got.pose.position.y) == (want.pose.position.x,
                                                              want.pose.position.y)
        assert math.isclose(got.pose.orientation.z, want.pose.orientation.z, abs_tol=1e-12)
        assert math.isclose(got.pose.orientation.w, want.pose.orientation.w, abs_tol=1e-12)


@pytest.mark.parametrize("own", [0, 1, 2])
def test_decoding_refuses_poses_with_their_own_headers(own: int) -> None:
    path = Path()
    path.header.frame_id = "map"
    path.poses = [PoseStamped(header=path.header) for _ in range(3)]
    path.poses[own] = PoseStamped()
    path.poses[own].header.frame_id = "odom"
    with pytest.raises(CdrError, match="header of its own"):
        decode_path(serialize_message(path))


def test_decoded_strings_read_as_rclpy_reads_them() -> None:
    path = Path()
    path.header.frame_id = "map"
    data = bytearray(serialize_message(path))
    frame_at = 16  # encapsulation, sec, nanosec, length
    data[frame_at:frame_at + 3] = b"m\xffp"  # invalid UTF-8 in the frame id
    expected = deserialize_message(bytes(data), Path).header.frame_id
    assert decode_path(bytes(data)).frame_id == expected == "m\ufffdp"
    data[frame_at + 3] = ord("x")  # no closing NUL
    with pytest.raises(CdrError, match="closing NUL"):
        decode_path(bytes(data))


def test_decoding_refuses_truncated_and_big_endian_bytes() -> None:
    data = encode_path(planned_path(np.zeros((3, 2)), "map", Time(), None))
    with pytest.raises(CdrError, match="truncated"):
        decode_path(data[:-9])
    with pytest.raises(CdrError, match="not little-endian CDR"):
        decode_path(b"\x00\x00\x00\x00" + data[4:])


def test_compute_path_response_carries_every_field() -> None:
    path = planned_path(np.array([[0.5, 0.5]]), "map", Time(sec=1), 0.0)
    response = compute_path_response(ComputePathAnswer(path, 208, "no path", 0.0, 42, 3, 5))
    assert (response.error_code, response.error_msg) == (208, "no path")
    assert response.nodes_expanded == 42
    assert response.planning_time == Duration(sec=3, nanosec=5)
    assert len(response.path.poses) == 1 and response.path.header.frame_id == "map"
