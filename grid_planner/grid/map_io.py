"""Load and save maps in map_server format (a YAML file plus an image), as Nav2 Jazzy does.

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
- Image row 0 (the top) becomes grid row `height - 1`: grid row 0 is the bottom image row.

Jazzy up to 1.3.6 averaged the 16-bit channels (alpha too, in trinary), compared strictly in
double, rounded scale with rint and gave raw `round(mean / 257)`.

YAML: `image`, `resolution`, `origin` (3 elements), `negate` (int or bool), `occupied_thresh` and
`free_thresh` are required, as in map_server; `mode` defaults to trinary, any case is accepted,
null is refused. A leading `~/` of the YAML file name becomes `$HOME` (when set); as in
map_server the image path is not expanded, and a relative image is joined to the YAML's folder
as written (`~/maps/m.yaml` looks for `~/maps/m.pgm` literally). Beyond map_server this loader
rejects a resolution <= 0, thresholds outside [0, 1], `free_thresh >= occupied_thresh` and images
over Pillow's decompression-bomb limit (about 179 million pixels). Every failure is a
`MapLoadError` naming the file and field.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from PIL import Image

from .errors import MapLoadError
from .occupancy import OccupancyMap

MAP_MODES = ("trinary", "scale", "raw")

# map_saver's pixel values for trinary images.
PIXEL_FREE = 254
PIXEL_OCCUPIED = 0
PIXEL_UNKNOWN = 205

DEFAULT_OCCUPIED_THRESH = 0.65
DEFAULT_FREE_THRESH = 0.196

# Rec.601 luma of each 8-bit channel value scaled to GraphicsMagick's 16-bit quanta (c * 257).
_LUMA_TABLES = tuple(weight * (257.0 * np.arange(256)) for weight in (0.299, 0.587, 0.114))


@dataclass(frozen=True)
class MapMetadata:
    """The validated contents of a map YAML; `image` is resolved against the YAML's folder."""

    image: Path
    resolution: float
    origin: tuple[float, float, float]
    negate: bool
    occupied_thresh: float
    free_thresh: float
    mode: str = "trinary"
    yaml_path: Path | None = None


# --- YAML -------------------------------------------------------------------------------------


def read_map_yaml(yaml_path: str | Path) -> MapMetadata:
    """The metadata of the map YAML at `yaml_path`; raises MapLoadError naming file and field."""
    if not str(yaml_path):
        raise MapLoadError("map YAML file name is empty")
    path = Path(_expand_home(str(yaml_path)))
    where = f"map YAML {path}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MapLoadError(f"{where} not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise MapLoadError(f"{where} cannot be read: {error}") from error
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise MapLoadError(f"{where} is not valid YAML: {error}") from error
    if not isinstance(doc, dict):
        raise MapLoadError(f"{where} must hold a mapping of fields, got {type(doc).__name__}")

    def require(field: str) -> object:
        if field not in doc or doc[field] is None:
            raise MapLoadError(f"{where}: field '{field}' is missing")
        return doc[field]

    image_name = require("image")
    if not isinstance(image_name, str) or not image_name.strip():
        raise MapLoadError(f"{where}: field 'image' must be a non-empty file name")
    image = Path(image_name)
    if not image.is_absolute():
        # map_server joins the image to the folder of the YAML name as given, `~` unexpanded.
        image = Path(yaml_path).parent / image

    resolution = _number(require("resolution"), where, "resolution")
    if not resolution > 0.0:
        raise MapLoadError(f"{where}: field 'resolution' must be > 0, got {resolution}")

    raw_origin = require("origin")
    if not isinstance(raw_origin, (list, tuple)):
        raise MapLoadError(f"{where}: field 'origin' must be a list [x, y, yaw]")
    if len(raw_origin) != 3:
        raise MapLoadError(
            f"{where}: field 'origin' must have 3 elements [x, y, yaw], not {len(raw_origin)}"
        )
    origin = tuple(_number(value, where, "origin") for value in raw_origin)

    negate = _negate(require("negate"), where)
    occupied_thresh = _number(require("occupied_thresh"), where, "occupied_thresh")
    free_thresh = _number(require("free_thresh"), where, "free_thresh")
    mode = _map_mode(doc["mode"], f"{where}: field 'mode'") if "mode" in doc else "trinary"
    _check_thresholds(occupied_thresh, free_thresh, where)
    return MapMetadata(
        image=image,
        resolution=resolution,
        origin=origin,  # type: ignore[arg-type]
        negate=negate,
        occupied_thresh=occupied_thresh,
        free_thresh=free_thresh,
        mode=mode,
        yaml_path=path,
    )


