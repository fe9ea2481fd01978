"""Pictures of plans and comparisons for the offline CLI: a PNG map, an ASCII map, a bar chart.

Pillow and NumPy only, and vectorised: a 4096 x 4096 map is drawn from whole arrays (a palette
lookup, fancy indexing, one nearest-neighbour resize), never pixel by pixel in Python.

Map colours (`plan_png`): free white, lethal obstacle black, inflated (within robot_radius of an
obstacle) light grey, unknown mid-grey; on a grid with a cost field (cost models `inflation` and
`costmap`) a free cell is shaded from white towards amber with its cost. Cells the search
expanded are tinted by when they were expanded (`grid.expansion`), from deep blue for the first
through blue to pale green for the last, so the picture shows the search's wave; the path's
cells are red, the start a green disc and the goal a blue
disc. A smoothed path is drawn as a dark red line over its searched cells, which turn pink: the
raw path and the smoothed one in one picture. The image's top row is the map's highest row
(grid row 0 is the bottom of the map, as in nav_msgs/OccupancyGrid).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from grid_planner.grid import GridPlan, PlanningGrid
from grid_planner.grid.expansion import SHADE_FIRST, SHADE_LAST, expansion_shades
from grid_planner.grid.occupancy import unknown_cells

# --- colours ----------------------------------------------------------------------------------

FREE_RGB = (255, 255, 255)
INFLATED_RGB = (200, 200, 200)
UNKNOWN_RGB = (128, 128, 128)
OBSTACLE_RGB = (0, 0, 0)
# The expansion tint's colour ramp, first expanded to last, and how much it covers a cell.
EXPANDED_RAMP_RGB = np.array([(40, 30, 170), (40, 140, 240), (150, 230, 170)], dtype=np.float64)
EXPANDED_TINT_WEIGHT = 0.6
PATH_RGB = (220, 20, 20)
RAW_PATH_RGB = (245, 160, 170)
SMOOTHED_PATH_RGB = (150, 0, 20)
COST_RGB = (235, 150, 40)  # a free cell of raw cost 252; lower costs are lighter
START_RGB = (0, 170, 60)
GOAL_RGB = (30, 90, 255)

# Cell categories, in the order of the palette rows.
_FREE, _INFLATED, _UNKNOWN, _OBSTACLE = 0, 1, 2, 3
_BASE_PALETTE = np.array([FREE_RGB, INFLATED_RGB, UNKNOWN_RGB, OBSTACLE_RGB], dtype=np.float64)

# Automatic scale: enlarge small maps to about this many pixels on their long side.
AUTO_SCALE_TARGET_PX = 800
MAX_AUTO_SCALE = 16
# Refuse pictures that would not fit comfortably in memory (RGB bytes = 3 x pixels).
MAX_IMAGE_PIXELS = 100_000_000

# ASCII map characters.
ASCII_BLOCKED = "#"
ASCII_FREE = "."
ASCII_PATH = "*"
ASCII_START = "S"
ASCII_GOAL = "G"
ASCII_LEGEND = "# blocked, . free, * path, S start, G goal"


def cell_categories(grid: PlanningGrid) -> np.ndarray:
    """A flat uint8 array: 0 free, 1 inflated, 2 unknown, 3 obstacle (the palette rows)."""
    categories = np.full(grid.cell_count, _FREE, dtype=np.uint8)
    categories[grid.inflated_mask] = _INFLATED
    categories[unknown_cells(grid.map.data)] = _UNKNOWN
    categories[grid.obstacle_mask] = _OBSTACLE
    return categories


def auto_scale(width: int, height: int) -> int:
    """The pixels per cell `plan_png` uses by default: small maps enlarged, big ones 1:1."""
    return max(1, min(MAX_AUTO_SCALE, AUTO_SCALE_TARGET_PX // max(width, height)))


def _shade_costs(grid: PlanningGrid, rgb: np.ndarray, categories: np.ndarray) -> None:
    """Shade the free cells of `rgb` (flat, float) by the grid's raw costs, in place."""
    if grid.raw_costs is None:
        return
    free = categories == _FREE
    share = np.clip(grid.raw_costs[free].astype(np.float64) / 252.0, 0.0, 1.0)[:, None]
    rgb[free] = rgb[free] * (1.0 - share) + np.array(COST_RGB) * share


def ramp_rgb(share: np.ndarray) -> np.ndarray:
    """The expansion ramp's colours (n x 3, float) at `share` (0 first expanded .. 1 last)."""
    stops = np.linspace(0.0, 1.0, len(EXPANDED_RAMP_RGB))
    return np.stack(
        [np.interp(share, stops, EXPANDED_RAMP_RGB[:, channel]) for channel in range(3)], axis=1
    )


