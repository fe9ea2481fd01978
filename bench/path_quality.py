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

One query is an anecdote, so each map is also planned between DRAWN_QUERIES pairs of cells
drawn by seed (at least MIN_APART_M apart), once a setting, and each goal is judged there on
the median query, with the count of queries that meet it beside. Beside the heading goals of
each map's own query
stands the least heading change any 8-connected path between its cells needs
(`fewest_turns.py`): where a third of the 4-connected path's turning is below it, no planner
meets the goal.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time

import numpy as np

import scenarios
from fewest_turns import fewest_turns_deg
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
    ("cost-aware 4-connected + shortcut", "inflation", 4, "shortcut"),
)
# The smoothed rows are judged against these.
SHORTEST_ROW = "8-connected raw"
STAIRCASE_ROWS = ("4-connected raw", "cost-aware 4-connected")
JUDGED_ROWS = ("cost-aware 8-connected + shortcut", "cost-aware 8-connected + gradient",
               "cost-aware 4-connected + shortcut")
LENGTH_SLACK = 1.10
HEADING_SHARE = 1.0 / 3.0
DRAWN_QUERIES = 41  # odd: the median is one query's
DRAWN_SEED = SEED
MIN_APART_M = 2.0


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


def _grids(occupancy: OccupancyMap) -> dict[str, PlanningGrid]:
    return {model: PlanningGrid(occupancy, robot_radius=ROBOT_RADIUS, cost_model=model,
                                **INFLATION) for model in ("uniform", "inflation")}


def _rows(grids: dict[str, PlanningGrid], start: tuple, goal: tuple,
          runs: int = 2) -> list[dict]:
    """Each setting's path between `start` and `goal`, planned `runs` times (the last is
    measured)."""
    rows = []
    for name, model, connectivity, smoothing in SETTINGS:
        grid = grids[model]
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            found = plan(grid, start, goal, "astar", connectivity=connectivity,
                         smoothing=smoothing)
            times.append(time.perf_counter() - began)
        rows.append({"setting": name, "cost_model": model, "connectivity": connectivity,
                     "smoothing": smoothing, "first_plan_s": times[0], "plan_s": times[-1],
                     "poses": len(found.poses),
                     **path_quality(grid, found.points).to_dict()})
    return rows


def _measures(rows: list[dict]) -> dict[str, dict]:
    """Each judged row's measures against the goals: its length over the shortest 8-connected
    path's, its heading change over each 4-connected path's (0 where neither turns at all) and
    its least clearance."""
    by_name = {row["setting"]: row for row in rows}
    shortest = by_name[SHORTEST_ROW]["length_m"]
    found = {}
    for name in JUDGED_ROWS:
        row = by_name[name]
        turning = row["heading_change_deg"]
        shares = {}
        for staircase in STAIRCASE_ROWS:
            base = by_name[staircase]["heading_change_deg"]
            shares[staircase] = turning / base if base else (0.0 if not turning else np.inf)
        found[name] = {"length": row["length_m"] / shortest, "shares": shares,
                       "clearance": row["min_clearance_m"], "turning": turning}
    return found


def _goals(measure: dict) -> list[tuple[str, bool]]:
    """Each goal, in a fixed order, and whether the measures of one row (`_measures`) meet it."""
    return [("no pose within the inscribed radius", measure["clearance"] > ROBOT_RADIUS),
            ("length within 10 % of the shortest 8-connected path",
             measure["length"] <= LENGTH_SLACK),
            *((f"heading change under a third of the {staircase} path's", share < HEADING_SHARE)
              for staircase, share in measure["shares"].items())]


def judge(rows: list[dict], fewest_turns: float | None = None) -> list[dict]:
    """The goals of each judged row, each with its measured value and whether it holds;
    `fewest_turns`, the least heading change of any 8-connected path for the query, is noted
    beside the heading goals."""
    least = ("" if fewest_turns is None else
             f"; no 8-connected path turns less than {fewest_turns:.0f} deg")
    by_name = {row["setting"]: row for row in rows}
    verdicts = []
    for name, measure in _measures(rows).items():
        measured = [f"least clearance {measure['clearance']:.3f} m > {ROBOT_RADIUS} m",
                    f"{measure['length']:.3f}x"]
        measured += [f"{measure['turning']:.0f} vs {by_name[staircase]['heading_change_deg']:.0f}"
                     f" deg ({share:.2f}){least}" for staircase, share in measure["shares"].items()]
        verdicts += [{"setting": name, "goal": goal, "measured": text, "holds": holds}
                     for (goal, holds), text in zip(_goals(measure), measured, strict=True)]
    return verdicts


