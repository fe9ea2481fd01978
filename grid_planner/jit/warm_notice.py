"""A kernels' warm-up with a word to whoever waits, when it is a real compile.

Loading the compiled kernels from numba's cache takes about a second; compiling them (the
first start after an install or an upgrade, e.g. a fresh colcon build or pip install) takes
tens of seconds, during which a node's configure does not answer and a command prints nothing.
Whoever waits (a Nav2 lifecycle manager, a terminal) then reads why, instead of a silent minute.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

# A warm-up still running after this long is compiling, not loading from the cache.
NOTICE_AFTER_S = 2.0


class InfoLogger(Protocol):
    """What the notice needs of a logger (an rclpy logger has it)."""

    def info(self, message: str) -> object:
        """Log `message` at INFO."""


def warm_with_notice(
    warm: Callable[[], float],
    logger: InfoLogger,
    what: str,
    after: float = NOTICE_AFTER_S,
    *,
    first: str = "start",
    waiting: str = "configure answers when it is done",
) -> float:
    """Run `warm` (a `warm_up`; returns its seconds) and, if it is still running after
    `after` seconds, log once why `waiting` has to wait (most likely a compile into numba's
    cache on the `first` start or run)."""
    timer = threading.Timer(after, lambda: logger.info(
        f"warming the {what}: the first {first} after an install or an upgrade compiles them "
        f"into numba's cache, and {waiting}; later {first}s load them"
    ))
    timer.daemon = True
    timer.start()
    try:
        return warm()
    finally:
        timer.cancel()
