"""Table builds that run on their own: one thread a table, progress, a deadline, cancellation.

A heuristic table takes from a fraction of a second (the exact 3x3 table) to tens of seconds
(a cold 15-puzzle pattern database) to build. Each build is a `TableBuild` running in a thread
of its own, so no lock is held while it runs: a solve that needs another table, or none, never
waits for it, and every solve that needs the same table waits for the same build (`wait`),
each within its own `Setup` (a timeout and a cancel event). The build checks its own deadline
and cancel flag between chunks of its work (`check`), so `cancel_builds` (a node shutting
down, a Ctrl-C) ends it within a fraction of a second. Its progress (fraction done, ETA) goes
to the listeners (`add_listener`): the node logs it, the CLI draws a progress bar.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from ...search.result import LimitKind

_log = logging.getLogger(__name__)

# Listeners hear of a build's progress at most this often (and always at its start and end).
REPORT_INTERVAL_S = 0.1
# How often a waiter looks at its own cancel event.
WAIT_POLL_S = 0.02


class SetupStoppedError(Exception):
    """A build or a wait for one ended early; `limit` says why (DEADLINE or CANCELLED)."""

    def __init__(self, message: str, limit: LimitKind) -> None:
        super().__init__(message)
        self.limit = limit


@dataclass(frozen=True)
class Setup:
    """What bounds the wait for a table: seconds (None: no limit) and a cancel event."""

    timeout: float | None = None
    cancel: threading.Event | None = None


class TableBuild:
    """One table being built: `work(build)` runs in a thread and returns the table.

    `work` calls `check()` between chunks (it raises SetupStoppedError once the build is cancelled
    or past its deadline) and `report(fraction)` as it goes.
    """

    def __init__(
        self, title: str, work: Callable[[TableBuild], Any], timeout: float | None
    ) -> None:
        self.title = title
        self.timeout = timeout
        self.started = time.monotonic()
        self.fraction = 0.0
        self.finished = False
        self._work = work
        self._cancelled = threading.Event()
        self._done = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None
        self._reported_at = float("-inf")

    @property
    def elapsed(self) -> float:
        """Seconds since the build started."""
        return time.monotonic() - self.started

    @property
    def eta(self) -> float | None:
        """Seconds left at the current rate (None until there is a rate)."""
        if self.fraction <= 0.0 or self.finished:
            return None
        return self.elapsed * (1.0 - self.fraction) / self.fraction

    def check(self) -> None:
        """Raise SetupStoppedError if the build was cancelled or has run past its timeout."""
        if self._cancelled.is_set():
            raise SetupStoppedError(f"building {self.title} was cancelled", LimitKind.CANCELLED)
        if self.timeout is not None and self.elapsed > self.timeout:
            raise SetupStoppedError(
                f"building {self.title} stopped at its setup timeout of {self.timeout:g} s "
                f"({self.fraction:.0%} done)", LimitKind.DEADLINE,
            )

    def report(self, fraction: float) -> None:
        """Record progress (0..1) and tell the listeners, at most every REPORT_INTERVAL_S."""
        self.fraction = min(1.0, max(self.fraction, fraction))
        now = time.monotonic()
        if now - self._reported_at >= REPORT_INTERVAL_S:
            self._reported_at = now
            _notify(self)

    def cancel(self) -> None:
        """Ask the build to stop at its next check."""
        self._cancelled.set()

    def wait(self, setup: Setup | None = None) -> Any:
        """The table, once built; raises SetupStoppedError if the build stopped early or the wait
        outlasted `setup.timeout` or `setup.cancel` was set, and re-raises a build's error."""
        setup = setup or Setup()
        waited_until = None if setup.timeout is None else time.monotonic() + setup.timeout
        builds_until = None if self.timeout is None else self.started + self.timeout
        if None not in (waited_until, builds_until) and builds_until <= waited_until:
            waited_until = None  # the build stops first, and says so itself
        while not self._done.wait(WAIT_POLL_S):
            if setup.cancel is not None and setup.cancel.is_set():
                raise SetupStoppedError(
                    f"cancelled while waiting for {self.title} ({self.fraction:.0%} built)",
                    LimitKind.CANCELLED,
                )
            if waited_until is not None and time.monotonic() > waited_until:
                raise SetupStoppedError(
                    f"{self.title} was not ready within the setup timeout of "
                    f"{setup.timeout:g} s ({self.fraction:.0%} built)", LimitKind.DEADLINE,
                )
        if self._error is not None:
            raise self._error
        return self._value

    def _run(self) -> None:
        _notify(self)
        try:
            self._value = self._work(self)
        except BaseException as error:  # handed to every waiter
            self._error = error
        finally:
            self.finished = True
            with _lock:
                if _running.get(self._key) is self:
                    del _running[self._key]
            _notify(self)
            self._done.set()

    def _start(self, key: Hashable) -> None:
        self._key = key
        threading.Thread(target=self._run, name=f"build {self.title}", daemon=True).start()


_lock = threading.Lock()
_running: dict[Hashable, TableBuild] = {}
_listeners: list[Callable[[TableBuild], None]] = []


def start_build(
    key: Hashable, title: str, work: Callable[[TableBuild], Any], timeout: float | None
) -> TableBuild:
    """The build of `key` already running, else a new one of `work` (its own `timeout`)."""
    with _lock:
        build = _running.get(key)
        if build is None:
            build = _running[key] = TableBuild(title, work, timeout)
            build._start(key)
    return build


def running_builds() -> list[TableBuild]:
    """The builds running now."""
    with _lock:
        return list(_running.values())


def cancel_builds() -> None:
    """Cancel every running build (shutdown): each stops at its next check."""
    for build in running_builds():
        build.cancel()


def add_listener(listener: Callable[[TableBuild], None]) -> None:
    """Call `listener(build)` when a build starts, makes progress and ends."""
    _listeners.append(listener)


def remove_listener(listener: Callable[[TableBuild], None]) -> None:
    """Stop calling `listener`."""
    if listener in _listeners:
        _listeners.remove(listener)


def _notify(build: TableBuild) -> None:
    for listener in list(_listeners):
        try:
            listener(build)
        except Exception as error:  # a faulty listener must not stop a build
            _log.warning("a table build listener failed: %r", error)
