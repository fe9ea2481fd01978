"""The Fast DDS profile the tests run with, shipped for users (config/fastdds_services.xml): a
reply waits the profile's time, not Fast DDS's 100 ms, for the client's reply reader to match."""

from __future__ import annotations

import os
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from grid_planner_interfaces.srv import SolvePuzzle
from rclpy.qos import DurabilityPolicy, QoSProfile
from ros_harness import ros_client, wait_until
from shared_data import SERVICE_PROFILE

FAST_DDS_DEFAULT_WAIT_S = 0.1


def profile_wait_s(path: Path) -> float:
    """The max_blocking_time of the "service" data writer profile in `path`, in seconds."""
    names = {"dds": "http://www.eprosima.com/XMLSchemas/fastRTPS_Profiles"}
    writer = ElementTree.parse(path).getroot().find(
        "dds:profiles/dds:data_writer[@profile_name='service']", names)
    wait = writer.find("dds:qos/dds:reliability/dds:max_blocking_time", names)
    return int(wait.find("dds:sec", names).text) + int(wait.find("dds:nanosec", names).text) / 1e9


def test_the_profile_waits_longer_than_fast_dds_and_less_than_the_shutdown_grace() -> None:
    assert FAST_DDS_DEFAULT_WAIT_S < profile_wait_s(SERVICE_PROFILE) < 4.0


def test_a_reply_waits_the_profiles_time_for_a_reader_that_never_matches() -> None:
    """One executor thread serves both requests, so the second is taken only when the reply to
    the first has given up: after the profile's wait (0.1 s without the profile)."""
    used = Path(os.environ["FASTRTPS_DEFAULT_PROFILES_FILE"])
    if not used.is_file() or used.read_bytes() != SERVICE_PROFILE.read_bytes():
        pytest.skip("FASTRTPS_DEFAULT_PROFILES_FILE names another profile in this environment")
    expected = profile_wait_s(SERVICE_PROFILE)
    taken: list[float] = []

    def answer(request, response):
        taken.append(time.monotonic())
        return response

    with ros_client("dds_profile") as client:
        node = client.node
        node.create_service(SolvePuzzle, "dds_probe", answer)
        matched = node.create_client(SolvePuzzle, "dds_probe")
        # Its reply reader asks for TRANSIENT_LOCAL, which a service's VOLATILE reply writer
        # never offers: the request arrives, the client stays, the reply can never be sent.
        unmatched = node.create_client(
            SolvePuzzle, "dds_probe",
            qos_profile=QoSProfile(depth=10, durability=DurabilityPolicy.TRANSIENT_LOCAL),
        )
        assert matched.wait_for_service(timeout_sec=30.0)
        lost = unmatched.call_async(SolvePuzzle.Request())
        wait_until(lambda: len(taken) == 1, 30.0, "the first request")
        answered = matched.call_async(SolvePuzzle.Request())
        wait_until(answered.done, 30.0, "the reply to the second request")
        waited = taken[1] - taken[0]
        print(f"the first reply gave up after {waited:.2f} s (profile: {expected} s)")
        assert waited >= expected - 0.05
        assert not lost.done()
