"""`grid-planner plan`: one path on a map file, as a summary, JSON, ASCII art or a PNG."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from grid_planner.report import HUGE, decimal
from grid_planner.search import Budget

from .output import (
    EXIT_NO_RESULT,
    EXIT_OK,
    InputError,
    error_line,
    failure_line,
    ms,
    print_json,
    quality_words,
    warm_kernels,
)
from .parser import budget_from

if TYPE_CHECKING:
    from grid_planner.grid import GridPlan, PlannerError, PlanningGrid

# `grid_planner.grid` (and `render`, which needs it) is imported inside the commands: importing
# it costs most of a second that `puzzle` has no use for.

YAML_SUFFIXES = (".yaml", ".yml")
IMAGE_SUFFIXES = (".png", ".pgm", ".ppm", ".pnm", ".bmp", ".gif", ".tif", ".tiff", ".jpg", ".jpeg")


def load_grid(args: argparse.Namespace, map_file: str) -> PlanningGrid:
    """The planning grid of MAP with the grid options; InputError("NO_MAP") if unusable."""
    from grid_planner.grid import (
        MapLoadError,
        PlanningGrid,
        UnsupportedMapError,
        load_image_map,
        load_map,
    )

    path = Path(map_file)
    try:
        if path.suffix.lower() in YAML_SUFFIXES:
            if args.resolution is not None or args.origin is not None or args.negate:
                raise InputError(
                    f"--resolution, --origin and --negate describe a bare image; the map YAML "
                    f"{path} sets its own resolution, origin and negate",
                    "NO_MAP",
                )
            occupancy = load_map(path)
        else:
            if args.resolution is None:
                raise InputError(
                    f"{path} is not a map YAML (.yaml): to plan on a bare image give its cell "
                    "size with --resolution R (metres per pixel) and optionally --origin X Y "
                    "[YAW], or pass the map_server YAML instead",
                    "NO_MAP",
                )
            origin = args.origin if args.origin is not None else (0.0, 0.0)
            occupancy = load_image_map(path, args.resolution, origin, negate=args.negate)
        return PlanningGrid(
            occupancy,
            occupied_threshold=args.occupied_threshold,
            allow_unknown=args.allow_unknown,
            robot_radius=args.robot_radius,
            cost_model=args.cost_model,
            inflation_radius=args.inflation_radius,
            cost_scaling_factor=args.cost_scaling_factor,
        )
    except (MapLoadError, UnsupportedMapError) as error:
        raise InputError(str(error), "NO_MAP") from None
    except ValueError as error:  # a grid parameter the option parsing let through
        raise InputError(str(error)) from None


def endpoint(values: Sequence[float], role: str, cells: bool) -> tuple[float, float]:
    """--start/--goal as a point in metres, or (with --cells) as whole cell indices."""
    if cells:
        if not all(float(v).is_integer() for v in values):
            raise InputError(
                f"--{role} with --cells takes whole cell indices, got {values[0]:g} {values[1]:g}",
                "INVALID_POSE",
            )
        return (int(values[0]), int(values[1]))
    return (float(values[0]), float(values[1]))


def asked_cells(
    grid: PlanningGrid, args: argparse.Namespace, *points: tuple[float, float]
) -> tuple[tuple[int, int], ...]:
    """The cells of the start and goal as given (by --cells, else the cells holding them)."""
    if args.cells:
        return tuple((int(x), int(y)) for x, y in points)
    return tuple(grid.map.world_to_cell(x, y) for x, y in points)


def run_grid_plan(
    grid: PlanningGrid,
    args: argparse.Namespace,
    algorithm: str,
    start: tuple[float, float],
    goal: tuple[float, float],
    budget: Budget,
    record_expanded: bool = False,
) -> GridPlan:
    """One plan with the command's options, between cells or world points."""
    from grid_planner.grid import plan, plan_world

    options = {
        "tolerance": args.tolerance, "budget": budget, "record_expanded": record_expanded,
        "connectivity": args.connectivity, "smoothing": args.smoothing,
        "cost_travel_multiplier": args.cost_travel_multiplier,
    }
    if args.cells:
        return plan(grid, start, goal, algorithm, **options)
    return plan_world(grid, start, goal, algorithm, **options)


def report_plan_failure(
    args: argparse.Namespace, error: PlannerError, algorithm: str,
    cells: tuple[tuple[int, int], tuple[int, int]],
) -> int:
    """Print a refused or failed plan (JSON or one line); returns the exit code. The JSON has
    a found plan's keys: `cells` (start, goal) as asked (null for a far point), no path, null
    measures."""
    from grid_planner.grid import failure_report

    if args.json:
        # A cell number of HUGE or more is a far point's clamped cell: it names no cell.
        start_cell, goal_cell = (
            [int(v) for v in cell] if max(abs(v) for v in cell) < HUGE else None
            for cell in cells
        )
        print_json({
            **failure_report(error, algorithm, args.connectivity).to_dict(),
            "error_code": error.error_code, "length_m": None, "search_cost": None,
            "connectivity": args.connectivity, "smoothing": args.smoothing,
            "start_cell": start_cell, "goal_cell": goal_cell,
            "requested_goal_cell": goal_cell, "goal_adjusted": False, "path": [], "poses": [],
            "quality": None,
        })
    else:
        expanded = None if error.result is None else error.result.nodes_expanded
        error_line(failure_line(error.code_name, str(error), expanded))
    return EXIT_NO_RESULT