def tint_expanded(rgb: np.ndarray, expanded: np.ndarray | None, cell_count: int) -> None:
    """Tint the cells of `rgb` (flat, float) that `expanded` (cells in expansion order) lists,
    by their rank on the expansion ramp, in place."""
    if expanded is None or expanded.size == 0:
        return
    shades = expansion_shades(expanded, cell_count)
    cells = np.flatnonzero(shades)
    share = (shades[cells] - SHADE_FIRST) / (SHADE_LAST - SHADE_FIRST)
    rgb[cells] = rgb[cells] * (1.0 - EXPANDED_TINT_WEIGHT) + ramp_rgb(share) * (
        EXPANDED_TINT_WEIGHT
    )


def plan_rgb(grid: PlanningGrid, found: GridPlan | None = None) -> np.ndarray:
    """The `(height, width, 3)` uint8 picture of `grid` (one pixel per cell), top row = highest.

    With `found`: its expanded cells (when the plan recorded them) tinted by expansion order,
    its path red (pink when it was smoothed: the line is drawn by `plan_image`), the start and
    goal cells in their colours.
    """
    categories = cell_categories(grid)
    rgb = _BASE_PALETTE[categories]  # (cells, 3), float
    _shade_costs(grid, rgb, categories)
    if found is not None:
        tint_expanded(rgb, found.expanded, grid.cell_count)
    rgb = rgb.astype(np.uint8)
    if found is not None:
        rgb[found.indices] = PATH_RGB if found.smoothing == "none" else RAW_PATH_RGB
        rgb[found.indices[0]] = START_RGB
        rgb[found.indices[-1]] = GOAL_RGB
    return rgb.reshape(grid.height, grid.width, 3)[::-1]


def check_image_size(width: int, height: int, scale: int) -> None:
    """Refuse (ValueError) a picture of a `width` x `height` map at `scale` pixels per cell
    that is not 1 or more pixels per cell or is over MAX_IMAGE_PIXELS."""
    if scale < 1:
        raise ValueError(f"scale must be >= 1 pixel per cell, got {scale}")
    pixels = width * height * scale * scale
    if pixels > MAX_IMAGE_PIXELS:
        advice = "use a smaller scale" if scale > 1 else "the map is too big to draw"
        raise ValueError(
            f"a {width} x {height} map at {scale} px per cell is {pixels:,} pixels, more than "
            f"the {MAX_IMAGE_PIXELS:,} this renderer draws; {advice}"
        )


