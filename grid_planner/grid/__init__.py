"""Occupancy grids without ROS: map loading, the planning grid, the grid problem and planners.

Typical use (the ROS node and the CLI do exactly this), here on a 4 x 3 map of 0.5 m cells
with a wall in the middle row (`load_map("config/maps/demo_map.yaml")` reads a map_server
YAML instead; rows are listed top first):

>>> from grid_planner.grid import OccupancyMap, PlanningGrid, plan_world
>>> from grid_planner.search import Budget
>>> rows = [[0, 0, 0, 0], [0, 100, 100, 0], [0, 0, 0, 0]]
>>> occupancy = OccupancyMap.from_rows(rows, resolution=0.5)
>>> grid = PlanningGrid(occupancy, occupied_threshold=65, allow_unknown=False, robot_radius=0.0)
>>> found = plan_world(grid, (0.25, 0.75), (1.75, 0.75), "astar", tolerance=0.0,
...                    budget=Budget.from_timeout(5.0))
>>> found.cells
[(0, 1), (0, 0), (1, 0), (2, 0), (3, 0), (3, 1)]
>>> found.length_m, found.poses[1].tolist()
(2.5, [0.25, 0.25])

Failures raise a PlannerError subclass whose `error_code` is the ComputePath code. The
algorithms are those the registry (`grid_planner.search.registry`) offers for the grid.
"""

from grid_planner.jit import NUMBA_AVAILABLE

from .dispatch import DEFAULT_ALGORITHM, GridSearch, algorithm_info, search_grid
from .errors import (
    GoalOccupied,
    GoalOutsideMap,
    InvalidPlanner,
    MapLoadError,
    NoValidPathFound,
    PlannerCancelled,
    PlannerError,
    PlannerTimedOut,
    StartOccupied,
    StartOutsideMap,
    UnsupportedMapError,
)
from .grid_plan import GridPlan
from .map_io import (
    MapMetadata,
    image_to_values,
    load_image_map,
    load_map,
    read_map_yaml,
    save_map,
)
from .occupancy import FREE, OCCUPIED, UNKNOWN, OccupancyMap
from .planner import (
    MAX_SANE_PATH_POSES,
    failure_report,
    grid_heuristic,
    plan,
    plan_world,
    warm_up,
)
from .planning_grid import DEFAULT_OCCUPIED_THRESHOLD, PlanningGrid
from .problem import GRID_HEURISTICS, GridProblem
from .targets import choose_targets, tolerance_window_cells

__all__ = [
    "DEFAULT_ALGORITHM",
    "DEFAULT_OCCUPIED_THRESHOLD",
    "FREE",
    "GRID_HEURISTICS",
    "MAX_SANE_PATH_POSES",
    "NUMBA_AVAILABLE",
    "OCCUPIED",
    "UNKNOWN",
    "GoalOccupied",
    "GoalOutsideMap",
    "GridPlan",
    "GridProblem",
    "GridSearch",
    "InvalidPlanner",
    "MapLoadError",
    "MapMetadata",
    "NoValidPathFound",
    "OccupancyMap",
    "PlannerCancelled",
    "PlannerError",
    "PlannerTimedOut",
    "PlanningGrid",
    "StartOccupied",
    "StartOutsideMap",
    "UnsupportedMapError",
    "algorithm_info",
    "choose_targets",
    "failure_report",
    "grid_heuristic",
    "image_to_values",
    "load_image_map",
    "load_map",
    "plan",
    "plan_world",
    "read_map_yaml",
    "save_map",
    "search_grid",
    "tolerance_window_cells",
    "warm_up",
]
