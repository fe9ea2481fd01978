"""Exceptions of the grid core: map loading, unsupported maps, and planning failures.

The planning failures mirror Nav2's planner exceptions: a planner raises one specific exception
and the server maps it to an error code. Each class carries the `ComputePath` code
(`error_code`, the numbers of Nav2's ComputePathToPose) so the node and the CLI need no table
of their own, and the partial `SearchResult` (`result`, None when no search ran) with the
`backend` that ran it, so a failure can still report how many nodes it expanded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from grid_planner.search.result import SearchResult


class MapLoadError(ValueError):
    """A map YAML or image that cannot be loaded; the message names the file and the field."""


class UnsupportedMapError(ValueError):
    """A map the planner cannot use: no cells, a resolution <= 0, non-finite origin, bad data."""


class PlannerError(Exception):
    """Base of every planning failure; `error_code` is the ComputePath code it maps to."""

    error_code: ClassVar[int] = 200  # UNKNOWN
    code_name: ClassVar[str] = "UNKNOWN"

    def __init__(
        self, message: str, result: SearchResult | None = None, backend: str = ""
    ) -> None:
        super().__init__(message)
        self.result = result
        self.backend = backend

    @property
    def nodes_expanded(self) -> int:
        """Nodes the failed search expanded (0 when no search ran)."""
        return self.result.nodes_expanded if self.result is not None else 0


class InvalidPlanner(PlannerError):  # noqa: N818 (Nav2 names)
    """The requested algorithm name is not one this planner knows."""

    error_code = 201
    code_name = "INVALID_PLANNER"


class StartOutsideMap(PlannerError):  # noqa: N818 (Nav2 names)
    """The start pose or cell lies outside the map."""

    error_code = 203
    code_name = "START_OUTSIDE_MAP"


class GoalOutsideMap(PlannerError):  # noqa: N818 (Nav2 names)
    """The goal pose or cell lies outside the map."""

    error_code = 204
    code_name = "GOAL_OUTSIDE_MAP"


class StartOccupied(PlannerError):  # noqa: N818 (Nav2 names)
    """The start cell is lethal (an obstacle, or unknown while unknown is not allowed)."""

    error_code = 205
    code_name = "START_OCCUPIED"


class GoalOccupied(PlannerError):  # noqa: N818 (Nav2 names)
    """The goal cell is blocked (lethal or inflated) and the tolerance reaches no other cell."""

    error_code = 206
    code_name = "GOAL_OCCUPIED"


class PlannerTimedOut(PlannerError):  # noqa: N818 (Nav2 names)
    """The search hit its deadline before it found a path."""

    error_code = 207
    code_name = "TIMEOUT"


class NoValidPathFound(PlannerError):  # noqa: N818 (Nav2 names)
    """No path exists (or none within the node or depth budget; see `result.limit`)."""

    error_code = 208
    code_name = "NO_VALID_PATH"


class PlannerCancelled(PlannerError):  # noqa: N818 (Nav2 names)
    """The search was cancelled through its budget's cancel event (Nav2's PlannerCancelled).

    ComputePath has no code of its own for this; it maps to UNKNOWN (200).
    """

    error_code = 200
    code_name = "UNKNOWN"
