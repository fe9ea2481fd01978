"""RequestGate: a bounded number of requests run, a bounded number wait, the rest are refused."""

from __future__ import annotations

import threading

import pytest
from ros_harness import wait_until

from grid_planner.nodes import concurrency
from grid_planner.nodes.concurrency import RequestGate

LIMITS = "max_concurrent_plans, max_queued_plans"


class Holder:
    """A thread that takes a turn at the gate and keeps it until released."""

    def __init__(self, gate: RequestGate) -> None:
        self.refusal: str | None = "not yet"
        self.entered = threading.Event()
        self.release = threading.Event()
        self.thread = threading.Thread(target=self._hold, args=(gate,))
        self.thread.start()

    def _hold(self, gate: RequestGate) -> None:
        with gate.turn() as refusal:
            self.refusal = refusal
            self.entered.set()
            if refusal is None:
                self.release.wait(30.0)

    def finish(self) -> None:
        self.release.set()
        self.thread.join(30.0)


def wait_for_load(gate: RequestGate, load: tuple[int, int]) -> None:
    """Wait until the gate has `load` (running, waiting) requests."""
    wait_until(lambda: gate.load == load, what=f"gate load {load}")


def test_gate_runs_its_limit_queues_its_limit_and_refuses_the_rest_at_once() -> None:
    gate = RequestGate(2, 1, LIMITS)
    running = [Holder(gate), Holder(gate)]
    for holder in running:
        assert holder.entered.wait(30.0) and holder.refusal is None
    waiting = Holder(gate)
    wait_for_load(gate, (2, 1))
    assert not waiting.entered.is_set()
    with gate.turn() as refusal:
        assert refusal == (
            "busy: 2 running and 1 waiting requests, the limits of max_concurrent_plans, "
            "max_queued_plans; try again later"
        )
    running[0].finish()
    assert waiting.entered.wait(30.0) and waiting.refusal is None
    for holder in (running[1], waiting):
        holder.finish()
    assert gate.load == (0, 0)
    assert gate.threads == 3


def test_closing_refuses_waiting_and_new_requests() -> None:
    gate = RequestGate(1, 4, LIMITS)
    running = Holder(gate)
    assert running.entered.wait(30.0)
    waiting = Holder(gate)
    wait_for_load(gate, (1, 1))
    gate.close()
    assert waiting.entered.wait(30.0)
    assert waiting.refusal == "the node is shutting down"
    with gate.turn() as refusal:
        assert refusal == "the node is shutting down"
    running.finish()
    waiting.finish()
    assert gate.load == (0, 0)


def test_refusals_are_reported_once_per_interval(monkeypatch) -> None:
    now = [100.0]
    monkeypatch.setattr(concurrency.time, "monotonic", lambda: now[0])
    gate = RequestGate(1, 0, LIMITS)
    running = Holder(gate)
    assert running.entered.wait(30.0)
    assert gate.refusal_report() is None
    for _ in range(3):
        with gate.turn() as refusal:
            assert refusal.startswith("busy:")
    assert gate.refusal_report() == (
        "refused 3 request(s) since the last report: 1 running and 0 waiting requests, the "
        "limits of max_concurrent_plans, max_queued_plans"
    )
    with gate.turn():
        pass
    assert gate.refusal_report() is None  # within the interval
    now[0] += concurrency.REPORT_INTERVAL_S
    assert gate.refusal_report().startswith("refused 1 request(s)")
    running.finish()


def test_gate_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="need running >= 1 and queued >= 0"):
        RequestGate(0, 1, LIMITS)
