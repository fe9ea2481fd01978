"""Load and save maps in map_server format (a YAML file plus an image), as Nav2 Jazzy does.

The image's pixels become occupancy values by `map_pixels`; image row 0 (the top) becomes grid
row `height - 1`, so grid row 0 is the bottom image row. The YAML: `image`, `resolution`,
`origin` (3 elements), `negate` (int or bool; quoted ones read as yaml-cpp does), `occupied_thresh`
and `free_thresh` are required, as in map_server; `mode` defaults to trinary, any case is accepted,
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
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from PIL import Image

from .errors import MapLoadError
from .map_pixels import (
    DEFAULT_FREE_THRESH,
    DEFAULT_OCCUPIED_THRESH,
    image_to_values,
    map_mode,
)
from .occupancy import OccupancyMap

# map_saver's pixel values for trinary images.
PIXEL_FREE = 254
PIXEL_OCCUPIED = 0
PIXEL_UNKNOWN = 205
# yaml-cpp's bool words, each also read Capitalised or in CAPITALS.
_TRUE_WORDS = frozenset({"y", "yes", "true", "on"})
_FALSE_WORDS = frozenset({"n", "no", "false", "off"})
# An integer as C++ streams read one whose base is unset: 0x hex, leading 0 octal, else decimal.
_C_INTEGER = re.compile(r"([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)\s*")


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


def _yaml_problem(error: yaml.YAMLError) -> str:
    """PyYAML's reason in one line (its own text spans lines: the source line and a caret)."""
    parts = []
    for text, mark in ((getattr(error, "context", None), getattr(error, "context_mark", None)),
                       (getattr(error, "problem", None), getattr(error, "problem_mark", None))):
        if text:
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            parts.append(f"{text}{where}")
    return "; ".join(parts) if parts else " ".join(str(error).split())


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
        raise MapLoadError(f"{where} is not valid YAML: {_yaml_problem(error)}") from error
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
    mode = map_mode(doc["mode"], f"{where}: field 'mode'") if "mode" in doc else "trinary"
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
    """map_server reads `negate` as an int (nonzero: true) or else as a bool, and yaml-cpp
    converts a quoted scalar too: '1' is an int, 'yes' a bool."""
    if isinstance(value, str):
        number = _C_INTEGER.fullmatch(value)  # an istream with no base set, as yaml-cpp reads
        if number is not None:
            digits = number[2]
            base = 16 if digits[:2] in ("0x", "0X") else 8 if digits.startswith("0") else 10
            return int(digits, base) != 0
        flexible_case = value in (value.lower(), value.upper(), value.capitalize())
        if flexible_case and value.lower() in _TRUE_WORDS | _FALSE_WORDS:
            return value.lower() in _TRUE_WORDS
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
    checked_mode = map_mode(mode, f"{where}: mode")
    _check_thresholds(occupied_thresh, free_thresh, where)
    full_origin = (float(origin[0]), float(origin[1]), float(origin[2]) if len(origin) > 2 else 0.0)
    meta = MapMetadata(
        path, resolution, full_origin, negate, occupied_thresh, free_thresh, checked_mode
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
    it relatively, so the pair can be moved together. The thresholds sort the cells into free,
    occupied and unknown; the YAML always names the defaults, 0.65 and 0.196, as map_saver's
    does: those separate the three pixel values, so the cells load back as sorted (thresholds
    written as given, a free_thresh of 0.25 say, would load every unknown pixel as free).
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
        f"occupied_thresh: {DEFAULT_OCCUPIED_THRESH!r}\n"
        f"free_thresh: {DEFAULT_FREE_THRESH!r}\n",
        encoding="utf-8",
    )
    return image_file
