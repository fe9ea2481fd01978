"""Client API at its documented path: the prebuilt-CDR route of `grid_planner.nodes.wire`."""

from grid_planner.nodes.wire.prebuilt import (
    MessageWire,
    PrebuiltUnavailableError,
    fallback_count,
    probe,
    raw_response_type,
)

__all__ = [
    "MessageWire",
    "PrebuiltUnavailableError",
    "fallback_count",
    "probe",
    "raw_response_type",
]
