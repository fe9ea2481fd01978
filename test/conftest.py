"""Test-session isolation for ROS: a unique DDS domain, localhost discovery, private log folder."""

from __future__ import annotations

import os
import tempfile


def _isolate_ros_session() -> None:
    """Give this pytest session its own ROS_DOMAIN_ID so parallel runs never see each other.

    Set before any test imports rclpy; node subprocesses inherit it. Domains 1..100 are all
    valid for localhost-only discovery.
    """
    os.environ.setdefault("ROS_DOMAIN_ID", str(1 + os.getpid() % 100))
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ.setdefault("ROS_LOG_DIR", tempfile.mkdtemp(prefix="grid_planner_ros_log_"))


_isolate_ros_session()
