"""Optional numba for every compiled kernel: the `njit` switch and the one fallback warning.

`njit` compiles where numba is importable and is a no-op decorator elsewhere, so each kernel
stays plain (slow) Python on machines without numba; `NUMBA_DISABLE_JIT=1` gives the same with
numba installed, which is how the tests cover the kernels' Python code paths. Where numba is
missing the domains choose their reference code instead (`backend.resolve_backend`) and say so
once per kind of work through `warn_fallback_once`. `driver` runs a resumable kernel in chunks.
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


__all__ = ["NUMBA_AVAILABLE", "njit", "warn_fallback_once"]

_log = logging.getLogger(__name__)
_warned: set[str] = set()


def warn_fallback_once(what: str) -> None:
    """Log once per `what` (the slower way that work is done) that numba is missing."""
    if what not in _warned:
        _warned.add(what)
        _log.warning("numba is not importable: %s (pip install numba)", what)
