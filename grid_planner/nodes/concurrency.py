"""Admission control for service requests: a few run, a few wait, the rest are refused at once."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

REPORT_INTERVAL_S = 1.0  # refusals are logged in one line at most this often
ABANDON_POLL_S = 0.05  # how often a waiting request that may be abandoned looks at its event
SHUTTING_DOWN = "the node is shutting down"


class RequestGate:
    """At most `running` requests run at once and `queued` more wait their turn; others are busy.

    A service callback takes its turn with `with gate.turn() as refusal:` — `refusal` is None
    when the request may run (after waiting, if it had to), else the reason it is refused at
    once: busy (every running slot and queue place is taken) or the reason `close()` was given
    (shutting down, inactive; requests still waiting are refused too). Nothing is dropped
    silently and the memory of a request storm stays bounded: the requests the node holds are
    at most `running + queued`, and each holds one executor thread (`threads`).
    """

    def __init__(self, running: int, queued: int, limit_names: str) -> None:
        if running < 1 or queued < 0:
            raise ValueError(f"need running >= 1 and queued >= 0, got {running} and {queued}")
        self._max_running = running
        self._max_queued = queued
        self._limit_names = limit_names
        self._running = 0
        self._queued = 0
        self._closed: str | None = None
        self._condition = threading.Condition()
        self._refused = 0
        self._reported_at = float("-inf")

    @property
    def threads(self) -> int:
        """Executor threads the gate's requests may hold at once."""
        return self._max_running + self._max_queued

    @property
    def load(self) -> tuple[int, int]:
        """(running, waiting) requests now."""
        with self._condition:
            return self._running, self._queued

    @contextmanager
    def turn(self, abandon: threading.Event | None = None) -> Iterator[str | None]:
        """Wait for a running slot; yields None once running, else the refusal reason.

        A request whose `abandon` event is set while it waits (an action goal cancelled in
        the queue) leaves the queue within ABANDON_POLL_S and is refused.
        """
        refusal = self._enter(abandon)
        try:
            yield refusal
        finally:
            if refusal is None:
                with self._condition:
                    self._running -= 1
                    self._condition.notify_all()

    def refusal_report(self) -> str | None:
        """One log line on the refusals since the last one, at most every REPORT_INTERVAL_S.

        A storm of refused requests then costs one log call a second, not one a request.
        """
        now = time.monotonic()
        with self._condition:
            if self._refused == 0 or now - self._reported_at < REPORT_INTERVAL_S:
                return None
            refused, self._refused, self._reported_at = self._refused, 0, now
            running, queued = self._running, self._queued
        return (
            f"refused {refused} request(s) since the last report: {running} running and "
            f"{queued} waiting requests, the limits of {self._limit_names}"
        )

    def close(self, reason: str = SHUTTING_DOWN) -> None:
        """Refuse every request from now on with `reason`, those waiting included."""
        with self._condition:
            self._closed = reason
            self._condition.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Whether no request runs or waits any more within `timeout` seconds (after `close`,
        the running ones end once their work is cancelled)."""
        with self._condition:
            return self._condition.wait_for(
                lambda: self._running == 0 and self._queued == 0, timeout
            )

    def _enter(self, abandon: threading.Event | None) -> str | None:
        with self._condition:
            if self._closed is not None:
                return self._closed
            if self._running >= self._max_running:
                if self._queued >= self._max_queued:
                    self._refused += 1
                    return (
                        f"busy: {self._running} running and {self._queued} waiting requests, "
                        f"the limits of {self._limit_names}; try again later"
                    )
                self._queued += 1
                try:
                    while not self._condition.wait_for(
                        lambda: self._closed is not None or self._running < self._max_running,
                        None if abandon is None else ABANDON_POLL_S,
                    ):
                        if abandon.is_set():
                            return "cancelled while waiting for a running slot"
                finally:
                    self._queued -= 1
                    self._condition.notify_all()
                if self._closed is not None:
                    return self._closed
            self._running += 1
            return None