def _describe_point(grid: PlanningGrid, cell: tuple[int, int]) -> str:
    from grid_planner.grid.targets import describe_cell

    return describe_cell(grid, grid.cell_index(*cell))


def _plan_summary(grid: PlanningGrid, found: GridPlan, map_file: str) -> str:
    from grid_planner.grid import algorithm_info
    from grid_planner.grid.path_quality import path_quality

    optimal = None
    if found.optimal:
        optimal = "optimal (no shorter path exists)" if grid.raw_costs is None else (
            f"optimal (no path costs less under the {grid.cost_model} cost model)")
    quality = quality_words(optimal, found.algorithm, "paths")
    lines = [
        f"Path found by {found.algorithm}: {found.length} steps ({decimal(found.length_m)} m), "
        f"{quality}.",
        f"  algorithm: {found.algorithm}: {algorithm_info(found.algorithm).description}"
        + (f", {found.heuristic} heuristic" if found.heuristic else ""),
        f"  map:       {map_file}, {grid.width} x {grid.height} cells of {grid.resolution:g} m",
        f"  start:     {_describe_point(grid, found.start_cell)}",
        f"  goal:      {_describe_point(grid, found.goal_cell)}",
    ]
    if found.goal_adjusted:
        requested = found.requested_goal_cell
        why = "is blocked" if grid.is_blocked(*requested) else "cannot be reached"
        lines.append(
            f"  goal moved by the tolerance ({found.goal_cell[0] - requested[0]:+d}, "
            f"{found.goal_cell[1] - requested[1]:+d} cells): the requested "
            f"{_describe_point(grid, requested)} {why}"
        )
    quality = path_quality(grid, found.points)
    shaped = f"{found.connectivity}-connected, cost model {grid.cost_model}"
    if found.smoothing != "none":
        shaped += f", smoothed ({found.smoothing}: {len(found.poses)} poses, searched path "
        shaped += f"{decimal(found.raw_length_m)} m)"
    clearance = (
        f"{decimal(quality.min_clearance_m)} m at least, "
        f"{decimal(quality.mean_clearance_m)} m on average"
        if math.isfinite(quality.min_clearance_m) else "no obstacle on the map"
    )
    lines += [
        f"  path:      {found.length + 1} cells, {found.length} steps, "
        f"{decimal(found.length_m)} m, search cost {decimal(found.result.cost)}",
        f"  shape:     {shaped}",
        f"  clearance: {clearance}; turning {quality.heading_change_deg:.0f} deg in all",
        f"  nodes:     {found.nodes_expanded:,} expanded, {found.nodes_generated:,} generated, "
        f"peak frontier {found.max_frontier:,}",
        f"  time:      {ms(found.elapsed)} (the search alone, {found.backend} backend)",
    ]
    return "\n".join(lines)


def run_plan(args: argparse.Namespace) -> int:
    """`grid-planner plan`: one path on a map; exit 0 found, 1 no path, 2 bad input."""
    from grid_planner import render
    from grid_planner.grid import InvalidPlanner, PlannerError, algorithm_info, warm_up

    algorithm = args.algorithm
    try:
        algorithm_info(algorithm)
    except InvalidPlanner as error:
        raise InputError(str(error), error.code_name) from None
    start = endpoint(args.start, "start", args.cells)
    goal = endpoint(args.goal, "goal", args.cells)
    grid = load_grid(args, args.map)
    if args.png:  # refused before the search, not after it
        scale = render.auto_scale(grid.width, grid.height) if args.scale is None else args.scale
        try:
            render.check_image_size(grid.width, grid.height, scale)
        except ValueError as error:
            raise InputError(f"--png at --scale {scale}: {error}") from None
    warm_kernels(warm_up)  # compiled or loaded now, so planning_time is the search alone
    try:
        found = run_grid_plan(
            grid, args, algorithm, start, goal, budget_from(args.timeout), bool(args.png)
        )
    except PlannerError as error:
        return report_plan_failure(args, error, algorithm, asked_cells(grid, args, start, goal))
    except ValueError as error:  # e.g. a non-finite pose that slipped through
        raise InputError(str(error), "INVALID_POSE") from None

    drawing = render.plan_ascii(grid, found) if args.ascii else None
    if args.png:
        try:
            size = render.plan_png(grid, found, args.png, scale=args.scale)
        except (OSError, ValueError) as error:
            raise InputError(f"cannot write {args.png}: {error}") from None
    if args.json:
        from grid_planner.grid.path_quality import path_quality

        answer = {**found.summary(), "error_code": 0, "goal_adjusted": found.goal_adjusted,
                  "quality": path_quality(grid, found.points).to_dict()}
        if drawing is not None:
            answer["ascii"] = drawing
        if args.png:
            answer["png"] = str(args.png)
        print_json(answer)
        return EXIT_OK
    print(_plan_summary(grid, found, args.map))
    if args.png:
        print(f"  picture:   {args.png} ({size[0]} x {size[1]} px)")
    if drawing is not None:
        print()
        print(drawing)
    return EXIT_OK
