"""Animated GIFs: `grid-planner animate` (searches side by side) and `puzzle --gif`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner import animation, render
from grid_planner.cli import main
from grid_planner.grid import OccupancyMap, PlanningGrid, plan
from grid_planner.grid.map_io import load_map, save_map

TUTORIAL_MAP = str(PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml")
CELLS = ["--cells", "--start", "0", "7", "--goal", "9", "0"]
COLUMN_CELLS = ["--cells", "--start", "0", "0", "--goal", "0", "5"]
# The CLI in a child process with at most this much address space: code that draws unbounded
# frames dies there with a MemoryError instead of exhausting the machine.
CHILD_ADDRESS_SPACE = 2 * 1024**3
_CAPPED_MAIN = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({CHILD_ADDRESS_SPACE}, {CHILD_ADDRESS_SPACE}))
from grid_planner.cli import main
sys.exit(main(sys.argv[1:]))
"""


def room() -> PlanningGrid:
    """60 x 40 cells: a wall with a door, so every search has work to do."""
    values = np.zeros((40, 60), dtype=np.int8)
    values[5:, 30] = 100
    return PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))


def column(rows: int = 300) -> PlanningGrid:
    """A corridor one cell wide and `rows` tall."""
    return PlanningGrid(OccupancyMap.from_rows(np.zeros((rows, 1), dtype=np.int8)))


def column_map(folder: Path, rows: int = 300) -> str:
    """`column(rows)` saved as a map YAML in `folder`."""
    path = folder / f"column{rows}.yaml"
    save_map(column(rows).map, path)
    return str(path)


def colours(image: Image.Image) -> set[tuple[int, int, int]]:
    return {tuple(int(v) for v in c) for c in np.asarray(image).reshape(-1, 3)}


def map_area(image: Image.Image) -> Image.Image:
    """The panels without their titles and the progress bar."""
    return image.crop((0, animation.TITLE_PX, image.width, image.height - animation.BAR_PX))


