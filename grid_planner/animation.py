"""Animated GIFs of searches (Pillow): grid searches side by side, and a puzzle solution.

`search_frames` draws one panel per plan, all on the same map: frame 0 shows only the start and
goal, then every panel shows the cells expanded so far (tinted on `render`'s expansion ramp),
all panels advancing by the same number of expansions a frame, each titled with its algorithm
and running count; a panel whose search is done shows its path. The last frame holds. The
panels are drawn at the block level: a map larger than its panel is reduced to blocks of cells
(a block is tinted once any of its cells is expanded; its map colour is the mean), so a 4096^2
map costs a few hundred pixels a side and its frames stay small. A tall map is scaled to at most
`width` pixels high as well, and `check_animation` refuses requests whose frames together would
hold more than MAX_ANIMATION_PIXELS.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from grid_planner.grid import GridPlan, PlanningGrid
from grid_planner.grid.expansion import expansion_ranks
from grid_planner.render import (
    EXPANDED_TINT_WEIGHT,
    GOAL_RGB,
    MAX_IMAGE_PIXELS,
    PATH_RGB,
    START_RGB,
    plan_rgb,
    ramp_rgb,
    text_font,
)

DEFAULT_FRAMES = 60
DEFAULT_WIDTH = 960
FRAME_MS = 80
PUZZLE_FRAME_MS = 400  # a puzzle move: long enough to follow the tile
PUZZLE_WIDTH = 320  # px
HOLD_MS = 2500  # the last frame, with every path
TITLE_PX = 22
GAP_PX = 6
BAR_PX = 3
BAR_RGB = (120, 120, 120)
BACKGROUND_RGB = (255, 255, 255)
TEXT_RGB = (0, 0, 0)
MAX_FRAMES = 600
MIN_WIDTH = 64
# A frame's map fits in width x width pixels. The widest GIF keeps a frame to some 4 million
# pixels: the GIF writer takes about 12 bytes a pixel of a frame to compare it with the last.
MAX_WIDTH = 2048
# All frames together take about the memory of one `plan --png` picture at its cap (3 bytes a
# pixel): each is held as RGB (4 bytes a pixel in Pillow) and by the GIF writer (1 byte).
FRAME_PIXEL_BYTES = 5
MAX_ANIMATION_PIXELS = 3 * MAX_IMAGE_PIXELS // FRAME_PIXEL_BYTES


def check_frames(frames: int, width: int) -> None:
    """ValueError unless 2 <= frames <= MAX_FRAMES, MIN_WIDTH <= width <= MAX_WIDTH and
    frames <= width (each frame's progress bar is a pixel longer at least)."""
    if not 2 <= frames <= MAX_FRAMES:
        raise ValueError(f"frames must be in 2..{MAX_FRAMES}, got {frames}")
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"width must be in {MIN_WIDTH}..{MAX_WIDTH} px, got {width}")
    if frames > width:
        raise ValueError(f"at most one frame per pixel of width: {frames} frames, {width} px")