def _drawn_queries(grid: PlanningGrid, count: int, seed: int) -> list[tuple]:
    """`count` (start, goal) pairs of free cells of the largest component, drawn by `seed`,
    at least MIN_APART_M apart in a straight line."""
    members = np.flatnonzero(grid.component_labels == np.argmax(grid.component_sizes))
    rng = np.random.default_rng(seed)
    apart = MIN_APART_M / grid.resolution
    queries = []
    while len(queries) < count:
        start, goal = (grid.index_cell(int(cell)) for cell in rng.choice(members, 2))
        if math.hypot(start[0] - goal[0], start[1] - goal[1]) >= apart:
            queries.append((start, goal))
    return queries


def _spread(values: np.ndarray, digits: int, unit: str = "") -> str:
    low, middle, high = (f"{value:.{digits}f}{unit}" for value in
                         (np.min(values), np.median(values), np.max(values)))
    return f"median {middle} ({low}-{high})"


def _out_of_reach(least: float, staircase_turning: float) -> bool:
    """Whether no 8-connected path, turning at least `least` degrees, turns under a third of
    `staircase_turning` (a path that turns nowhere meets the goal where neither turns)."""
    return least >= HEADING_SHARE * staircase_turning and least > 0.0


def drawn(grids: dict[str, PlanningGrid]) -> dict:
    """The judged rows over DRAWN_QUERIES drawn queries: per row and goal, the measures'
    spread, how many queries meet the goal, whether the median query does, and for the
    heading goals on how many queries no 8-connected path could (`fewest_turns.py`)."""
    plain = grids["uniform"]
    queries = _drawn_queries(plain, DRAWN_QUERIES, DRAWN_SEED)
    measures, reach = [], {staircase: 0 for staircase in STAIRCASE_ROWS}
    for start, goal in queries:
        rows = _rows(grids, start, goal, runs=1)
        measures.append(_measures(rows))
        least = fewest_turns_deg(~plain.blocked_mask, plain.width, start, goal)
        turning = {row["setting"]: row["heading_change_deg"] for row in rows}
        for staircase in STAIRCASE_ROWS:
            reach[staircase] += _out_of_reach(least, turning[staircase])
    beyond = ["", "", *(f"; no 8-connected path meets it on {reach[staircase]}"
                        for staircase in STAIRCASE_ROWS)]
    verdicts = []
    for name in JUDGED_ROWS:
        per_query = [found[name] for found in measures]
        clearance = np.array([m["clearance"] for m in per_query])
        spreads = [f"least clearance {clearance.min():.3f} m",
                   _spread(np.array([m["length"] for m in per_query]), 3, "x")]
        spreads += [f"share {_spread(np.array([m['shares'][staircase] for m in per_query]), 2)}"
                    for staircase in STAIRCASE_ROWS]
        met = np.array([[holds for _goal, holds in _goals(m)] for m in per_query])
        goals = [goal for goal, _holds in _goals(per_query[0])]
        for goal, meets, spread, out in zip(goals, met.T, spreads, beyond, strict=True):
            # With an odd count the median query meets a goal when more than half do.
            verdicts.append({
                "setting": name, "goal": goal, "holds": bool(2 * meets.sum() > len(queries)),
                "measured": f"{int(meets.sum())} of {len(queries)} queries; {spread}{out}",
            })
    return {"count": len(queries), "seed": DRAWN_SEED, "min_apart_m": MIN_APART_M,
            "verdicts": verdicts}


def run(quick: bool) -> dict:
    """Every map's rows and verdicts, JSON-ready."""
    warm_up()
    maps = []
    for name, title, occupancy, query in _maps(quick):
        grids = _grids(occupancy)
        start, goal = query if query is not None else _corners(grids["uniform"])
        rows = _rows(grids, start, goal)
        plain = grids["uniform"]
        least = fewest_turns_deg(~plain.blocked_mask, plain.width, start, goal)
        entry = {"name": name, "title": title, "start": list(start), "goal": list(goal),
                 "rows": rows, "fewest_turns_deg": least, "verdicts": judge(rows, least)}
        entry["drawn"] = drawn(grids)
        maps.append(entry)
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