def test_frames_start_bare_grow_and_end_on_every_path():
    grid = room()
    plans = [plan(grid, (2, 2), (58, 2), name, record_expanded=True)
             for name in ("bfs", "dfs", "astar")]
    images = animation.search_frames(grid, plans, frames=12, width=480)
    assert len(images) == 12 and all(im.size == images[0].size for im in images)
    assert images[0].width <= 480
    base = colours(Image.fromarray(render.plan_rgb(grid)))
    markers = {render.START_RGB, render.GOAL_RGB, (0, 0, 0)}
    # The first frame: the start and goal only, nothing expanded.
    assert colours(map_area(images[0])) <= base | markers
    panel = (images[0].width + animation.GAP_PX) // 3
    last = np.asarray(images[-1])
    for index in range(3):
        part = last[:, index * panel : (index + 1) * panel - animation.GAP_PX]
        assert np.all(part == render.PATH_RGB, axis=-1).any(), index
    tinted = [len(colours(map_area(im)) - base - markers) for im in images]
    assert tinted[0] == 0 and tinted[-1] > tinted[len(tinted) // 2] > 0


# 15 x 22 cells, top row first: 8-connected A* from (8, 20) to (5, 7) reaches three cells an
# ulp cheaper after their expansion (1 and sqrt 2 summed in another order) and expands them
# again: 22 expansions of 19 cells.
REOPEN_ROWS = [
    "....##...#....#", ".####.....#....", "....#........#.", ".#.#.....##....",
    ".......#.....#.", "....#..........", "........#......", "#..#....#......",
    "........###....", ".....#....###.#", ".#.#...##......", ".........#.#...",
    "..#.......#.#..", "..#............", ".#.#..#.......#", "...........#...",
    "...#.#....#....", "........##..#..", ".#...#...##....", ".#......#...#..",
    "..........#.#..", ".........#.....",
]


def test_a_done_panel_titles_the_searchs_own_expansion_count():
    values = np.array([[100 if c == "#" else 0 for c in row] for row in REOPEN_ROWS], np.int8)
    grid = PlanningGrid(OccupancyMap.from_rows(values))
    found = plan(grid, (8, 20), (5, 7), "astar", connectivity=8, record_expanded=True)
    cells = len(set(found.expanded.tolist()))
    assert (found.nodes_expanded, cells, found.length) == (22, 19, 13)
    done = animation.panel_title(found, 19, cells, True)
    assert done == "astar: 22 expanded (19 cells), 13 steps"
    assert animation.panel_title(found, 7, cells, False) == "astar: 7 expanded"
    plain = plan(grid, (8, 20), (5, 7), "astar", record_expanded=True)
    assert animation.panel_title(plain, 0, plain.nodes_expanded, True) == (
        f"astar: {plain.nodes_expanded:,} expanded, {plain.length} steps"
    )


def test_a_narrow_panel_title_stays_over_its_own_panel():
    # At 100 px a panel, "bidirectional_bfs: 1,234 expanded, 56 steps" ran on over the next
    # panel's title; it is cut short with an ellipsis instead.
    grid = room()
    plans = [plan(grid, (2, 2), (58, 2), name, record_expanded=True)
             for name in ("bidirectional_bfs", "bfs")]
    last = np.asarray(animation.search_frames(grid, plans, frames=3, width=206)[-1])
    panel = (last.shape[1] + animation.GAP_PX) // 2
    gap = last[: animation.TITLE_PX, panel - animation.GAP_PX : panel]
    assert np.all(gap == animation.BACKGROUND_RGB)
    assert (last[: animation.TITLE_PX, :panel] != animation.BACKGROUND_RGB).any()


def test_animate_writes_the_frames_and_width_asked_for(capsys, tmp_path):
    out = tmp_path / "search.gif"
    code = main(["animate", TUTORIAL_MAP, *CELLS, "--gif", str(out), "--frames", "15",
                 "--width", "500"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    gif = Image.open(out)
    assert gif.n_frames == 15 and gif.width <= 500
    assert "astar: 16 steps" in printed and "(15 frames" in printed


@pytest.mark.parametrize("frames", [60, 72])
def test_every_frame_asked_for_is_in_the_gif_up_to_one_a_pixel(capsys, tmp_path, frames):
    """The progress bar used to fill the frame a frame early: the last two frames were equal
    and the GIF writer merged them (59 of 60 frames, 71 of 72, on this map drawn 72 px wide)."""
    out = tmp_path / "search.gif"
    code = main(["animate", TUTORIAL_MAP, *CELLS, "--gif", str(out), "--frames", str(frames),
                 "--width", "100"])
    assert code == 0, capsys.readouterr().out
    gif = Image.open(out)
    assert gif.width == 72 and gif.n_frames == frames


def test_a_big_map_stays_a_small_gif(capsys, tmp_path):
    values = np.zeros((1500, 1500), dtype=np.int8)
    values[200:1300, 700] = 100
    map_file = tmp_path / "big.yaml"
    save_map(OccupancyMap.from_rows(values, resolution=0.05), map_file)
    out = tmp_path / "big.gif"
    code = main(["animate", str(map_file), "--cells", "--start", "10", "10", "--goal", "1400",
                 "1400", "--algorithms", "bfs,astar", "--gif", str(out), "--frames", "10",
                 "--width", "400"])
    assert code == 0, capsys.readouterr()
    gif = Image.open(out)
    assert gif.n_frames == 10 and gif.width <= 400
    assert out.stat().st_size < 400_000


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--frames", "700"], "frames must be in 2..600"),
        (["--frames", "300", "--width", "100"], "one frame per pixel of width: 300 frames, 100 px"),
        (["--algorithms", "rrt"], "unknown grid algorithm 'rrt'"),
    ],
)
def test_bad_animation_requests_are_refused_in_one_line(capsys, tmp_path, extra, message):
    code = main(["animate", TUTORIAL_MAP, *CELLS, "--gif", str(tmp_path / "x.gif"), *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_tall_map_is_scaled_to_the_width_and_the_defaults_always_fit():
    tutorial = PlanningGrid(load_map(TUTORIAL_MAP))
    # As before for ordinary maps: 96 px a cell for one panel, 31 for three.
    assert animation.frame_size(tutorial, 1, 960) == (960, 8 * 96 + 25)
    assert animation.frame_size(tutorial, 3, 960) == (3 * 310 + 12, 8 * 31 + 25)
    # A 1 x 300 corridor was 316 px a cell (948 x 94,825 px frames): now its map is 960 high.
    assert animation.frame_size(column(), 3, 960) == (3 * 3 + 12, 300 * 3 + 25)
    assert animation.frame_size(column(5000), 1, 960) == (1, 834 + 25)  # blocks of 6 cells
    for grid in (tutorial, column(), column(5000), room()):
        for panels in (1, 2, 3):
            width, height = animation.frame_size(grid, panels, animation.DEFAULT_WIDTH)
            assert width <= animation.DEFAULT_WIDTH
            assert height <= animation.DEFAULT_WIDTH + animation.TITLE_PX + animation.BAR_PX
            frames = animation.DEFAULT_FRAMES
            assert frames * width * height <= animation.MAX_ANIMATION_PIXELS


def test_a_corridor_map_animates_in_bounded_frames_under_a_memory_cap(tmp_path):
    out = tmp_path / "column.gif"
    argv = ["animate", column_map(tmp_path), *COLUMN_CELLS, "--frames", "10", "--gif", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", _CAPPED_MAIN, *argv], capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    gif = Image.open(out)
    assert gif.n_frames == 10
    assert gif.size == (3 * 3 + 12, 300 * 3 + 25)  # three panels of 3 px a cell
    assert "(10 frames, 21 x 925 px" in done.stdout


@pytest.mark.parametrize(
    ("rows", "algorithms", "frames", "width", "message"),
    [
        (None, "bfs,dfs,astar", 60, 100_000, "width must be in 64..2048 px, got 100000"),
        (None, "bfs,dfs,astar", 2, 2049, "width must be in 64..2048 px, got 2049"),
        (None, "astar", 600, 960,
         "600 frames of 960 x 793 px are 456,768,000 pixels, more than the 60,000,000 an "
         "animation holds: ask for at most 78 frames or a smaller width"),
        (300, "bfs,dfs,astar", 60, 960, "this map draws 21 px wide: ask for at most 21 frames"),
        (5000, "astar", 2, 960, "this map draws 1 px wide: too narrow to animate"),
        (None, ",".join(["astar"] * 139), 2, 960,
         "139 panels do not fit in 960 px: at most 138 algorithms"),
    ],
)
def test_oversize_animations_are_refused_in_one_line_before_any_drawing(
    capsys, tmp_path, rows, algorithms, frames, width, message
):
    """`rows`: a corridor of that many cells, None the tutorial map."""
    map_file, cells = TUTORIAL_MAP, CELLS
    if rows is not None:
        map_file, cells = column_map(tmp_path, rows), COLUMN_CELLS
    # The library refuses first (code without these checks would draw gigabytes below).
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        animation.check_animation(
            PlanningGrid(load_map(map_file)), len(algorithms.split(",")), frames, width
        )
    out = tmp_path / "x.gif"
    code = main(["animate", map_file, *cells, "--algorithms", algorithms, "--frames",
                 str(frames), "--width", str(width), "--gif", str(out)])
    assert code == 2
    assert capsys.readouterr().err == f"grid-planner: error: {message}\n"
    assert not out.exists()


def test_puzzle_gif_plays_the_solution_move_by_move(capsys, tmp_path):
    out = tmp_path / "puzzle.gif"
    assert main(["puzzle", "1 2 3 4 0 6 7 5 8", "--gif", str(out)]) == 0
    assert "(3 frames" in capsys.readouterr().out
    gif = Image.open(out)
    assert gif.n_frames == 3  # the start, Down, Right
    gif.seek(2)
    last = gif.convert("RGB")
    assert animation.PLACED_RGB in colours(last)  # every tile home: green
    assert animation.TILE_RGB not in colours(last)


def test_a_solution_too_long_to_animate_is_refused_in_one_line_under_a_memory_cap(tmp_path):
    # Depth-first with a deep limit: a 99,999-move solution, 100,000 frames of 320 x 340 px.
    out = tmp_path / "dfs.gif"
    argv = ["puzzle", "8 6 7 2 5 4 3 0 1", "--algorithm", "dfs", "--max-depth", "100000",
            "--gif", str(out)]
    done = subprocess.run(
        [sys.executable, "-c", _CAPPED_MAIN, *argv], capture_output=True, text=True,
        timeout=300, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}, check=False,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (2, ""), done.stderr[-2000:]
    assert done.stderr == (
        "grid-planner: error: no GIF: a solution of 99,999 moves makes 100,000 frames of 320 x "
        "340 px, more than the 60,000,000 pixels an animation holds: at most 550 moves animate "
        "(an optimal algorithm finds shorter solutions)\n"
    )
    assert not out.exists()


def test_the_gallery_draws_the_floor_plan_its_searches_and_the_puzzle(capsys, tmp_path):
    from gallery import GIF_FRAMES, GIF_WIDTH
    from gallery import main as gallery

    assert gallery(["--out", str(tmp_path)]) == 0
    search = Image.open(tmp_path / "search.gif")
    assert search.n_frames == GIF_FRAMES and search.width <= GIF_WIDTH
    assert Image.open(tmp_path / "puzzle.gif").n_frames == 32  # the start and 31 moves
    picture = Image.open(tmp_path / "floor_plan_astar.png")
    assert picture.height == 2 * 180 + render.LEGEND_PX  # 2 px a cell, then the legend
