"""`make gallery`: the README's pictures, drawn into docs/images/.

    .venv/bin/python tools/gallery.py [--out docs/images]

Writes floor_plan_astar.png (A* on the floor plan with its expanded cells shaded by expansion
order, a legend), search.gif (BFS, DFS and A* side by side) and puzzle.gif (one of the two
hardest 8-puzzles, 31 moves, played move by move), and the two pictures of README's "Paths a
robot can follow", demo_raw4.png and demo_costaware.png, drawn by the two `grid-planner plan`
commands README shows under them (`DEMO_COMMANDS`). No ROS: the core planner and solver, as
`make demo` shows them over ROS.
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

from draw_maps import FLOOR_GOAL_CELL, FLOOR_START_CELL, floor_plan

from grid_planner.animation import PUZZLE_FRAME_MS, puzzle_frames, save_gif, search_frames
from grid_planner.cli import main as grid_planner_cli
from grid_planner.grid import PlanningGrid, plan
from grid_planner.puzzle import default_goal, solve
from grid_planner.render import plan_png

ANIMATED = ("bfs", "dfs", "astar")
HARD_BOARD = "8 6 7 2 5 4 3 0 1"
GIF_FRAMES = 60
GIF_WIDTH = 860  # three 280-cell panels at one pixel a cell
ROOT = Path(__file__).resolve().parent.parent
# README's "Paths a robot can follow": its two commands, word for word but the map's path and
# the PNG's name (`grid-planner plan MAP ... --png OUT`).
DEMO_MAP = ROOT / "config" / "maps" / "demo_map.yaml"
DEMO_QUERY = ("--start", "-1.55", "-0.65", "--goal", "2.55", "1.55", "--robot-radius", "0.25",
              "--scale", "10")
DEMO_COMMANDS = {
    "demo_raw4.png": (),
    "demo_costaware.png": ("--connectivity", "8", "--cost-model", "inflation",
                           "--inflation-radius", "0.55", "--cost-scaling-factor", "3",
                           "--smoothing", "shortcut"),
}


def search_animation(grid: PlanningGrid, path: Path) -> None:
    """BFS, DFS and A* from the floor plan's start to its goal, side by side, as a GIF."""
    found = [plan(grid, FLOOR_START_CELL, FLOOR_GOAL_CELL, name, record_expanded=True)
             for name in ANIMATED]
    save_gif(search_frames(grid, found, frames=GIF_FRAMES, width=GIF_WIDTH), path)


def demo_picture(path: Path, options: tuple[str, ...]) -> None:
    """One of README's `grid-planner plan` pictures of the depot map, written to `path`."""
    argv = ["plan", str(DEMO_MAP), *DEMO_QUERY, "--png", str(path), *options]
    with contextlib.redirect_stdout(io.StringIO()) as summary:
        code = grid_planner_cli(argv)
    if code != 0:
        raise RuntimeError(f"grid-planner {' '.join(argv)} exited {code}: {summary.getvalue()}")


def main(argv: list[str] | None = None) -> int:
    """Write the gallery into --out; prints each file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs") / "images")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    grid = PlanningGrid(floor_plan())
    astar = plan(grid, FLOOR_START_CELL, FLOOR_GOAL_CELL, "astar", record_expanded=True)
    written = [args.out / "floor_plan_astar.png", args.out / "search.gif",
               args.out / "puzzle.gif"]
    plan_png(grid, astar, written[0], legend=True)
    search_animation(grid, written[1])
    solved = solve(HARD_BOARD)
    frames = puzzle_frames(solved.boards(), solved.moves, default_goal(3))
    save_gif(frames, written[2], PUZZLE_FRAME_MS)
    for name, options in DEMO_COMMANDS.items():
        written.append(args.out / name)
        demo_picture(written[-1], options)
    for path in written:
        print(f"{path} ({path.stat().st_size / 1024:,.0f} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
