"""Load and save maps in map_server format (a YAML file plus a PGM/PNG image), as Nav2 Jazzy.

The rules below are those by which Nav2's map_server loads a map (its YAML reader and its image
loader, which reads images with GraphicsMagick at 16 bits per channel):

- Every pixel's channels are averaged: red, green and blue, plus (in trinary mode only, when the
  image has an alpha channel) the alpha value (255 = opaque). `shade = mean / 65535` on the
  16-bit quanta (an 8-bit value `p` is the quantum `257 * p`, so a grey pixel has
  `shade = p / 255`).
- `occ = shade` when `negate`, else `occ = 1 - shade`.
- trinary (default): `occ >= occupied_thresh` -> 100, else `occ <= free_thresh` -> 0, else -1.
  The comparisons are inclusive, a rule of this project (its map tests pin it);
  Nav2's map_server compares strictly, which differs only when `occ` equals a threshold
  exactly (never for 8-bit pixels and the usual 0.65 / 0.196). Pixel 205 gives
  occ = 0.19608 > free_thresh 0.196, so it is unknown.
- scale: a pixel that is not fully opaque -> -1; then the trinary thresholds; in between,
  `rint((occ - free_thresh) / (occupied_thresh - free_thresh) * 100)` (round half to even),
  which can itself give 0 or 100 at the ends of the band.
- raw: `round(shade * 255)` (half away from zero) when it lies in 0..100, else -1;
  `negate` and the thresholds are ignored.
- Image row 0 (the top) becomes grid row `height - 1`: grid row 0 is the bottom image row.

The YAML keys `image`, `resolution`, `origin` (3 elements), `negate` (int or bool),
`occupied_thresh` and `free_thresh` are required, as in map_server; `mode` defaults to trinary.
On top of map_server this loader rejects a non-positive resolution, thresholds outside [0, 1] and
`free_thresh >= occupied_thresh`. Every failure is a `MapLoadError` naming the file and field.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from PIL import Image, UnidentifiedImageError

from .errors import MapLoadError
from .occupancy import OccupancyMap

MAP_MODES = ("trinary", "scale", "raw")

# GraphicsMagick's quantum range in the Q16 build that ROS distributions link against.
_MAX_QUANTUM = 65535.0
_QUANTUM_PER_8BIT = 257.0

# map_saver's pixel values for trinary images.
PIXEL_FREE = 254
PIXEL_OCCUPIED = 0
PIXEL_UNKNOWN = 205

DEFAULT_OCCUPIED_THRESH = 0.65
DEFAULT_FREE_THRESH = 0.196


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
    path = Path(yaml_path)
    where = f"map YAML {path}"
    if not str(yaml_path):
        raise MapLoadError("map YAML file name is empty")
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
        image = path.parent / image

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
    mode = doc.get("mode", "trinary")
    if mode is None:
        mode = "trinary"
    if mode not in MAP_MODES:
        raise MapLoadError(
            f"{where}: field 'mode' must be one of {', '.join(MAP_MODES)}, got {mode!r}"
        )
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


def _pixel_quanta(image: Image.Image) -> tuple[np.ndarray, np.ndarray | None]:
    """The `(height, width, 3)` colour quanta (0..65535) and the alpha quanta (None if opaque)."""
    mode = image.mode
    if mode.startswith("I;16") or mode == "I":
        grey = np.asarray(image, dtype=np.float64)
        return np.repeat(grey[:, :, None], 3, axis=2), None
    if mode == "1":
        image, mode = image.convert("L"), "L"
    if mode == "P":
        image = image.convert("RGBA" if "transparency" in image.info else "RGB")
        mode = image.mode
    if mode not in ("L", "LA", "RGB", "RGBA"):
        has_alpha = "A" in mode or "a" in mode or "transparency" in image.info
        image = image.convert("RGBA" if has_alpha else "RGB")
        mode = image.mode
    pixels = np.asarray(image, dtype=np.float64) * _QUANTUM_PER_8BIT
    if mode == "L":
        return np.repeat(pixels[:, :, None], 3, axis=2), None
    if mode == "LA":
        return np.repeat(pixels[:, :, :1], 3, axis=2), pixels[:, :, 1]
    if mode == "RGB":
        return pixels, None
    return pixels[:, :, :3], pixels[:, :, 3]


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
    if mode not in MAP_MODES:
        raise ValueError(f"mode must be one of {', '.join(MAP_MODES)}, got {mode!r}")
    colour, alpha = _pixel_quanta(image)
    channel_sum = colour[:, :, 0] + colour[:, :, 1] + colour[:, :, 2]
    channels = 3.0
    if mode == "trinary" and alpha is not None:
        channel_sum = channel_sum + alpha
        channels = 4.0
    shade = (channel_sum / channels) / _MAX_QUANTUM

    values = np.full(shade.shape, -1, dtype=np.int8)
    if mode == "raw":
        percent = np.floor(shade * 255.0 + 0.5)
        in_range = (percent >= 0.0) & (percent <= 100.0)
        values[in_range] = percent[in_range].astype(np.int8)
        return values

    occ = shade if negate else 1.0 - shade
    occupied = occ >= occupied_thresh
    free = ~occupied & (occ <= free_thresh)
    values[occupied] = 100
    values[free] = 0
    if mode == "scale":
        between = ~occupied & ~free
        scaled = np.rint((occ - free_thresh) / (occupied_thresh - free_thresh) * 100.0)
        values[between] = scaled[between].astype(np.int8)
        if alpha is not None:
            values[alpha != _MAX_QUANTUM] = -1
    return values


def _open_image(path: Path, where: str) -> Image.Image:
    try:
        image = Image.open(path)
        image.load()
    except FileNotFoundError:
        raise MapLoadError(f"{where}: image file {path} not found") from None
    except (UnidentifiedImageError, OSError, ValueError) as error:
        raise MapLoadError(f"{where}: image file {path} cannot be read: {error}") from error
    return image


def load_map(yaml_path: str | Path, frame_id: str = "map") -> OccupancyMap:
    """The map described by the map_server YAML at `yaml_path`.

    >>> from grid_planner.grid.map_io import load_map
    >>> m = load_map("config/maps/tutorial_grid.yaml")  # doctest: +SKIP
    >>> (m.width, m.height)  # doctest: +SKIP
    (10, 8)
    """
    meta = read_map_yaml(yaml_path)
    image = _open_image(meta.image, f"map YAML {meta.yaml_path}: field 'image'")
    values = image_to_values(
        image,
        mode=meta.mode,
        negate=meta.negate,
        occupied_thresh=meta.occupied_thresh,
        free_thresh=meta.free_thresh,
    )
    return OccupancyMap.from_rows(
        values, resolution=meta.resolution, origin=meta.origin, frame_id=frame_id
    )


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
    if mode not in MAP_MODES:
        raise MapLoadError(f"{where}: mode must be one of {', '.join(MAP_MODES)}, got {mode!r}")
    _check_thresholds(occupied_thresh, free_thresh, where)
    image = _open_image(path, where)
    values = image_to_values(
        image,
        mode=mode,
        negate=negate,
        occupied_thresh=occupied_thresh,
        free_thresh=free_thresh,
    )
    full_origin = (float(origin[0]), float(origin[1]), float(origin[2]) if len(origin) > 2 else 0.0)
    return OccupancyMap.from_rows(
        values, resolution=resolution, origin=full_origin, frame_id=frame_id
    )


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