def _expand_home(name: str) -> str:
    """map_server's expansion of a leading `~/` to `$HOME` (none when HOME is unset or empty)."""
    home = os.environ.get("HOME", "")
    return home + name[1:] if name.startswith("~/") and home else name


def _map_mode(value: object, what: str) -> str:
    """`value` as a map mode, in any case (map_server lower-cases it); `what` names it if not."""
    if isinstance(value, str) and value.lower() in MAP_MODES:
        return value.lower()
    raise MapLoadError(f"{what} must be one of {', '.join(MAP_MODES)}, got {value!r}")


def _number(value: object, where: str, field: str) -> float:
    """`value` as a finite float (YAML numbers, or strings that parse as numbers, like yaml-cpp)."""
    if isinstance(value, bool):
        raise MapLoadError(f"{where}: field '{field}' must be a number, got {value!r}")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise MapLoadError(f"{where}: field '{field}' must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise MapLoadError(f"{where}: field '{field}' must be finite, got {value!r}")
    return number


def _negate(value: object, where: str) -> bool:
    """map_server reads `negate` as an int (nonzero: true) or else as a bool."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    raise MapLoadError(f"{where}: field 'negate' must be 0, 1, true or false, got {value!r}")


def _check_thresholds(occupied_thresh: float, free_thresh: float, where: str) -> None:
    for field, value in (("occupied_thresh", occupied_thresh), ("free_thresh", free_thresh)):
        if not 0.0 <= value <= 1.0:
            raise MapLoadError(f"{where}: field '{field}' must be in [0, 1], got {value}")
    if free_thresh >= occupied_thresh:
        raise MapLoadError(
            f"{where}: field 'free_thresh' ({free_thresh}) must be smaller than "
            f"'occupied_thresh' ({occupied_thresh})"
        )


# --- images -----------------------------------------------------------------------------------


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
    map_mode = _map_mode(mode, "mode")  # a MapLoadError, which is a ValueError
    grey, alpha = _grey_and_alpha(image)
    values = _value_table(map_mode, negate, occupied_thresh, free_thresh)[grey]
    if alpha is not None and map_mode != "raw":
        values[alpha < 255] = -1
    return values


def _load(meta: MapMetadata, where: str, frame_id: str) -> OccupancyMap:
    """The map of `meta`: its image under its rules; every failure is a MapLoadError."""
    image: Image.Image | None = None
    prefix = f"{where}: image file {meta.image}"
    try:
        # Pillow warns above Image.MAX_IMAGE_PIXELS (about 89 million pixels) and refuses twice
        # that (about 179 million; 13,400 x 13,400 is just over) as a possible decompression
        # bomb, a header of a few bytes that claims billions of pixels. We keep that refusal:
        # map_server has none, but such a map needs about 0.5 GB to load and several GB to plan
        # on, and can be cropped or saved at a coarser resolution. A map below it is legitimate,
        # so the warning is silenced (for this call only; maps load on the main thread).
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(meta.image) as image:
                image.load()
                values = image_to_values(
                    image,
                    mode=meta.mode,
                    negate=meta.negate,
                    occupied_thresh=meta.occupied_thresh,
                    free_thresh=meta.free_thresh,
                )
    except FileNotFoundError:
        tilde = str(meta.image).startswith("~")
        hint = " ('~' is not expanded in an image path)" if tilde else ""
        raise MapLoadError(f"{prefix} not found{hint}") from None
    except Image.DecompressionBombError as error:
        reason = str(error).rstrip(".")
        raise MapLoadError(
            f"{prefix} is too large to load: {reason}; crop it or save it at a coarser resolution"
        ) from error
    except MemoryError as error:
        size = "" if image is None else " ({} x {} pixels)".format(*image.size)
        raise MapLoadError(f"{prefix}{size} does not fit in memory") from error
    except (OSError, ValueError, SyntaxError) as error:
        raise MapLoadError(f"{prefix} cannot be read: {error}") from error
    return OccupancyMap.from_rows(
        values, resolution=meta.resolution, origin=meta.origin, frame_id=frame_id
    )


def load_map(yaml_path: str | Path, frame_id: str = "map") -> OccupancyMap:
    """The map described by the map_server YAML at `yaml_path`.

    >>> from grid_planner.grid.map_io import load_map
    >>> m = load_map("config/maps/tutorial_grid.yaml")  # doctest: +SKIP
    >>> (m.width, m.height)  # doctest: +SKIP
    (10, 8)
    """
    meta = read_map_yaml(yaml_path)
    return _load(meta, f"map YAML {meta.yaml_path}: field 'image'", frame_id)


def load_image_map(
    image_path: str | Path,
    resolution: float,
    origin: Sequence[float] = (0.0, 0.0, 0.0),
    *,
    negate: bool = False,
    occupied_thresh: float = DEFAULT_OCCUPIED_THRESH,
    free_thresh: float = DEFAULT_FREE_THRESH,
    mode: str = "trinary",
    frame_id: str = "map",
) -> OccupancyMap:
    """A map from a plain image (dark = occupied, light = free) with the given geometry.

    The pixels follow the same rules as `load_map` with these settings; `origin` is `(x, y)` or
    `(x, y, yaw)`. This is the CLI's `--resolution --origin` path for a bare PNG or PGM.
    """
    path = Path(image_path)
    where = f"map image {path}"
    if not (math.isfinite(resolution) and resolution > 0.0):
        raise MapLoadError(f"{where}: resolution must be > 0, got {resolution}")
    if len(origin) not in (2, 3) or not all(math.isfinite(float(v)) for v in origin):
        raise MapLoadError(f"{where}: origin must be finite [x, y] or [x, y, yaw], got {origin}")
    map_mode = _map_mode(mode, f"{where}: mode")
    _check_thresholds(occupied_thresh, free_thresh, where)
    full_origin = (float(origin[0]), float(origin[1]), float(origin[2]) if len(origin) > 2 else 0.0)
    meta = MapMetadata(
        path, resolution, full_origin, negate, occupied_thresh, free_thresh, map_mode
    )
    return _load(meta, where, frame_id)


# --- saving -----------------------------------------------------------------------------------


def values_to_trinary_pixels(
    values: np.ndarray,
    occupied_thresh: float = DEFAULT_OCCUPIED_THRESH,
    free_thresh: float = DEFAULT_FREE_THRESH,
) -> np.ndarray:
    """map_saver's trinary pixels for occupancy `values`: 254 free, 0 occupied, 205 unknown.

    A value <= rint(100 * free_thresh) is free, >= rint(100 * occupied_thresh) occupied; values
    in between and outside 0..100 are written as unknown.
    """
    free_int = int(np.rint(free_thresh * 100.0))
    occupied_int = int(np.rint(occupied_thresh * 100.0))
    values = np.asarray(values).astype(np.int16)
    pixels = np.full(values.shape, PIXEL_UNKNOWN, dtype=np.uint8)
    valid = (values >= 0) & (values <= 100)
    pixels[valid & (values <= free_int)] = PIXEL_FREE
    pixels[valid & (values > free_int) & (values >= occupied_int)] = PIXEL_OCCUPIED
    return pixels


def save_map(
    occupancy: OccupancyMap,
    yaml_path: str | Path,
    *,
    image_name: str | None = None,
    occupied_thresh: float = DEFAULT_OCCUPIED_THRESH,
    free_thresh: float = DEFAULT_FREE_THRESH,
) -> Path:
    """Write `occupancy` as a trinary PGM plus its map_server YAML; returns the image path.

    The image goes beside the YAML (default name: the YAML's stem + `.pgm`) and the YAML names
    it relatively, so the pair can be moved together. Free, occupied and unknown cells load back
    unchanged with these thresholds.
    """
    _check_thresholds(occupied_thresh, free_thresh, f"saving {yaml_path}")
    yaml_file = Path(yaml_path)
    name = image_name or yaml_file.with_suffix(".pgm").name
    image_file = yaml_file.parent / name
    pixels = values_to_trinary_pixels(occupancy.grid2d()[::-1], occupied_thresh, free_thresh)
    yaml_file.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.ascontiguousarray(pixels)).save(image_file)
    x, y, yaw = occupancy.origin
    yaml_file.write_text(
        f"image: {name}\n"
        "mode: trinary\n"
        f"resolution: {occupancy.resolution!r}\n"
        f"origin: [{x!r}, {y!r}, {yaw!r}]\n"
        "negate: 0\n"
        f"occupied_thresh: {occupied_thresh!r}\n"
        f"free_thresh: {free_thresh!r}\n",
        encoding="utf-8",
    )
    return image_file
