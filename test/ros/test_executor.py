"""The nodes' executor keeps spinning while callbacks destroy entities it is waiting on.

Lifecycle transitions destroy the bond's publisher and subscription from a pool thread while
the spinning thread builds its wait set; rclpy then raises InvalidHandle out of the wait. The
race is a few instructions wide, so the test widens it: Python switches threads every
microsecond and a thread creates and destroys publishers (each with its QoS event handler, a
waitable) as fast as it can.
"""

from __future__ import annotations

import sys
import threading
import time

import pytest
import rclpy
from std_msgs.msg import String

from grid_planner.nodes.executor import NodeExecutor

pytestmark = pytest.mark.alone  # churns at full speed on a 1 us switch interval for 3 s

CHURN_S = 3.0


@pytest.fixture
def tiny_switch_interval():
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_entities_destroyed_while_the_executor_waits_do_not_end_the_spin(tiny_switch_interval):
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    node = rclpy.create_node("executor_churn")
    stop = threading.Event()
    ticks: list[float] = []
    churned = 0

    def churn() -> None:
        nonlocal churned
        while not stop.is_set():
            publishers = [node.create_publisher(String, f"churn_{i}", 10) for i in range(5)]
            for publisher in publishers:
                node.destroy_publisher(publisher)
            churned += 1

    executor = NodeExecutor(2, stop.is_set)
    executor.add_node(node)
    node.create_timer(0.001, lambda: ticks.append(time.monotonic()))
    churner = threading.Thread(target=churn)
    failure: list[BaseException] = []

    def spin() -> None:
        try:
            executor.spin_until_stopped()
        except BaseException as error:
            failure.append(error)

    spinner = threading.Thread(target=spin)
    try:
        churner.start()
        spinner.start()
        spinner.join(CHURN_S)
        alive = spinner.is_alive()
    finally:
        stop.set()
        executor.wake()
        spinner.join(10.0)
        churner.join(10.0)
        executor.drain(5.0)
        executor.shutdown(timeout_sec=0.0)
        node.destroy_node()
        if owns_context:
            rclpy.shutdown()
    assert not failure, f"the spin ended after {churned} churns: {failure[0]!r}"
    assert alive
    assert churned > 100
    assert ticks and ticks[-1] > ticks[0] + 0.8 * CHURN_S  # callbacks ran to the end