def plan_image(
    grid: PlanningGrid, found: GridPlan | None = None, scale: int | None = None
) -> Image.Image:
    """The plan as a PIL image, `scale` pixels per cell (None: `auto_scale`)."""
    scale = auto_scale(grid.width, grid.height) if scale is None else int(scale)
    check_image_size(grid.width, grid.height, scale)
    image = Image.fromarray(np.ascontiguousarray(plan_rgb(grid, found)))
    if scale > 1:
        image = image.resize((grid.width * scale, grid.height * scale), Image.Resampling.NEAREST)
    if found is not None:
        draw = ImageDraw.Draw(image)
        if found.smoothing != "none":
            line = [((x + 0.5) * scale, (grid.height - 1 - y + 0.5) * scale)
                    for x, y in found.points.tolist()]
            draw.line(line, fill=SMOOTHED_PATH_RGB, width=max(1, scale // 3), joint="curve")
        # Discs around the ends keep them visible on big maps drawn at one pixel per cell.
        radius = max(3.0, 0.7 * scale)
        for index, colour in ((found.indices[0], START_RGB), (found.indices[-1], GOAL_RGB)):
            y, x = divmod(int(index), grid.width)
            cx = (x + 0.5) * scale
            cy = (grid.height - 1 - y + 0.5) * scale
            draw.ellipse(
                (cx - radius, cy - radius, cx + radius, cy + radius),
                fill=colour,
                outline=(0, 0, 0),
            )
    return image


LEGEND_PX = 46
_LEGEND_SWATCHES = (
    ("free", FREE_RGB), ("obstacle", OBSTACLE_RGB), ("inflated", INFLATED_RGB),
    ("unknown", UNKNOWN_RGB), ("path", PATH_RGB), ("start", START_RGB), ("goal", GOAL_RGB),
)


def with_legend(image: Image.Image) -> Image.Image:
    """`image` above a legend: the map colours, the path and its ends, and the expansion
    ramp from the first cell expanded to the last."""
    font = text_font(12)
    probe = ImageDraw.Draw(image)
    swatches_width = sum(22 + math.ceil(probe.textlength(name, font=font)) + 10
                         for name, _ in _LEGEND_SWATCHES)
    width = max(image.width, swatches_width + 12)
    framed = Image.new("RGB", (width, image.height + LEGEND_PX), FREE_RGB)
    framed.paste(image, (0, 0))
    draw = ImageDraw.Draw(framed)
    x, y = 6, image.height + 6
    for name, colour in _LEGEND_SWATCHES:
        draw.rectangle((x, y, x + 14, y + 12), fill=colour, outline=(90, 90, 90))
        draw.text((x + 18, y), name, fill=(0, 0, 0), font=font)
        x += 22 + math.ceil(draw.textlength(name, font=font)) + 10
    y += 20
    label = "expanded, first to last:"
    draw.text((6, y), label, fill=(0, 0, 0), font=font)
    left = 6 + math.ceil(draw.textlength(label, font=font)) + 8
    span = max(40, min(240, width - left - 6))
    tint = ramp_rgb(np.linspace(0.0, 1.0, span)) * EXPANDED_TINT_WEIGHT + np.array(FREE_RGB) * (
        1.0 - EXPANDED_TINT_WEIGHT
    )
    for i, colour in enumerate(tint.astype(np.uint8).tolist()):
        draw.line((left + i, y + 1, left + i, y + 12), fill=tuple(colour))
    return framed


def plan_png(
    grid: PlanningGrid,
    found: GridPlan | None,
    path: str | Path,
    scale: int | None = None,
    legend: bool = False,
) -> tuple[int, int]:
    """Write the plan picture (see the module docstring) as a PNG, with a legend below it when
    `legend`; returns its (width, height)."""
    image = plan_image(grid, found, scale)
    if legend:
        image = with_legend(image)
    # Level 3 writes a 4096 x 4096 map about twice as fast as the default 6, 20% larger.
    image.save(Path(path), format="PNG", compress_level=3)
    return image.size


# --- ASCII ------------------------------------------------------------------------------------


def _window(low: int, high: int, size: int, cap: int) -> tuple[int, int]:
    """An inclusive range of at most `cap` cells inside 0..size-1 that is centred on low..high."""
    span = min(size, cap)
    if high - low + 1 >= span:
        return low, high
    start = (low + high + 1) // 2 - span // 2
    start = max(0, min(start, size - span))
    return start, start + span - 1


def plan_ascii(
    grid: PlanningGrid,
    found: GridPlan | None = None,
    max_width: int = 100,
    max_height: int = 50,
) -> str:
    """The map as text, top row first: `#` blocked, `.` free, `*` path, `S` start, `G` goal.

    The first line says which cells are shown. A map larger than `max_width` x `max_height`
    characters is cropped to a window around the path (the whole map without a plan); when
    the path itself is larger, each character stands for a k x k block of cells (`S`/`G`/`*`
    if the block holds one, else `#` when most of it is blocked).
    """
    if max_width < 1 or max_height < 1:
        raise ValueError("max_width and max_height must be >= 1")
    width, height = grid.width, grid.height
    if found is not None:
        ys, xs = np.divmod(found.indices, width)
        x_low, x_high = int(xs.min()), int(xs.max())
        y_low, y_high = int(ys.min()), int(ys.max())
    else:
        x_low, x_high, y_low, y_high = 0, width - 1, 0, height - 1
    block = max(
        1,
        math.ceil((x_high - x_low + 1) / max_width),
        math.ceil((y_high - y_low + 1) / max_height),
    )
    x0, x1 = _window(x_low, x_high, width, max_width * block)
    y0, y1 = _window(y_low, y_high, height, max_height * block)

    # Character codes of the window, row 0 = the window's lowest map row.
    blocked = grid.blocked_mask.reshape(height, width)[y0 : y1 + 1, x0 : x1 + 1]
    rows, cols = blocked.shape
    marks = np.zeros((rows, cols), dtype=np.uint8)  # 0 none, 1 path, 2 goal, 3 start
    if found is not None:
        ys, xs = np.divmod(found.indices, width)
        marks[ys - y0, xs - x0] = 1
        marks[ys[-1] - y0, xs[-1] - x0] = 2
        marks[ys[0] - y0, xs[0] - x0] = 3
    if block > 1:
        pad_rows, pad_cols = (-rows) % block, (-cols) % block
        blocked_share = np.pad(blocked.astype(np.float32), ((0, pad_rows), (0, pad_cols)))
        marks = np.pad(marks, ((0, pad_rows), (0, pad_cols)))
        shape = (marks.shape[0] // block, block, marks.shape[1] // block, block)
        blocked = blocked_share.reshape(shape).mean(axis=(1, 3)) > 0.5
        marks = marks.reshape(shape).max(axis=(1, 3))
    table = np.frombuffer(
        (ASCII_FREE + ASCII_BLOCKED + ASCII_PATH + ASCII_GOAL + ASCII_START).encode(), np.uint8
    )
    codes = np.where(marks > 0, marks.astype(np.int64) + 1, blocked.astype(np.int64))
    chars = table[codes][::-1]
    lines = [row.tobytes().decode("ascii") for row in chars]

    shown = f"cells x {x0}..{x1}, y {y0}..{y1} of {width} x {height}"
    if block > 1:
        shown += f", 1 character = {block} x {block} cells"
    caption = f"Map ({shown}; top row first): {ASCII_LEGEND}"
    return "\n".join([caption, *lines])


# --- bar chart --------------------------------------------------------------------------------

BAR_RGB = (70, 130, 180)
BAR_LIMIT_RGB = (235, 140, 30)
BAR_FAILED_RGB = (160, 160, 160)


def text_font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    """Pillow's default font at `size` px (its small bitmap font where FreeType is missing)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow < 10.1 or no FreeType: the small bitmap font
        return ImageFont.load_default()


def bar_chart_png(
    path: str | Path,
    labels: Sequence[str],
    values: Sequence[float],
    *,
    notes: Sequence[str] | None = None,
    kinds: Sequence[str] | None = None,
    title: str = "",
) -> tuple[int, int]:
    """Write a horizontal bar chart of nodes expanded (one bar per label) as a PNG; returns its
    (width, height).

    `values` are drawn on a log10 scale (the axis starts at 1; a value of 0 draws no bar): runs
    differ by orders of magnitude. `notes` are printed after each bar's value (e.g.
    "LIMIT_REACHED"); `kinds` colour the bars: "ok" (default), "limit" or "failed".
    """
    if len(values) != len(labels):
        raise ValueError("labels and values must have the same length")
    notes = list(notes) if notes is not None else [""] * len(labels)
    kinds = list(kinds) if kinds is not None else ["ok"] * len(labels)
    font, small = text_font(14), text_font(12)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))

    def text_width(text: str, which=font) -> int:
        return math.ceil(probe.textlength(text, font=which))

    row_height, margin, bar_area = 24, 12, 520
    label_width = max([text_width(label) for label in labels] + [40]) + 12
    value_texts = [
        f"{value:,.0f}" + (f"  {note}" if note else "")
        for value, note in zip(values, notes, strict=True)
    ]
    value_width = max([text_width(text) for text in value_texts] + [40]) + 12
    top = margin + (26 if title else 0)
    axis_height = 36
    width = max(
        margin + label_width + bar_area + value_width + margin,
        margin + text_width(title) + margin,
    )
    height = top + row_height * max(1, len(labels)) + axis_height + margin
    image = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    if title:
        draw.text((margin, margin), title, fill=(0, 0, 0), font=font)

    largest = max([float(v) for v in values] + [1.0])
    decades = max(1, math.ceil(math.log10(largest) - 1e-12))

    def extent(value: float) -> float:
        return math.log10(value) / decades if value >= 1.0 else 0.0

    ticks = [(10**d, extent(10**d)) for d in range(decades + 1)]

    x_axis = margin + label_width
    y_axis = top + row_height * max(1, len(labels))
    for tick_value, share in ticks:
        x = x_axis + share * bar_area
        draw.line((x, top - 4, x, y_axis), fill=(225, 225, 225))
        tick = f"{tick_value:,.0f}" if tick_value < 1e6 else f"1e{round(math.log10(tick_value))}"
        draw.text(
            (x - text_width(tick, small) / 2, y_axis + 4), tick, fill=(60, 60, 60), font=small
        )
    caption = "nodes expanded (log scale)"
    draw.text(
        (x_axis + (bar_area - text_width(caption, small)) / 2, y_axis + 18),
        caption,
        fill=(60, 60, 60),
        font=small,
    )
    colours = {"ok": BAR_RGB, "limit": BAR_LIMIT_RGB, "failed": BAR_FAILED_RGB}
    for row, (label, value, text, kind) in enumerate(
        zip(labels, values, value_texts, kinds, strict=True)
    ):
        y = top + row * row_height
        draw.text((margin, y + 4), label, fill=(0, 0, 0), font=font)
        bar = extent(float(value)) * bar_area
        if bar >= 1.0:
            draw.rectangle(
                (x_axis, y + 4, x_axis + bar, y + row_height - 4), fill=colours.get(kind, BAR_RGB)
            )
        draw.text((x_axis + bar + 6, y + 4), text, fill=(0, 0, 0), font=font)
    draw.line((x_axis, top - 4, x_axis, y_axis), fill=(0, 0, 0))
    draw.line((x_axis, y_axis, x_axis + bar_area, y_axis), fill=(0, 0, 0))
    image.save(Path(path), format="PNG")
    return image.size
