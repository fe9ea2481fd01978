"""A callback group that runs at most `limit` callbacks at once and leaves the rest queued."""

from __future__ import annotations

import threading

from rclpy.callback_groups import CallbackGroup


class BoundedCallbackGroup(CallbackGroup):
    """Like ReentrantCallbackGroup, but with at most `limit` callbacks executing at a time.

    While the group is full the executor does not take further requests: they wait in the
    entity's DDS history, no executor thread blocks, and other nodes on the same executor keep
    running. This bounds the memory of concurrent searches (max_nodes x limit).
    """

    def __init__(self, limit: int) -> None:
        super().__init__()
        if limit < 1:
            raise ValueError(f"limit must be >= 1, got {limit}")
        self._limit = limit
        self._active = 0
        self._lock = threading.Lock()

    @property
    def active(self) -> int:
        """How many callbacks of this group are executing now."""
        with self._lock:
            return self._active

    def can_execute(self, entity: object) -> bool:
        with self._lock:
            return self._active < self._limit

    def beginning_execution(self, entity: object) -> bool:
        with self._lock:
            if self._active >= self._limit:
                return False
            self._active += 1
            return True

    def ending_execution(self, entity: object) -> None:
        with self._lock:
            self._active -= 1
