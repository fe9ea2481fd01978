"""Stage timings of the grid preparation, so logs and benchmarks can say where time goes."""

from __future__ import annotations

import time


class StageClock:
    """Adds the seconds since the previous lap to `timings[name]` on each `lap(name)`.

    With `timings` None it only keeps time, so the code that laps needs no second path.
    """

    def __init__(self, timings: dict[str, float] | None) -> None:
        self.timings = timings
        self._last = time.perf_counter()

    def lap(self, name: str) -> None:
        """Charge the time since the last lap (or the start) to stage `name`."""
        now = time.perf_counter()
        if self.timings is not None:
            self.timings[name] = self.timings.get(name, 0.0) + now - self._last
        self._last = now


def format_timings(timings: dict[str, float]) -> str:
    """`name ms, ...` of `timings` (seconds), in their order, plus the total.

    >>> format_timings({"threshold": 0.0021, "layers": 0.004})
    'threshold 2.1 ms, layers 4.0 ms (total 6.1 ms)'
    """
    parts = [f"{name} {seconds * 1000:.1f} ms" for name, seconds in timings.items()]
    total = sum(timings.values()) * 1000
    return f"{', '.join(parts)} (total {total:.1f} ms)"
