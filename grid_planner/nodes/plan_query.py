"""What planner_node's entry points (services, goal_pose, Nav2's actions) ask and get back."""

from __future__ import annotations

from dataclasses import dataclass

from geometry_msgs.msg import PoseStamped
from grid_planner_interfaces.srv import ComputePath

from grid_planner.grid.grid_plan import GridPlan
from grid_planner.grid.planning_grid import PlanningGrid
from grid_planner.nodes.wire.cdr import PathArrays

Codes = ComputePath.Response


@dataclass(frozen=True)
class PlanQuery:
    """One planning request: the goal, an explicit start (None: the current start), options.

    `planner_id` (Nav2's actions) names a configured planner whose block settings apply; None
    (services, goal_pose) plans with the node's flat parameters.
    """

    goal: PoseStamped
    start: PoseStamped | None = None
    algorithm: str = ""
    tolerance: float = -1.0
    planner_id: str | None = None


@dataclass
class PlanAnswer:
    """The outcome of a query: a path (empty on failure), the error code and the evidence.

    `cancelled` says the search was stopped through its cancel event (a client's cancel, a
    newer goal, deactivation or shutdown), not by a planning outcome.
    """

    path: PathArrays
    error_code: int = Codes.NONE
    error_msg: str = ""
    algorithm: str = ""
    length_m: float = 0.0
    nodes_expanded: int = 0
    planning_time: float = 0.0
    plan: GridPlan | None = None
    grid: PlanningGrid | None = None  # the grid a found plan ran on
    cancelled: bool = False

    @property
    def ok(self) -> bool:
        """Whether a path was found."""
        return self.error_code == Codes.NONE


class QueryError(Exception):
    """A query refused, with its ComputePath code: before planning, or after a search whose
    path cannot be sent (`nodes_expanded`: that search's)."""

    def __init__(self, code: int, message: str, nodes_expanded: int = 0) -> None:
        super().__init__(message)
        self.code = code
        self.nodes_expanded = nodes_expanded
