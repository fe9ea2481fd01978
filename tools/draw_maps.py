"""Draw the maps that the project ships (`config/maps/`): the tutorial grid, the demo map and
the floor plan that `make demo` and `make gallery` plan on.

    .venv/bin/python tools/draw_maps.py [--out config/maps]

The files are generated, never edited by hand; a test checks that the shipped files still match
what this script draws (the tests and the benchmarks import it from tools/).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from grid_planner.grid.map_io import save_map
from grid_planner.grid.occupancy import OCCUPIED, UNKNOWN, OccupancyMap

# The classic 8 x 10 exercise grid, printed with its top row first (1 = blocked). From the
# top-left corner (cell (0, 7)) to the bottom-right corner (cell (9, 0)) the shortest 4-connected
# path has 16 steps.
TUTORIAL_ROWS = (
    "0 0 0 0 0 0 0 1 0 0",
    "0 1 1 1 0 0 0 1 0 0",
    "0 0 0 1 0 1 0 0 0 0",
    "0 1 0 0 0 1 0 1 1 0",
    "0 1 0 1 0 0 0 0 1 0",
    "0 0 0 1 0 1 1 0 0 0",
    "1 1 0 0 0 0 0 1 0 0",
    "0 0 0 1 1 0 0 0 0 0",
)
TUTORIAL_START_CELL = (0, 7)
TUTORIAL_GOAL_CELL = (9, 0)
TUTORIAL_SHORTEST_STEPS = 16

DEMO_WIDTH = 60
DEMO_HEIGHT = 40
DEMO_RESOLUTION = 0.1
DEMO_ORIGIN = (-3.0, -2.0, 0.0)


def tutorial_grid() -> OccupancyMap:
    """The tutorial grid as a map: 1 m cells, origin (0, 0), blocked cells occupied (100)."""
    rows = np.array([[int(v) for v in row.split()] for row in TUTORIAL_ROWS], dtype=np.int8)
    return OccupancyMap.from_rows(rows * OCCUPIED, resolution=1.0, origin=(0.0, 0.0, 0.0))


def demo_map() -> OccupancyMap:
    """A small office beside a warehouse: 60 x 40 cells at 0.1 m (6 m x 4 m), origin (-3, -2).

    Left: two offices (a desk, a table) joined by a door, and a closed store room that was never
    scanned (unknown inside). Right: a warehouse with four shelf rows and a cross aisle. Two
    doors join the halves; every door is 0.8 m wide, so a robot of radius 0.2 m fits through.
    """
    # Drawn with row 0 at the bottom (y up), then handed over as OccupancyGrid rows.
    cells = np.zeros((DEMO_HEIGHT, DEMO_WIDTH), dtype=np.int8)

    def block(x0: int, x1: int, y0: int, y1: int, value: int = OCCUPIED) -> None:
        cells[y0 : y1 + 1, x0 : x1 + 1] = value

    # Outer walls.
    block(0, DEMO_WIDTH - 1, 0, 0)
    block(0, DEMO_WIDTH - 1, DEMO_HEIGHT - 1, DEMO_HEIGHT - 1)
    block(0, 0, 0, DEMO_HEIGHT - 1)
    block(DEMO_WIDTH - 1, DEMO_WIDTH - 1, 0, DEMO_HEIGHT - 1)
    # Office | warehouse wall with two doors.
    block(24, 24, 0, DEMO_HEIGHT - 1)
    block(24, 24, 8, 15, 0)
    block(24, 24, 28, 35, 0)
    # Wall between the two offices, with a door.
    block(0, 24, 20, 20)
    block(8, 15, 20, 20, 0)
    # Closed store room in the top office: walls, unknown inside.
    block(1, 8, 30, 30)
    block(8, 8, 30, DEMO_HEIGHT - 1)
    block(1, 7, 31, DEMO_HEIGHT - 2, UNKNOWN)
    # Furniture: a desk in the bottom office, a table in the top one.
    block(8, 12, 4, 6)
    block(14, 18, 25, 27)
    # Warehouse shelf rows (0.2 m deep), broken by a cross aisle.
    for y in (6, 14, 22, 30):
        block(30, 40, y, y + 1)
        block(45, 53, y, y + 1)
    return OccupancyMap.from_rows(
        cells, resolution=DEMO_RESOLUTION, origin=DEMO_ORIGIN, top_row_first=False
    )


FLOOR_WIDTH = 280
FLOOR_HEIGHT = 180
FLOOR_RESOLUTION = 0.05
# Where `make demo` and `make gallery` plan from and to: an office desk to the warehouse's far
# corner, cells (x, y) from the bottom left.
FLOOR_START_CELL = (14, 14)
FLOOR_GOAL_CELL = (262, 166)


def floor_plan() -> OccupancyMap:
    """An office floor beside a warehouse: 280 x 180 cells at 0.05 m (14 m x 9 m).

    Left, offices on both sides of a corridor, each with a door onto it and a desk; right, a
    warehouse of shelf rows (0.3 m deep) with aisles, a cross aisle and a loading bay. Two
    doors join the halves. Walls are 0.1 m thick, doors 0.8 m wide.
    """
    cells = np.zeros((FLOOR_HEIGHT, FLOOR_WIDTH), dtype=np.int8)

    def block(x0: int, x1: int, y0: int, y1: int, value: int = OCCUPIED) -> None:
        cells[y0 : y1 + 1, x0 : x1 + 1] = value

    last_x, last_y = FLOOR_WIDTH - 1, FLOOR_HEIGHT - 1
    block(0, last_x, 0, 1)
    block(0, last_x, last_y - 1, last_y)
    block(0, 1, 0, last_y)
    block(last_x - 1, last_x, 0, last_y)
    # The corridor (y 80..99) between the office rows; office walls every 30 cells.
    block(0, 110, 78, 79)
    block(0, 110, 100, 101)
    for x in (30, 60, 90):
        block(x, x + 1, 0, 78)
        block(x, x + 1, 100, last_y)
    for x in (2, 32, 62, 92):  # one door per office onto the corridor
        block(x + 6, x + 21, 78, 79, 0)
        block(x + 6, x + 21, 100, 101, 0)
        block(x + 4, x + 16, 30, 36)  # desks
        block(x + 8, x + 20, 140, 146)
    # Office | warehouse wall with two doors.
    block(110, 111, 0, last_y)
    block(110, 111, 82, 97, 0)
    block(110, 111, 20, 35, 0)
    # Shelf rows, 6 cells deep, broken by a cross aisle (y 84..95); a loading bay at the top.
    for y in range(16, 150, 22):
        for x0, x1 in ((124, 186), (200, 262)):
            if not 80 <= y <= 100:
                block(x0, x1, y, y + 5)
    block(150, 240, 158, 163)
    return OccupancyMap.from_rows(cells, resolution=FLOOR_RESOLUTION, top_row_first=False)


SHIPPED_MAPS = {"tutorial_grid": tutorial_grid, "demo_map": demo_map, "floor_plan": floor_plan}


def default_output_dir() -> Path:
    """`config/maps` of the checkout this script lives in."""
    return Path(__file__).resolve().parents[1] / "config" / "maps"


def write_maps(out_dir: Path) -> list[Path]:
    """Write every shipped map (YAML + PGM) into `out_dir`; returns the YAML paths."""
    written = []
    for name, draw in SHIPPED_MAPS.items():
        yaml_path = out_dir / f"{name}.yaml"
        save_map(draw(), yaml_path)
        written.append(yaml_path)
    return written


def main(argv: list[str] | None = None) -> int:
    """Command line: draw the shipped maps into --out (default: the checkout's config/maps)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=default_output_dir(), help="output folder")
    args = parser.parse_args(argv)
    for path in write_maps(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
