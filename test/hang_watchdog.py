"""A pytest plugin that ends a test process stuck where pytest-timeout cannot reach it.

pytest-timeout stops a test from a signal handler, which is Python code: a thread blocked inside
a library while it holds the interpreter's lock (rclpy creating a publisher in a deadlocked
Fast DDS participant, say) keeps that handler from ever running, and the run hangs until CI
stops it. faulthandler's watchdog is a thread of plain C: once a test (set-up, call and
teardown, as pytest-timeout counts) has run well past its timeout, the watchdog prints every
thread's stack and ends the process with exit code 1.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from collections.abc import Iterator

import pytest

# How much longer than pytest-timeout's limit the watchdog waits: a test pytest-timeout can
# stop ends with pytest-timeout's report, as before.
MARGIN_FRACTION = 0.1
MARGIN_S = 5.0
# Where the stacks go: stderr as it was before pytest captured it (the capture's file is gone
# once the process ends).
STDERR_KEY = pytest.StashKey[int]()


def hang_limit(timeout: float) -> float:
    """Seconds after a test begins at which the watchdog ends the process."""
    return timeout * (1.0 + MARGIN_FRACTION) + MARGIN_S


def timeout_of(item: pytest.Item) -> float:
    """pytest-timeout's limit for `item`: its `timeout` marker, else `--timeout`; 0 for none."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout")
        if value is not None:
            return float(value)
    return float(item.config.getoption("timeout", None) or 0.0)


def pytest_configure(config: pytest.Config) -> None:
    """Keep a descriptor of the uncaptured stderr."""
    config.stash[STDERR_KEY] = os.dup(sys.__stderr__.fileno())


def pytest_unconfigure(config: pytest.Config) -> None:
    os.close(config.stash[STDERR_KEY])


def _faulthandler_timeout(config: pytest.Config) -> float:
    """pytest's `faulthandler_timeout`; 0 when unset or its plugin is off (`-p no:faulthandler`)."""
    try:
        return float(config.getini("faulthandler_timeout") or 0)
    except ValueError:
        return 0.0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """Arm the watchdog over the test, unless it has no timeout or pytest's own
    `faulthandler_timeout` (the same single faulthandler timer) is in use."""
    timeout = timeout_of(item)
    armed = timeout > 0 and not _faulthandler_timeout(item.config)
    if armed:
        faulthandler.dump_traceback_later(
            hang_limit(timeout), exit=True, file=item.config.stash[STDERR_KEY]
        )
    try:
        yield
    finally:
        if armed:
            faulthandler.cancel_dump_traceback_later()
