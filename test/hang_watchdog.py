"""A pytest plugin that ends a test process stuck where pytest-timeout cannot reach it.

pytest-timeout stops a test from a signal handler, which is Python code: a thread blocked inside
a library while it holds the interpreter's lock (rclpy creating a publisher in a deadlocked
Fast DDS participant, say) keeps that handler from ever running, and the run hangs until CI
stops it. faulthandler's watchdog is a thread of plain C: once a test's set-up, call or teardown
has run well past `--timeout`, it prints every thread's stack and ends the process with exit
code 1.
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
    """Seconds after a phase of a test begins at which the watchdog ends the process."""
    return timeout * (1.0 + MARGIN_FRACTION) + MARGIN_S


def pytest_configure(config: pytest.Config) -> None:
    """Keep a descriptor of the uncaptured stderr."""
    config.stash[STDERR_KEY] = os.dup(sys.__stderr__.fileno())


def pytest_unconfigure(config: pytest.Config) -> None:
    os.close(config.stash[STDERR_KEY])


def _watched(item: pytest.Item) -> Iterator[None]:
    """Arm the watchdog over one phase of `item`, as pytest-timeout times each phase, when
    `--timeout` is set."""
    timeout = item.config.getoption("timeout", None)
    if timeout:
        faulthandler.dump_traceback_later(
            hang_limit(float(timeout)), exit=True, file=item.config.stash[STDERR_KEY]
        )
    try:
        yield
    finally:
        if timeout:
            faulthandler.cancel_dump_traceback_later()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    yield from _watched(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    yield from _watched(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield from _watched(item)
