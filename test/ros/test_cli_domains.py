"""The command-line scenarios' own domains: a daemon of their own even when a port is taken.

A stopped daemon can leave its port in TIME_WAIT: `ros2 daemon start` then says "already
running" while none runs, and `ros2 daemon stop` says "not running". A socket bound to the port
without listening gives exactly those two answers, so the test takes a port that way.
"""

from __future__ import annotations

import socket

import pytest
import ros_cli
from ros_cli import own_daemon_domain, require_cli, ros2
from ros_domains import SCENARIO_DOMAINS, claim_domain


def test_a_scenario_whose_daemon_port_is_taken_moves_to_the_next_domain(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    require_cli()
    from ros2cli.daemon import get_address  # where the daemon of ROS_DOMAIN_ID listens

    taken, free = claim_domain(SCENARIO_DOMAINS), claim_domain(SCENARIO_DOMAINS)
    monkeypatch.setenv("ROS_DOMAIN_ID", str(taken))
    address = get_address()
    offered = iter((taken, free))
    monkeypatch.setattr(ros_cli, "claim_domain", lambda _domains: next(offered))
    with socket.socket() as blocker:
        blocker.bind(address)
        with own_daemon_domain() as domain:
            assert domain == free
            assert ros2("daemon", "status").stdout.strip() == "The daemon is running"
        monkeypatch.setenv("ROS_DOMAIN_ID", str(free))
        assert ros2("daemon", "status").stdout.strip() == "The daemon is not running"
        monkeypatch.setenv("ROS_DOMAIN_ID", str(taken))
        assert ros2("daemon", "start").stdout.strip() == "The daemon is already running"