def _block_scale(grid: PlanningGrid, panels: int, width: int) -> tuple[int, int]:
    """(b, s): each of `panels` panels shows b x b cells as s x s pixels (b > 1 shrinks,
    s > 1 enlarges) so that the panels fit in `width` pixels and the map is `width` high at most.
    """
    panel_width = max(1, (width - GAP_PX * (panels - 1)) // panels)
    block = max(1, math.ceil(grid.width / panel_width), math.ceil(grid.height / width))
    if block > 1:
        return block, 1
    return block, min(panel_width // grid.width, width // grid.height)


def frame_size(grid: PlanningGrid, panels: int, width: int) -> tuple[int, int]:
    """(width, height) in pixels of a frame of `panels` panels of `grid`, `width` wide at most."""
    block, pixels = _block_scale(grid, panels, width)
    map_w, map_h = -(-grid.width // block) * pixels, -(-grid.height // block) * pixels
    return panels * map_w + GAP_PX * (panels - 1), map_h + TITLE_PX + BAR_PX


def check_animation(grid: PlanningGrid, panels: int, frames: int, width: int) -> tuple[int, int]:
    """The `frame_size` of `frames` frames of `panels` panels of `grid`; ValueError unless
    `check_frames` passes, the panels fit in `width` pixels, the frame is as many pixels wide
    as there are frames at least, and all frames together hold MAX_ANIMATION_PIXELS at most."""
    check_frames(frames, width)
    if panels < 1:
        raise ValueError("no plans to animate")
    most = (width + GAP_PX) // (1 + GAP_PX)  # panels of one pixel and their gaps
    if panels > most:
        raise ValueError(f"{panels} panels do not fit in {width} px: at most {most} algorithms")
    size = frame_size(grid, panels, width)
    if frames > size[0]:
        advice = f"ask for at most {size[0]} frames" if size[0] >= 2 else "too narrow to animate"
        raise ValueError(f"this map draws {size[0]} px wide: {advice}")
    total = frames * size[0] * size[1]
    if total > MAX_ANIMATION_PIXELS:
        fit = MAX_ANIMATION_PIXELS // (size[0] * size[1])
        raise ValueError(
            f"{frames} frames of {size[0]} x {size[1]} px are {total:,} pixels, more than the "
            f"{MAX_ANIMATION_PIXELS:,} an animation holds: ask for at most {fit} frames or a "
            "smaller width"
        )
    return size


class _Panel:
    """One plan's panel: the block geometry, its map picture, and each block's first rank."""

    def __init__(
        self, grid: PlanningGrid, found: GridPlan, scale: tuple[int, int], picture: np.ndarray
    ) -> None:
        self.found = found
        self.height_cells, self.width_cells = grid.height, grid.width
        # A block is b x b cells shown as s x s pixels (`_block_scale`).
        self.block, self.pixels = scale
        ranks = expansion_ranks(
            found.expanded if found.expanded is not None else np.empty(0, np.int64),
            grid.cell_count,
        )
        self.total = int(ranks.max()) + 1 if ranks.size else 0
        ranks = np.where(ranks < 0, np.iinfo(np.int64).max, ranks)
        self.ranks = self._reduce(ranks.reshape(grid.height, grid.width)[::-1], np.min)
        self.base = self._reduce(picture, np.mean)

    def _reduce(self, cells: np.ndarray, how) -> np.ndarray:
        """`cells` (rows x columns [x channels]) reduced over each block by `how` (np.min, or
        np.mean, which sums in float32 rather than copying a map-sized array to float64)."""
        b = self.block
        if b == 1:
            return cells.astype(np.float32) if how is np.mean else cells
        rows, cols = -(-cells.shape[0] // b), -(-cells.shape[1] // b)
        pad = [(0, rows * b - cells.shape[0]), (0, cols * b - cells.shape[1])]
        pad += [(0, 0)] * (cells.ndim - 2)
        padded = np.pad(cells, pad, mode="edge")
        shaped = padded.reshape(rows, b, cols, b, *cells.shape[2:])
        if how is np.mean:
            return np.mean(shaped, axis=(1, 3), dtype=np.float32)
        return how(shaped, axis=(1, 3))

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels of the map part of the panel."""
        rows, cols = self.ranks.shape
        return cols * self.pixels, rows * self.pixels

    def point(self, x: float, y: float) -> tuple[float, float]:
        """The pixel of map cell coordinates (x, y) (a cell's centre at integer values)."""
        scale = self.pixels / self.block
        return (x + 0.5) * scale, (self.height_cells - 1 - y + 0.5) * scale

    def image(self, shown: int, with_path: bool) -> Image.Image:
        """The map part with the first `shown` expansions tinted, and the path if asked."""
        rgb = self.base.copy()
        if shown > 0 and self.total:
            lit = self.ranks < shown
            share = self.ranks[lit] / max(1, self.total - 1)
            rgb[lit] = rgb[lit] * (1.0 - EXPANDED_TINT_WEIGHT) + ramp_rgb(share) * (
                EXPANDED_TINT_WEIGHT
            )
        image = Image.fromarray(np.ascontiguousarray(rgb.astype(np.uint8)))
        if self.pixels > 1:
            image = image.resize(self.size, Image.Resampling.NEAREST)
        draw = ImageDraw.Draw(image)
        found = self.found
        if with_path:
            line = [self.point(x, y) for x, y in np.asarray(found.points, dtype=float).tolist()]
            if len(line) > 1:
                draw.line(line, fill=PATH_RGB, width=max(2, self.pixels // 3), joint="curve")
        radius = max(3.0, 0.6 * self.pixels)
        for cell, colour in ((found.start_cell, START_RGB), (found.goal_cell, GOAL_RGB)):
            cx, cy = self.point(*cell)
            draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=colour,
                         outline=(0, 0, 0))
        return image


def fitted(draw: ImageDraw.ImageDraw, text: str, font: object, width: int) -> str:
    """`text`, cut short with an ellipsis where it is wider than `width` pixels, so a narrow
    panel's title stays over its own panel instead of running into the next one."""
    if draw.textlength(text, font=font) <= width:
        return text
    while text and draw.textlength(text + "\u2026", font=font) > width:
        text = text[:-1]
    return text + "\u2026" if text else ""


def search_frames(
    grid: PlanningGrid,
    plans: Sequence[GridPlan],
    frames: int = DEFAULT_FRAMES,
    width: int = DEFAULT_WIDTH,
) -> list[Image.Image]:
    """`frames` RGB frames, `width` pixels wide at most, of `plans` (made with
    `record_expanded`) side by side; see the module doc. ValueError as `check_animation`."""
    total_width, frame_height = check_animation(grid, len(plans), frames, width)
    scale = _block_scale(grid, len(plans), width)
    picture = plan_rgb(grid)  # the map once for every panel, top row first (uint8)
    panels = [_Panel(grid, found, scale, picture) for found in plans]
    map_w, map_h = panels[0].size
    most = max(panel.total for panel in panels)
    font = text_font(13)
    images = []
    for index in range(frames):
        final = index == frames - 1
        # Expansions shown: none at first, all of the longest search in the last frame.
        shown = math.ceil(most * index / (frames - 1))
        frame = Image.new("RGB", (total_width, frame_height), BACKGROUND_RGB)
        draw = ImageDraw.Draw(frame)
        # A bar along the bottom grows every frame, so no two frames are alike (a GIF writer
        # merges equal ones) and the viewer sees how far the animation is. Its last pixel runs
        # from 0 to the frame's last column, at least a pixel a frame (frames <= width): drawn
        # to `total_width`, it filled the frame a frame early and two frames could merge.
        bar = round((total_width - 1) * index / (frames - 1))
        draw.rectangle((0, map_h + TITLE_PX, bar, map_h + TITLE_PX + BAR_PX - 1), fill=BAR_RGB)
        for position, panel in enumerate(panels):
            left = position * (map_w + GAP_PX)
            count = min(shown, panel.total)
            done = final or (index > 0 and count >= panel.total)
            frame.paste(panel.image(count, done), (left, TITLE_PX))
            title = panel_title(panel.found, count, panel.total, done)
            draw.text((left + 4, 4), fitted(draw, title, font, map_w - 4), fill=TEXT_RGB,
                      font=font)
        images.append(frame)
    return images


def panel_title(found: GridPlan, count: int, cells: int, done: bool) -> str:
    """A panel's title: `count` of its `cells` expanded so far; once done, the search's own
    expansion count, with the cells apart when a cell was expanded again (a float sum of
    another order may reach a cell an ulp cheaper after its expansion, and the search then
    reopens it), and the path's steps."""
    if not done:
        return f"{found.algorithm}: {count:,} expanded"
    expansions = found.nodes_expanded
    again = f" ({cells:,} cells)" if expansions > cells else ""
    return f"{found.algorithm}: {expansions:,} expanded{again}, {found.length} steps"


TILE_RGB = (245, 222, 170)
PLACED_RGB = (170, 220, 160)  # a tile on its goal cell
BLANK_RGB = (70, 70, 70)


def puzzle_frames(
    boards: Sequence[Sequence[int]],
    moves: Sequence[str],
    goal: Sequence[int],
) -> list[Image.Image]:
    """One frame per board of a solution (`boards[0]` the start, then one per move in
    `moves`), PUZZLE_WIDTH pixels wide: the tiles numbered, those on their goal cell green,
    the title saying which move led there."""
    width = PUZZLE_WIDTH
    side = math.isqrt(len(goal))
    tile = (width - 2 * GAP_PX) // side
    height = TITLE_PX + 2 * GAP_PX + side * tile
    if len(boards) * width * height > MAX_ANIMATION_PIXELS:
        most = MAX_ANIMATION_PIXELS // (width * height) - 1
        raise ValueError(
            f"a solution of {len(moves):,} moves makes {len(boards):,} frames of {width} x "
            f"{height} px, more than the {MAX_ANIMATION_PIXELS:,} pixels an animation holds: "
            f"at most {most:,} moves animate (an optimal algorithm finds shorter solutions)"
        )
    font = text_font(max(10, tile // 2))
    small = text_font(13)
    images = []
    for step, board in enumerate(boards):
        frame = Image.new("RGB", (width, height), BACKGROUND_RGB)
        draw = ImageDraw.Draw(frame)
        title = "start" if step == 0 else f"move {step}/{len(moves)}: {moves[step - 1]}"
        if step == len(boards) - 1 and step > 0:
            title += " (solved)"
        draw.text((GAP_PX, 4), title, fill=TEXT_RGB, font=small)
        for cell, value in enumerate(board):
            row, col = divmod(cell, side)
            left, top = GAP_PX + col * tile, TITLE_PX + GAP_PX + row * tile
            box = (left + 1, top + 1, left + tile - 2, top + tile - 2)
            if value == 0:
                draw.rectangle(box, fill=BLANK_RGB)
                continue
            colour = PLACED_RGB if goal[cell] == value else TILE_RGB
            draw.rectangle(box, fill=colour, outline=(90, 90, 90))
            draw.text((left + tile / 2, top + tile / 2), str(value), fill=TEXT_RGB, font=font,
                      anchor="mm")
        images.append(frame)
    return images


def save_gif(images: Sequence[Image.Image], path: str | Path, frame_ms: int = FRAME_MS) -> None:
    """Write `images` as a looping GIF, the last one held HOLD_MS.

    Each frame gets its own 256-colour palette without dithering: the flat areas of a map
    compress about three times better than Pillow's default dithered conversion. The frames
    are converted one at a time as the writer (which keeps its own copy of each) takes them.
    """
    durations = [frame_ms] * (len(images) - 1) + [HOLD_MS]
    frames = (
        image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        for image in images
    )
    next(frames).save(
        Path(path), format="GIF", save_all=True, append_images=frames,
        duration=durations, loop=0, disposal=1,
    )
