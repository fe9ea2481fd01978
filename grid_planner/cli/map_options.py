"""The map and grid options `plan`, `animate` and `compare MAP` share, and which of them a
command line set."""

from __future__ import annotations

import argparse

from grid_planner.grid.costs import (
    COST_MODELS,
    DEFAULT_COST_MODEL,
    DEFAULT_COST_SCALING_FACTOR,
    DEFAULT_COST_TRAVEL_MULTIPLIER,
    DEFAULT_INFLATION_RADIUS,
    MAX_COST_TRAVEL_MULTIPLIER,
)
from grid_planner.grid.planning_grid import DEFAULT_OCCUPIED_THRESHOLD
from grid_planner.grid.smoothing import DEFAULT_SMOOTHING, SMOOTHINGS

from .arg_types import (
    StoreValues,
    at_most,
    file_name,
    finite,
    non_negative,
    positive,
    threshold,
)


def add_map_query(parser: argparse.ArgumentParser) -> None:
    """MAP, --start X Y and --goal X Y: what `plan` and `animate` search on."""
    parser.add_argument(
        "map", metavar="MAP", type=file_name, help="map_server YAML, or PNG/PGM image"
    )
    for end in ("start", "goal"):
        parser.add_argument(
            f"--{end}", type=finite, nargs=2, metavar=("X", "Y"), required=True,
            help=f"{end} point",
        )


def add_map_options(parser: argparse.ArgumentParser) -> None:
    """The options shared by `plan` and `compare MAP`: map geometry, cells, planning grid."""
    group = parser.add_argument_group("map and grid options")
    group.add_argument(
        "--cells",
        action="store_true",
        help="--start/--goal are cell indices (x = column, y = row from the bottom), not metres",
    )
    group.add_argument(
        "--resolution",
        type=positive,
        metavar="R",
        help="metres per pixel: plan on a bare PNG/PGM image instead of a map YAML",
    )
    group.add_argument(
        "--origin",
        action=StoreValues,
        type=finite,
        display="X Y [YAW]",
        low=2,
        high=3,
        help="with --resolution: world pose of the image's bottom-left corner (default 0 0 0)",
    )
    group.add_argument(
        "--negate",
        action="store_true",
        help="with --resolution: dark pixels are free and light ones occupied",
    )
    group.add_argument(
        "--tolerance",
        type=non_negative,
        default=0.0,
        metavar="M",
        help="goal tolerance in metres: a blocked goal moves to the nearest reachable free cell "
        "with |dx|, |dy| <= M (default 0)",
    )
    group.add_argument(
        "--robot-radius",
        type=non_negative,
        default=0.0,
        metavar="M",
        help="cells within this distance (m) of an obstacle are blocked (default 0)",
    )
    group.add_argument(
        "--occupied-threshold",
        type=threshold,
        default=DEFAULT_OCCUPIED_THRESHOLD,
        metavar="N",
        help="a cell with value >= N is an obstacle "
        f"(1..100, default {DEFAULT_OCCUPIED_THRESHOLD})",
    )
    group.add_argument(
        "--allow-unknown", action="store_true", help="unknown (-1) cells may be crossed"
    )
    group = parser.add_argument_group("paths a robot can follow")
    group.add_argument(
        "--connectivity", type=int, choices=(4, 8), default=4,
        help="4 (default) or 8 neighbours; a diagonal never cuts a corner",
    )
    group.add_argument(
        "--cost-model", choices=COST_MODELS, default=DEFAULT_COST_MODEL, metavar="MODEL",
        help=f"{', '.join(COST_MODELS)} (default {DEFAULT_COST_MODEL}): uniform steps, our own "
        "inflation layer's costs, or the map is a Nav2 costmap (0 free, 1..98 cost, "
        "99 inscribed, 100 lethal)",
    )
    group.add_argument(
        "--inflation-radius", type=non_negative, default=DEFAULT_INFLATION_RADIUS, metavar="M",
        help=f"--cost-model inflation: how far costs reach (default {DEFAULT_INFLATION_RADIUS})",
    )
    group.add_argument(
        "--cost-scaling-factor", type=non_negative, default=DEFAULT_COST_SCALING_FACTOR,
        metavar="K", help="--cost-model inflation: how fast costs fall off (default "
        f"{DEFAULT_COST_SCALING_FACTOR:g})",
    )
    group.add_argument(
        "--cost-travel-multiplier", type=at_most(MAX_COST_TRAVEL_MULTIPLIER),
        default=DEFAULT_COST_TRAVEL_MULTIPLIER, metavar="W",
        help="a step onto a cell of cost c costs step * (1 + W c / 252); 0 gives the shortest "
        f"path, at most {MAX_COST_TRAVEL_MULTIPLIER:g} (default "
        f"{DEFAULT_COST_TRAVEL_MULTIPLIER:g})",
    )
    group.add_argument(
        "--smoothing", choices=SMOOTHINGS, default=DEFAULT_SMOOTHING, metavar="S",
        help=f"{', '.join(SMOOTHINGS)} (default {DEFAULT_SMOOTHING}); smoothed paths keep "
        "--robot-radius from every obstacle centre",
    )


def option_defaults(parser: argparse.ArgumentParser) -> dict[str, tuple[str, object]]:
    """Each option of `parser` (its long flag) -> (its dest, its default); not --help."""
    return {
        max(action.option_strings, key=len): (action.dest, action.default)
        for action in parser._actions
        if action.option_strings and action.default is not argparse.SUPPRESS
    }


def map_option_flags() -> tuple[str, ...]:
    """The flags `add_map_options` adds."""
    scratch = argparse.ArgumentParser(add_help=False)
    add_map_options(scratch)
    return tuple(option_defaults(scratch))


MAP_OPTIONS = map_option_flags()


def options_set(args: argparse.Namespace) -> list[str]:
    """The options of a `compare` command line set to other than their defaults (its namespace
    carries them), in the parser's order."""
    return [
        flag for flag, (dest, default) in args.option_defaults.items()
        if getattr(args, dest) != default
    ]
