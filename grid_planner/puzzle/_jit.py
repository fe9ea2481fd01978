"""Optional numba for the puzzle kernels: `njit` compiles when numba is importable, else no-op.

Without numba the pattern-database builds run on NumPy (several times slower) and `solve`
uses the reference algorithms of `grid_planner.search`; each logs one warning saying so.
"""

from __future__ import annotations

import logging

try:  # pragma: no cover - exercised by whichever environment runs the tests
    from numba import njit

    NUMBA_AVAILABLE = True
except ImportError:  # pragma: no cover
    NUMBA_AVAILABLE = False

    def njit(*_args, **_kwargs):  # type: ignore[no-redef]
        """Stand-in decorator: leaves the function as plain (slow) Python."""

        def wrap(function):
            return function

        return wrap


_log = logging.getLogger("grid_planner.puzzle")
_warned: set[str] = set()


def warn_fallback_once(what: str) -> None:
    """Log once per `what` that numba is missing and a slower path does that work."""
    if what not in _warned:
        _warned.add(what)
        _log.warning("numba is not importable: %s (pip install numba)", what)
