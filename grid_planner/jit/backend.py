"""Which code runs a search: a compiled kernel ("numba") or the reference algorithms.

Every domain offers the same choice, `backend` in BACKENDS: "auto" runs the kernel where one
exists and numba is importable (else the reference, with a warning logged once), "numba"
insists on numba being there, "reference" never compiles. A refused choice raises BackendError.
"""

from __future__ import annotations

from grid_planner.jit import NUMBA_AVAILABLE, warn_fallback_once

BACKENDS = ("auto", "numba", "reference")


class BackendError(ValueError):
    """An unknown backend name, or "numba" asked for where numba is not installed."""


def check_backend(requested: str) -> None:
    """Refuse a backend name that no search could honour here (BackendError)."""
    if requested not in BACKENDS:
        raise BackendError(
            f"backend must be one of {', '.join(BACKENDS)}, got {requested!r}"
        )
    if requested == "numba" and not NUMBA_AVAILABLE:
        raise BackendError("the numba backend was requested but numba is not installed")


def resolve_backend(requested: str, has_kernel: bool, fallback: str) -> str:
    """"numba" or "reference": what runs a search that has a kernel or not (`has_kernel`).

    `fallback` says what the reference path means for the user; it is logged once when "auto"
    has to fall back because numba is missing.
    """
    check_backend(requested)
    if requested == "reference" or not has_kernel:
        return "reference"
    if not NUMBA_AVAILABLE:
        warn_fallback_once(fallback)
        return "reference"
    return "numba"
