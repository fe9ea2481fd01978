"""A storm of 2,000 concurrent requests from several client processes against one node process:
every request is answered (success or BUSY), memory stays put, and the node keeps serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from ros_harness import rss_bytes, running
from shared_data import PROJECT_ROOT

pytestmark = pytest.mark.alone

TUTORIAL_MAP = PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml"
CLIENT = Path(__file__).with_name("storm_client.py")
NS = "/storm"
CLIENTS, REQUESTS = 4, 500  # 2,000 requests in all
# What each kind of request may end with: success (for the slow solves: their time limit) or
# BUSY (212 / 5), nothing else.
ALLOWED = {"compute_path:0", "compute_path:212", "plan_path:path", "plan_path:empty",
           "solve_8:0", "solve_8:5", "solve_15:0", "solve_15:5", "solve_slow:4", "solve_slow:5"}


def storm(clients: int, requests: int) -> Counter:
    """Run `clients` client processes sending `requests` each at once; the merged outcomes."""
    processes = [
        subprocess.Popen(
            [sys.executable, str(CLIENT), NS, str(requests)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, cwd=CLIENT.parent,
            env={**os.environ, "PYTHONPATH": str(CLIENT.parent.parent)},  # test/ helpers
        )
        for _ in range(clients)
    ]
    for process in processes:
        assert process.stdout.readline().strip() == "ready"
    for process in processes:  # all clients start sending together
        process.stdin.write("go\n")
        process.stdin.flush()
    outcomes: Counter = Counter()
    for process in processes:
        report = json.loads(process.stdout.readline())
        assert process.wait(60) == 0
        assert report["answered"] == report["sent"] == requests, report
        outcomes.update(report["outcomes"])
    return outcomes


def test_a_storm_of_2000_requests_is_answered_in_full_and_memory_stays_put(tmp_path) -> None:
    args = ["--map", str(TUTORIAL_MAP), "--namespace", NS.strip("/")]
    with running("bringup", args, tmp_path, "ready: bringup") as node:
        pid = node.process.pid
        at_ready = rss_bytes(pid)
        storm(1, 200)  # warm-up: executor threads, middleware pools and caches exist
        before = rss_bytes(pid)
        outcomes = storm(CLIENTS, REQUESTS)
        after = rss_bytes(pid)
        served = storm(1, 5)  # still serving: a calm round is answered in full, successfully
        assert node.process.poll() is None
    print(
        f"\nstorm: {CLIENTS} clients x {REQUESTS} requests: {dict(sorted(outcomes.items()))}\n"
        f"node RSS: {at_ready / 2**20:.1f} MB at ready, {before / 2**20:.1f} MB before the "
        f"storm, {after / 2**20:.1f} MB after ({(after - before) / before:+.1%})"
    )
    assert sum(outcomes.values()) == CLIENTS * REQUESTS
    assert set(outcomes) <= ALLOWED, outcomes
    assert outcomes["solve_slow:5"] > 0  # the storm went beyond the solve queue
    assert abs(after - before) <= 0.2 * before
    assert set(served) == {"compute_path:0", "plan_path:path", "solve_8:0", "solve_15:0",
                           "solve_slow:4"}, served
