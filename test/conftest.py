"""Shared by test/core (no ROS) and test/ros (DDS): ROS session isolation and the `ros` marker.

This folder is on `sys.path` for both (pytest puts a conftest's folder there), so the helpers
beside this file (`shared_data`, `ros_harness`, `grid_fixtures`, `puzzle_tables`) import the
same way from either, and so do `draw_maps` and `compile_kernels` from tools/. Every test
under test/ros carries the marker `ros`: `pytest -m "not ros"` (or `pytest test/core`) runs what
needs no ROS 2.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import hang_watchdog
import pytest
from ros_domains import SESSION_DOMAINS, claim_domain
from shared_data import SERVICE_PROFILE

ROS_TESTS = Path(__file__).resolve().parent / "ros"
# Set when this session (not the user) chose ROS_DOMAIN_ID: its xdist workers then choose
# domains of their own.
SESSION_DOMAIN_MARK = "GRID_PLANNER_SESSION_DOMAIN"
# tools/draw_maps.py draws the shipped maps and tools/compile_kernels.py keeps numba's cache
# current; the tests import them to check them.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))


def _isolate_ros_session() -> None:
    """Give this pytest session its own ROS_DOMAIN_ID so parallel runs never see each other,
    and each xdist worker one of its own: workers that shared the session's domain saw each
    other's root-namespace nodes (a bringup of one worker, shutting down, answered the other's
    solve_puzzle). A domain set before the session is kept, for every worker.

    Set before any test imports rclpy; node subprocesses inherit it.
    """
    claimed_by_session = os.environ.get(SESSION_DOMAIN_MARK) == "1"
    if "ROS_DOMAIN_ID" not in os.environ or (
        claimed_by_session and "PYTEST_XDIST_WORKER" in os.environ
    ):
        os.environ["ROS_DOMAIN_ID"] = str(claim_domain(SESSION_DOMAINS))
        os.environ[SESSION_DOMAIN_MARK] = "1"
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    # Replies wait up to 2 s for a new client's reply reader instead of Fast DDS's 100 ms (see
    # the profile): on a busy machine a reply is otherwise lost now and then.
    os.environ.setdefault("FASTRTPS_DEFAULT_PROFILES_FILE", str(SERVICE_PROFILE))
    if "ROS_LOG_DIR" not in os.environ:
        # One folder for the session's node logs (xdist workers and node subprocesses inherit
        # it), removed when the process that made it exits.
        logs = tempfile.mkdtemp(prefix="grid_planner_ros_log_")
        os.environ["ROS_LOG_DIR"] = logs
        atexit.register(shutil.rmtree, logs, ignore_errors=True)


_isolate_ros_session()


def pytest_configure(config: pytest.Config) -> None:
    """Register the `ros`, `kernel` and `alone` markers and the hang watchdog (a test process
    stuck past --timeout where pytest-timeout cannot reach it ends with every stack); a
    RuntimeWarning fails the test."""
    if not config.pluginmanager.is_registered(hang_watchdog):
        config.pluginmanager.register(hang_watchdog, "hang_watchdog")
    config.addinivalue_line("markers", "ros: needs ROS 2 (rclpy, messages, DDS); lives in test/ros")
    config.addinivalue_line(
        "markers",
        "kernel: runs the compiled kernels cheaply enough to run again as plain Python "
        "(make test repeats them with NUMBA_DISABLE_JIT=1)",
    )
    config.addinivalue_line(
        "markers",
        "alone: keeps every core busy (parallel nodes, compilers, a request storm) or holds a "
        "node to a limit of a second or less; make test runs these after the rest of test/ros, "
        "one at a time, so that no timed test shares the machine with a busy one",
    )
    # numpy's overflow / invalid-value warnings in the package's own code mark arithmetic a
    # test did not expect: the code must handle such values (as far-off points are clamped),
    # not warn and go on. (rclpy's RuntimeWarnings, such as a reply that timed out, stay
    # warnings: some tests provoke them.)
    config.addinivalue_line("filterwarnings", "error::RuntimeWarning:grid_planner")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test collected from test/ros with `ros`."""
    for item in items:
        if ROS_TESTS in item.path.parents:
            item.add_marker(pytest.mark.ros)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    """After a ROS test, collect garbage: the DDS participant of an rclpy context (threads,
    sockets, a part in every later discovery) lives on, shut down or not, while anything of the
    test still refers to the context, often a reference cycle only the collector frees;
    test_lifecycle_races alone left seven behind. Such a participant meets every node the later
    tests start and stop. The one stuck test process examined had seven participants alive,
    six of them left over, and Fast DDS had deadlocked one of them (signal_matrix.LEASE_S says
    how). About 70 ms a test."""
    yield
    if item.get_closest_marker("ros") is not None:
        gc.collect()


@pytest.fixture
def tiny_switch_interval():
    """Python switches threads every microsecond during the test, which widens a race between
    threads from a few instructions to one a test meets within seconds."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)
