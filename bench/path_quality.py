"""Path quality: the same query planned 4- and 8-connected, with and without costs and smoothing.

Run from the repository root: `python bench/path_quality.py [--quick]` prints one JSON line
(`bench/run_all.py` runs it and judges the goals). A Nav2-like profile: robot radius 0.22 m,
`cost_model: inflation` with inflation radius 0.55 m and cost scaling 3.0 (nav2_bringup's). Maps:
the TurtleBot3 world (0.05 m cells) and the benchmark's 4096^2 warehouse, read at 0.15 m a cell
(its 3-cell aisles are 0.45 m wide, so a 0.22 m robot fits; at 0.05 m none would). For each
setting: the length, the least and mean clearance from obstacle centres along the path, the total
heading change, and the planning time (search plus smoothing) of a second, warm plan: the
first smoothed plan on a map also prepares the map's clearance masks once (`PlanningGrid.
sweep_masks`), reported apart as `first_plan_s`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

import scenarios
from grid_planner.grid import OccupancyMap, PlanningGrid, load_map, plan, warm_up
from grid_planner.grid.path_quality import path_quality

SEED = 2024
ROBOT_RADIUS = 0.22
INFLATION = {"inflation_radius": 0.55, "cost_scaling_factor": 3.0}
WAREHOUSE_RESOLUTION = 0.15
# (row name, cost model, connectivity, smoothing)
SETTINGS = (
    ("4-connected raw", "uniform", 4, "none"),
    ("8-connected raw", "uniform", 8, "none"),
    ("cost-aware 4-connected", "inflation", 4, "none"),
    ("cost-aware 8-connected", "inflation", 8, "none"),
    ("cost-aware 8-connected + shortcut", "inflation", 8, "shortcut"),
    ("cost-aware 8-connected + gradient", "inflation", 8, "gradient"),
)
# The smoothed rows are judged against these.
SHORTEST_ROW = "8-connected raw"
STAIRCASE_ROWS = ("4-connected raw", "cost-aware 4-connected")
JUDGED_ROWS = ("cost-aware 8-connected + shortcut", "cost-aware 8-connected + gradient")
LENGTH_SLACK = 1.10
HEADING_SHARE = 1.0 / 3.0


def _corners(grid: PlanningGrid) -> tuple[tuple[int, int], tuple[int, int]]:
    """The free cells of the largest component nearest the bottom-left and top-right corners."""
    members = np.flatnonzero(grid.component_labels == np.argmax(grid.component_sizes))
    ys, xs = np.divmod(members, grid.width)
    first, last = members[np.argmin(xs + ys)], members[np.argmax(xs + ys)]
    return grid.index_cell(int(first)), grid.index_cell(int(last))


def _maps(quick: bool) -> list[tuple[str, str, OccupancyMap, object]]:
    """(name, title, map, query or None for the largest component's corners)."""
    tb3 = load_map(scenarios.shared_dir() / "maps" / "turtlebot3_world.yaml")
    found = [("turtlebot3", "TurtleBot3 world (384^2 at 0.05 m)", tb3, None)]
    if not quick:
        house = scenarios.warehouse(4096, SEED)
        values = np.where(house.blocked, 100, 0).astype(np.int8).reshape(-1)
        occupancy = OccupancyMap(house.width, house.height, WAREHOUSE_RESOLUTION, values)
        found.append(("warehouse4096", "4096^2 warehouse at 0.15 m", occupancy,
                      (house.start, house.goal)))
    return found


def _rows(occupancy: OccupancyMap, query: object) -> tuple[list[dict], tuple]:
    grids = {model: PlanningGrid(occupancy, robot_radius=ROBOT_RADIUS, cost_model=model,
                                 **INFLATION) for model in ("uniform", "inflation")}
    start, goal = query if query is not None else _corners(grids["uniform"])
    rows = []
    for name, model, connectivity, smoothing in SETTINGS:
        grid = grids[model]
        times = []
        for _ in range(2):
            began = time.perf_counter()
            found = plan(grid, start, goal, "astar", connectivity=connectivity,
                         smoothing=smoothing)
            times.append(time.perf_counter() - began)
        rows.append({"setting": name, "cost_model": model, "connectivity": connectivity,
                     "smoothing": smoothing, "first_plan_s": times[0], "plan_s": times[1],
                     "poses": len(found.poses),
                     **path_quality(grid, found.points).to_dict()})
    return rows, (start, goal)


def judge(rows: list[dict]) -> list[dict]:
    """The goals of each judged row, each with its measured value and whether it holds."""
    by_name = {row["setting"]: row for row in rows}
    shortest = by_name[SHORTEST_ROW]["length_m"]
    verdicts = []
    for name in JUDGED_ROWS:
        row = by_name[name]
        checks = [("no pose within the inscribed radius",
                   f"least clearance {row['min_clearance_m']:.3f} m > {ROBOT_RADIUS} m",
                   row["min_clearance_m"] > ROBOT_RADIUS),
                  ("length within 10 % of the shortest 8-connected path",
                   f"{row['length_m'] / shortest:.3f}x",
                   row["length_m"] <= LENGTH_SLACK * shortest)]
        for staircase in STAIRCASE_ROWS:
            turning = by_name[staircase]["heading_change_deg"]
            share = row["heading_change_deg"] / turning if turning else float("inf")
            checks.append((f"heading change under a third of the {staircase} path's",
                           f"{row['heading_change_deg']:.0f} vs {turning:.0f} deg ({share:.2f})",
                           share < HEADING_SHARE))
        verdicts += [{"setting": name, "goal": goal, "measured": measured, "holds": holds}
                     for goal, measured, holds in checks]
    return verdicts


def run(quick: bool) -> dict:
    """Every map's rows and verdicts, JSON-ready."""
    warm_up()
    maps = []
    for name, title, occupancy, query in _maps(quick):
        rows, (start, goal) = _rows(occupancy, query)
        maps.append({"name": name, "title": title, "start": list(start), "goal": list(goal),
                     "rows": rows, "verdicts": judge(rows)})
    return {"profile": {"robot_radius": ROBOT_RADIUS, **INFLATION}, "maps": maps}


def main(argv: list[str] | None = None) -> int:
    """Print the results as one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the TurtleBot3 map only")
    args = parser.parse_args(argv)
    print(json.dumps(run(args.quick)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
