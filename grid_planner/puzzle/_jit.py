"""Optional numba for the puzzle kernels (see grid_planner.jit) and their fallback warning.

Without numba the pattern-database builds run on NumPy (several times slower) and `solve`
uses the reference algorithms of `grid_planner.search`; each logs one warning saying so.
"""

from __future__ import annotations

import logging

from grid_planner.jit import NUMBA_AVAILABLE, njit

__all__ = ["NUMBA_AVAILABLE", "njit", "warn_fallback_once"]

_log = logging.getLogger("grid_planner.puzzle")
_warned: set[str] = set()


def warn_fallback_once(what: str) -> None:
    """Log once per `what` that numba is missing and a slower path does that work."""
    if what not in _warned:
        _warned.add(what)
        _log.warning("numba is not importable: %s (pip install numba)", what)
