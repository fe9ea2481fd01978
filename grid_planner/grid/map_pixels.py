"""Map image pixels to occupancy values, as Nav2 Jazzy's map_server reads them.

Pixels follow jazzy's map_server from release 1.3.7 on (GraphicsMagick Q16, then Eigen in float32):

- Each pixel becomes an 8-bit grey level `g` as GraphicsMagick's grayscale conversion gives it:
  grey keeps its value, bilevel is 0 or 255, a 16-bit grey `v` gives `v // 257` (23000 -> 89),
  colour takes the Rec.601 luma of its channels scaled to 16 bits (`c16 = 257 * c`),
  `0.299 * r16 + 0.587 * g16 + 0.114 * b16` rounded half up, then `// 257` (pure green -> 149).
  That equals GraphicsMagick 1.3.40 Q16 on all 2**24 colours; other versions may differ by one
  grey level on some colours, as may 16-bit colour images (Pillow reads them at 8 bits) and PGMs
  whose maxval is not 255 (Pillow rescales them).
- trinary and scale: `occ = g / 255` if `negate`, else `1 - g / 255`, in float32, against the
  thresholds cast to float32: `occ >= occupied_thresh` -> 100, `occ <= free_thresh` -> 0 (free
  wins if both hold), else -1. Pixel 205 has occ 0.19608 > 0.196: unknown.
- scale: `occ` strictly between the thresholds gives
  `round((occ - free_thresh) / (occupied_thresh - free_thresh) * 100)`, in float32, half away
  from zero.
- trinary and scale: where the image has alpha (an alpha channel, or a PNG transparency entry of
  a palette, grey or colour image), a pixel with alpha < 255 is -1 whatever its grey.
  GraphicsMagick 1.3.40 ignores most RGB colour keys; this loader applies them.
- raw: `g` if `g <= 100`, else -1; `negate`, the thresholds and alpha are ignored.

Jazzy up to 1.3.6 averaged the 16-bit channels (alpha too, in trinary), compared strictly in
double, rounded scale with rint and gave raw `round(mean / 257)`.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from .errors import MapLoadError

MAP_MODES = ("trinary", "scale", "raw")
DEFAULT_OCCUPIED_THRESH = 0.65
DEFAULT_FREE_THRESH = 0.196

# Rec.601 luma of each 8-bit channel value scaled to GraphicsMagick's 16-bit quanta (c * 257).
_LUMA_TABLES = tuple(weight * (257.0 * np.arange(256)) for weight in (0.299, 0.587, 0.114))


def map_mode(value: object, what: str) -> str:
    """`value` as a map mode, in any case (map_server lower-cases it); `what` names it if not."""
    if isinstance(value, str) and value.lower() in MAP_MODES:
        return value.lower()
    raise MapLoadError(f"{what} must be one of {', '.join(MAP_MODES)}, got {value!r}")


def _rec601_grey(pixels: np.ndarray) -> np.ndarray:
    """GraphicsMagick's 8-bit grey of `(height, width, 3 or 4)` uint8 colour pixels."""
    height, width = pixels.shape[:2]
    grey = np.empty((height, width), dtype=np.uint8)
    rows = max(1, (1 << 20) // max(1, width))  # a million pixels at a time: float64 stays small
    red, green, blue = _LUMA_TABLES
    for top in range(0, height, rows):
        block = pixels[top : top + rows]
        luma = red[block[..., 0]] + green[block[..., 1]] + blue[block[..., 2]]
        grey[top : top + rows] = np.floor(luma + 0.5) // 257.0
    return grey


def _grey_and_alpha(image: Image.Image) -> tuple[np.ndarray, np.ndarray | None]:
    """The uint8 grey level of every pixel and its alpha (None when the image has no alpha)."""
    mode, key = image.mode, image.info.get("transparency")
    if mode in ("1", "L") or mode.startswith("I"):  # "I...": 16-bit grey (wider is clipped)
        samples = np.asarray(image)
        if mode == "1":
            grey = samples.astype(np.uint8) * np.uint8(255)
        else:
            grey = samples if mode == "L" else (np.clip(samples, 0, 65535) // 257).astype(np.uint8)
        keyed = (samples != key).astype(np.uint8) * np.uint8(255) if isinstance(key, int) else None
        return grey, keyed
    if mode == "LA":
        samples = np.asarray(image)
        return samples[..., 0], samples[..., 1]
    if mode not in ("RGB", "RGBA"):  # palette, CMYK, premultiplied alpha...: Pillow converts
        has_alpha = mode.endswith(("A", "a")) or key is not None
        image, key = image.convert("RGBA" if has_alpha else "RGB"), None
    pixels = np.asarray(image)
    alpha = pixels[..., 3] if image.mode == "RGBA" else None
    if isinstance(key, tuple) and len(key) == 3:  # an RGB colour key
        alpha = (pixels != np.array(key)).any(axis=2).astype(np.uint8) * np.uint8(255)
    return _rec601_grey(pixels), alpha


def _value_table(mode: str, negate: bool, occupied_thresh: float, free_thresh: float) -> np.ndarray:
    """The int8 occupancy value of each grey level 0..255 under map_server's rules."""
    levels = np.arange(256)
    if mode == "raw":
        return np.where(levels <= 100, levels, -1).astype(np.int8)
    shade = levels.astype(np.float32) / np.float32(255.0)
    occ = shade if negate else np.float32(1.0) - shade
    occupied_at, free_at = np.float32(occupied_thresh), np.float32(free_thresh)
    table = np.full(256, -1, dtype=np.int8)
    table[occ >= occupied_at] = 100
    table[occ <= free_at] = 0
    if mode == "scale":
        between = (occ > free_at) & (occ < occupied_at)
        span = np.float32(occupied_thresh - free_thresh)
        scaled = (occ - free_at) / span * np.float32(100.0)
        whole = np.floor(scaled)  # scaled > 0 here: half away from zero is floor + (frac >= .5)
        table[between] = (whole + (scaled - whole >= 0.5))[between]
    return table


def image_to_values(
    image: Image.Image,
    *,
    mode: str = "trinary",
    negate: bool = False,
    occupied_thresh: float = DEFAULT_OCCUPIED_THRESH,
    free_thresh: float = DEFAULT_FREE_THRESH,
) -> np.ndarray:
    """The `(height, width)` int8 occupancy values of `image`, top image row first.

    Applies map_server's rules (see the module docstring) for `mode` trinary, scale or raw.
    """
    checked_mode = map_mode(mode, "mode")  # a MapLoadError, which is a ValueError
    grey, alpha = _grey_and_alpha(image)
    values = _value_table(checked_mode, negate, occupied_thresh, free_thresh)[grey]
    if alpha is not None and checked_mode != "raw":
        values[alpha < 255] = -1
    return values
