"""Animated GIFs: `grid-planner animate` (searches side by side) and `puzzle --gif`."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image
from shared_data import PROJECT_ROOT

from grid_planner import animation, render
from grid_planner.cli import main
from grid_planner.grid import OccupancyMap, PlanningGrid, plan
from grid_planner.grid.map_io import save_map

TUTORIAL_MAP = str(PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml")
CELLS = ["--cells", "--start", "0", "7", "--goal", "9", "0"]


def room() -> PlanningGrid:
    """60 x 40 cells: a wall with a door, so every search has work to do."""
    values = np.zeros((40, 60), dtype=np.int8)
    values[5:, 30] = 100
    return PlanningGrid(OccupancyMap.from_rows(values, top_row_first=False))


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


def test_animate_writes_the_frames_and_width_asked_for(capsys, tmp_path):
    out = tmp_path / "search.gif"
    code = main(["animate", TUTORIAL_MAP, *CELLS, "--gif", str(out), "--frames", "15",
                 "--width", "500"])
    printed = capsys.readouterr().out
    assert code == 0, printed
    gif = Image.open(out)
    assert gif.n_frames == 15 and gif.width <= 500
    assert "astar: 16 steps" in printed and "(15 frames" in printed


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


def test_the_gallery_draws_the_floor_plan_its_searches_and_the_puzzle(capsys, tmp_path):
    from gallery import GIF_FRAMES, GIF_WIDTH
    from gallery import main as gallery

    assert gallery(["--out", str(tmp_path)]) == 0
    search = Image.open(tmp_path / "search.gif")
    assert search.n_frames == GIF_FRAMES and search.width <= GIF_WIDTH
    assert Image.open(tmp_path / "puzzle.gif").n_frames == 32  # the start and 31 moves
    picture = Image.open(tmp_path / "floor_plan_astar.png")
    assert picture.height == 2 * 180 + render.LEGEND_PX  # 2 px a cell, then the legend
