"""Optional numba: `njit` compiles where numba is importable and is a no-op decorator elsewhere.

The grid and puzzle kernels share this switch; each domain logs its own fallback warning.
"""

from __future__ import annotations

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


__all__ = ["NUMBA_AVAILABLE", "njit"]
