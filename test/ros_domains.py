"""ROS domains claimed by lock files, so that tests running at once never see each other.

A pytest session takes one domain for all its nodes (conftest.py); a command-line scenario
that starts and stops the ros2 daemon takes one more of its own (ros_cli.py), because a
stopped daemon can leave its port (11511 + domain) in TIME_WAIT, and for the next minute
every verb in that domain then finds no daemon and falls back to a fresh direct node. The
signal matrix, run in a process of its own, takes one too.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from pathlib import Path

# Pytest sessions take domains 1..40, scenarios 41..101: all within 0..101, whose DDS ports
# (7400 + 250 * domain and up) lie below Linux's ephemeral port range, where a port the
# operating system hands out at random could otherwise take a participant's port.
SESSION_DOMAINS = range(1, 41)
SCENARIO_DOMAINS = range(41, 102)
_LOCKS: list[int] = []


def claim_domain(domains: range) -> int:
    """Claim a domain of `domains` that no other process on this machine holds.

    The lock is held until this process exits (the descriptor stays open), so the domain is
    never handed out twice while this process may still have nodes or a daemon in it.
    """
    start = os.getpid() % len(domains)
    for step in range(len(domains)):
        domain = domains[(start + step) % len(domains)]
        path = Path(tempfile.gettempdir()) / f"grid_planner_ros_domain_{domain}.lock"
        lock = os.open(path, os.O_CREAT | os.O_WRONLY, 0o666)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            continue
        _LOCKS.append(lock)
        return domain
    raise RuntimeError(f"all ROS domains {domains.start}..{domains.stop - 1} are held by "
                       "other processes")
