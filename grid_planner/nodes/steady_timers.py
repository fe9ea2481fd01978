"""Timers on the steady clock: polls and periods that must keep their pace in wall time
whether simulated time runs, pauses, runs fast or jumps back (`use_sim_time`)."""

from __future__ import annotations

from collections.abc import Callable

from rclpy.clock import Clock, ClockType
from rclpy.node import Node
from rclpy.timer import Timer


def steady_timer(node: Node, period_s: float, callback: Callable[[], None],
                 callback_group: object = None) -> Timer:
    """A timer of `node` that fires every `period_s` seconds of steady (wall) time."""
    return node.create_timer(period_s, callback, callback_group=callback_group,
                             clock=Clock(clock_type=ClockType.STEADY_TIME))
