"""Map loading and saving: the real ROS maps, every map_server mode, and every malformed input."""

from __future__ import annotations

import struct
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import assert_one_error_line, run
from draw_maps import SHIPPED_MAPS, demo_map, tutorial_grid, write_maps
from grid_fixtures import tutorial_values
from PIL import Image
from shared_data import shared_path

from grid_planner.grid import (
    MapLoadError,
    OccupancyMap,
    PlanningGrid,
    load_image_map,
    load_map,
    map_io,
    read_map_yaml,
    save_map,
)

PROJECT = Path(__file__).resolve().parents[2]
GOOD_FIELDS = {
    "resolution": "0.5",
    "origin": "[1.0, -2.0, 0.0]",
    "negate": "0",
    "occupied_thresh": "0.65",
    "free_thresh": "0.196",
}


def write_yaml(folder: Path, image: str | None = "map.pgm", **fields: str | None) -> Path:
    """A map YAML in `folder` with GOOD_FIELDS, overridden by `fields` (None drops a field)."""
    merged = {"image": image, **GOOD_FIELDS, **fields}
    text = "".join(f"{key}: {value}\n" for key, value in merged.items() if value is not None)
    path = folder / "map.yaml"
    path.write_text(text)
    return path


def write_image(folder: Path, pixels, name: str = "map.pgm") -> Path:
    """Save `pixels` (H x W grey, or H x W x 2/3/4 channels) as an 8-bit image."""
    path = folder / name
    Image.fromarray(np.asarray(pixels, dtype=np.uint8)).save(path)
    return path


def load_pixels(tmp_path: Path, pixels, name: str = "map.pgm", **fields) -> OccupancyMap:
    write_image(tmp_path, pixels, name=name)
    return load_map(write_yaml(tmp_path, image=name, **fields))


# --- the shared real maps ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "free", "occupied", "unknown", "components", "largest"),
    [
        ("turtlebot3_world", 7939, 795, 138722, 4, 7936),
        ("tb3_sandbox", 7903, 870, 138683, 6, 7895),
    ],
)
def test_real_maps_reproduce_the_documented_cell_counts_and_components(
    name, free, occupied, unknown, components, largest
):
    occupancy = load_map(shared_path("maps", f"{name}.yaml"))
    assert (occupancy.width, occupancy.height) == (384, 384)
    assert occupancy.resolution == pytest.approx(0.05)
    assert occupancy.origin == (-10.0, -10.0, 0.0)
    assert occupancy.value_counts() == {
        "free": free,
        "occupied": occupied,
        "unknown": unknown,
        "other": 0,
    }
    grid = PlanningGrid(occupancy)
    assert grid.component_count == components
    assert int(grid.component_sizes.max()) == largest


def test_real_map_rows_are_flipped_so_row_zero_is_the_bottom_image_row():
    path = shared_path("maps", "turtlebot3_world.yaml")
    image = np.asarray(Image.open(path.with_suffix(".pgm")))
    occupancy = load_map(path)
    grid = occupancy.grid2d()
    assert set(np.unique(image).tolist()) == {0, 205, 254}
    expected = np.where(image == 254, 0, np.where(image == 0, 100, -1))[::-1]
    np.testing.assert_array_equal(grid, expected)


# --- trinary, negate, scale, raw, colour and alpha --------------------------------------------


def test_trinary_pixel_205_is_unknown_because_its_occupancy_is_just_above_free_thresh(tmp_path):
    occupancy = load_pixels(tmp_path, [[254, 205, 0]])
    assert occupancy.data.tolist() == [0, -1, 100]


def test_every_grey_level_under_the_default_thresholds(tmp_path):
    # occ = 1 - g/255 >= 0.65 for g <= 89 (g = 89: 0.6510; 90: 0.6471), and <= 0.196 for
    # g >= 206 (206: 0.1922; 205: 0.19608 is above): 90 occupied, 116 unknown, 50 free.
    occupancy = load_pixels(tmp_path, [list(range(256))])
    assert occupancy.data.tolist() == [100] * 90 + [-1] * 116 + [0] * 50


def test_trinary_thresholds_are_inclusive(tmp_path):
    # Black has occ exactly 1.0 and white exactly 0.0: with occupied_thresh 1.0 and free_thresh
    # 0.0 map_server's >= and <= make them occupied and free (jazzy <= 1.3.6 compared strictly).
    occupancy = load_pixels(tmp_path, [[0, 255]], occupied_thresh="1.0", free_thresh="0.0")
    assert occupancy.data.tolist() == [100, 0]


def test_thresholds_are_compared_in_float32_like_map_server(tmp_path):
    # g = 153: 153/255 is 0.60000002 in float32, so occ = 1 - 0.60000002 = 0.39999998, below
    # float32(0.4) = 0.40000001: unknown. In double occ would be exactly 0.4 >= 0.4: occupied.
    occupancy = load_pixels(tmp_path, [[153]], occupied_thresh="0.4")
    assert occupancy.data.tolist() == [-1]


def test_rows_are_flipped_and_origin_and_resolution_kept(tmp_path):
    occupancy = load_pixels(tmp_path, [[0, 254, 254], [254, 254, 205]])
    assert (occupancy.width, occupancy.height) == (3, 2)
    # Bottom image row first.
    assert occupancy.grid2d().tolist() == [[0, 0, -1], [100, 0, 0]]
    assert occupancy.resolution == 0.5
    assert occupancy.origin == (1.0, -2.0, 0.0)


@pytest.mark.parametrize("negate", ["1", "true", "'1'", "'-2'", "'0x1'", "'010'", "'Yes'", "'ON'",
                                    "'y'"])
def test_negate_turns_dark_pixels_free_and_light_pixels_occupied(tmp_path, negate):
    occupancy = load_pixels(tmp_path, [[0, 205, 254, 128]], negate=negate)
    # occ = pixel / 255: 0 -> 0 free, 205 -> 0.80 occupied, 254 -> 1.0 occupied, 128 -> 0.50.
    assert occupancy.data.tolist() == [0, 100, 100, -1]


@pytest.mark.parametrize("negate", ["0", "false", "'0'", "'+0'", "'Off'", "'NO'", "'n'"])
def test_a_false_negate_keeps_dark_pixels_occupied(tmp_path, negate):
    # As yaml-cpp converts them for map_server: a quoted int, or a bool word in one of 3 cases.
    occupancy = load_pixels(tmp_path, [[0, 205, 254, 128]], negate=negate)
    assert occupancy.data.tolist() == [100, -1, 0, -1]


def test_scale_mode_interpolates_between_the_thresholds(tmp_path):
    occupancy = load_pixels(tmp_path, [[254, 200, 128, 100, 0]], mode="scale")
    # occ = 1 - p/255; in between: round((occ - 0.196) / (0.65 - 0.196) * 100)
    #   200 -> occ 0.2157 -> 4.34 -> 4;  128 -> 0.4980 -> 66.53 -> 67;  100 -> 0.6078 -> 90.71 -> 91
    assert occupancy.data.tolist() == [0, 4, 67, 91, 100]


def test_scale_mode_rounds_half_away_from_zero(tmp_path):
    # negate, free 0.1, occupied 0.9: 51 -> occ 0.2 -> (0.2 - 0.1) / 0.8 * 100 = 12.5 and
    # 153 -> occ 0.6 -> 62.5, both exactly .5 in float32: 13 and 63 (rint would give 12, 62).
    occupancy = load_pixels(
        tmp_path, [[51, 153]], mode="scale", negate="1", free_thresh="0.1", occupied_thresh="0.9"
    )
    assert occupancy.data.tolist() == [13, 63]


@pytest.mark.parametrize("mode", ["Trinary", "SCALE", "Raw"])
def test_mode_is_matched_in_any_case_like_map_server(tmp_path, mode):
    assert read_map_yaml(write_yaml(tmp_path, mode=mode)).mode == mode.lower()
    expected = {"trinary": [100, -1, 0], "scale": [100, 67, 0], "raw": [0, -1, -1]}
    # 128 is unknown in trinary, 67 in scale (see above), and above 100 in raw.
    assert load_pixels(tmp_path, [[0, 128, 254]], mode=mode).data.tolist() == expected[mode.lower()]


def test_raw_mode_keeps_pixel_values_up_to_100_and_makes_the_rest_unknown(tmp_path):
    # 101..127 are over 100; 128..255 are negative as int8, as map_server casts them.
    occupancy = load_pixels(tmp_path, [[0, 1, 57, 100, 101, 127, 128, 255]], mode="raw", negate="1")
    assert occupancy.data.tolist() == [0, 1, 57, 100, -1, -1, -1, -1]


def test_colour_pixels_take_graphicsmagick_rec601_grey(tmp_path):
    pixels = [[[0, 255, 0], [255, 255, 0], [255, 0, 0], [0, 0, 255], [90, 30, 0], [250] * 3]]
    write_image(tmp_path, pixels, name="map.png")
    # Luma of the 16-bit channels (c * 257), rounded, then // 257:
    #   green  0.587 * 65535 = 38469.0 -> 149 (not 150) -> occ 0.416 unknown (the mean 85 was
    #          occupied);  yellow (0.299 + 0.587) * 65535 = 58064.0 -> 225 -> occ 0.118 free;
    #   red    19595.0 -> 76 -> occ 0.702 occupied;  blue 7471.0 -> 29 -> occ 0.886 occupied;
    #   (90, 30, 0): 6915.9 + 4525.8 = 11441.6 -> 11442 -> 44 -> occupied;  grey 250 stays 250.
    trinary = load_map(write_yaml(tmp_path, image="map.png")).data.tolist()
    assert trinary == [-1, 0, 100, 100, 100, 0]
    # raw reads the same grey levels: 149, 225 and 250 are over 100.
    raw = load_map(write_yaml(tmp_path, image="map.png", mode="raw")).data.tolist()
    assert raw == [-1, -1, 76, 29, 44, -1]


# Black at alpha 255, 254, 128 and 0, grey 50 at alpha 0, then opaque white.
RGBA_ROW = [[*([0, 0, 0, alpha] for alpha in (255, 254, 128, 0)), [50, 50, 50, 0], [255] * 4]]


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        # Any alpha below 255 is unknown, whatever the colour; opaque pixels follow their grey.
        ("trinary", [100, -1, -1, -1, -1, 0]),
        ("scale", [100, -1, -1, -1, -1, 0]),
        # raw ignores alpha: black is 0, grey 50 is 50, white (255) is over 100.
        ("raw", [0, 0, 0, 0, 50, -1]),
    ],
)
def test_transparent_pixels_are_unknown_except_in_raw_mode(tmp_path, mode, expected):
    write_image(tmp_path, RGBA_ROW, name="map.png")
    assert load_map(write_yaml(tmp_path, image="map.png", mode=mode)).data.tolist() == expected


def test_grey_with_alpha_and_palette_images_load(tmp_path):
    grey_alpha = np.array([[[0, 255], [254, 255], [0, 0], [254, 200]]], dtype=np.uint8)
    image = Image.fromarray(grey_alpha)
    assert image.mode == "LA"
    image.save(tmp_path / "la.png")
    assert load_map(write_yaml(tmp_path, image="la.png")).data.tolist() == [100, 0, -1, -1]
    palette = Image.fromarray(np.array([[0, 254, 205]], dtype=np.uint8)).convert("P")
    palette.save(tmp_path / "p.png")
    assert load_map(write_yaml(tmp_path, image="p.png")).data.tolist() == [100, 0, -1]
    # A transparency entry for the palette index of the black pixel makes it unknown.
    palette.save(tmp_path / "pt.png", transparency=int(np.asarray(palette)[0, 0]))
    assert Image.open(tmp_path / "pt.png").mode == "P"
    assert load_map(write_yaml(tmp_path, image="pt.png")).data.tolist() == [-1, 0, -1]


def test_png_colour_keys_make_their_pixels_unknown(tmp_path):
    grey = Image.fromarray(np.array([[0, 254, 0]], dtype=np.uint8))
    grey.save(tmp_path / "grey.png", transparency=254)
    assert load_map(write_yaml(tmp_path, image="grey.png")).data.tolist() == [100, -1, 100]
    colour = Image.fromarray(np.array([[[0, 0, 0], [255, 255, 255], [10, 20, 30]]], np.uint8))
    colour.save(tmp_path / "rgb.png", transparency=(255, 255, 255))
    # (10, 20, 30): luma 18 -> occ 0.93 occupied.
    assert load_map(write_yaml(tmp_path, image="rgb.png")).data.tolist() == [100, -1, 100]


def test_a_16_bit_image_is_scaled_to_8_bits_like_graphicsmagick(tmp_path):
    pixels = np.array([[0, 23000, 23129, 205 * 257, 254 * 257, 65535]], dtype=np.uint16)
    Image.fromarray(pixels).save(tmp_path / "deep.png")
    assert Image.open(tmp_path / "deep.png").mode.startswith("I")
    # v // 257 (GraphicsMagick Q16 truncates): 23000 -> 89 -> occ 0.651 -> occupied (as a
    # 16-bit fraction, occ 0.649 would be unknown); 23129 = 90 * 257 - 1 -> 89 -> occupied too
    # (rounding would give 90, occ 0.647, unknown); 205 * 257 -> 205 unknown; 254 * 257 free.
    values = load_map(write_yaml(tmp_path, image="deep.png")).data.tolist()
    assert values == [100, 100, 100, -1, 0, 0]


def write_pgm(path: Path, magic: str, maxval: int, samples: list[int]) -> Path:
    """A one-row PGM: plain (P2) or binary (P5, two bytes a sample above maxval 255)."""
    header = f"{magic}\n{len(samples)} 1\n{maxval}\n".encode()
    if magic == "P2":
        body = " ".join(map(str, samples)).encode() + b"\n"
    else:
        body = np.array(samples, dtype=">u2" if maxval > 255 else np.uint8).tobytes()
    path.write_bytes(header + body)
    return path


@pytest.mark.parametrize(
    ("magic", "maxval", "samples", "expected"),
    [
        # Pillow rescales to 0..255: 7 of 15 -> 119 -> occ 0.533 unknown.
        ("P5", 15, [0, 15, 7], [100, 0, -1]),
        ("P2", 15, [0, 15, 7], [100, 0, -1]),
        ("P2", 255, [0, 254, 205], [100, 0, -1]),
        # Above 255 Pillow gives 16-bit "I" values (500 of 1000 -> 32768 -> 127 -> occ 0.502).
        ("P2", 1000, [0, 1000, 500], [100, 0, -1]),
        ("P5", 65535, [0, 65535, 23000], [100, 0, 100]),
    ],
)
def test_pgms_with_any_maxval_load(tmp_path, magic, maxval, samples, expected):
    write_pgm(tmp_path / "map.pgm", magic, maxval, samples)
    assert Image.open(tmp_path / "map.pgm").mode == ("I" if maxval > 255 else "L")
    assert load_map(write_yaml(tmp_path)).data.tolist() == expected


@pytest.mark.parametrize("mode", ["trinary", "scale", "raw"])
def test_a_grey_colour_pixel_loads_like_its_grey_level(tmp_path, mode):
    # (v, v, v) has luma 257 * v (the weights add up to 1), so v: all 256 levels, every mode.
    levels = np.arange(256, dtype=np.uint8)
    write_image(tmp_path, np.stack([levels] * 3, axis=1)[None], name="greys.png")
    write_image(tmp_path, levels[None], name="greys.pgm")
    thresholds = {"free_thresh": "0.0", "occupied_thresh": "1.0"}
    colour = load_map(write_yaml(tmp_path, image="greys.png", mode=mode, **thresholds))
    grey = load_map(write_yaml(tmp_path, image="greys.pgm", mode=mode, **thresholds))
    np.testing.assert_array_equal(colour.data, grey.data)


def test_a_bilevel_png_loads_as_black_occupied_white_free(tmp_path):
    Image.fromarray(np.array([[0, 255]], dtype=np.uint8)).convert("1").save(tmp_path / "bw.png")
    assert load_map(write_yaml(tmp_path, image="bw.png")).data.tolist() == [100, 0]


def test_image_path_may_be_absolute(tmp_path):
    image = write_image(tmp_path, [[0]], name="abs.pgm")
    sub = tmp_path / "elsewhere"
    sub.mkdir()
    assert load_map(write_yaml(sub, image=str(image))).data.tolist() == [100]


def test_metadata_is_read_and_mode_defaults_to_trinary(tmp_path):
    meta = read_map_yaml(write_yaml(tmp_path))
    assert meta.image == tmp_path / "map.pgm"
    assert meta.mode == "trinary"
    assert meta.negate is False
    assert meta.origin == (1.0, -2.0, 0.0)


def test_load_image_map_uses_the_given_resolution_and_origin(tmp_path):
    write_image(tmp_path, [[0, 255], [255, 255]], name="plain.png")
    occupancy = load_image_map(tmp_path / "plain.png", 0.25, (2.0, 3.0))
    assert occupancy.grid2d().tolist() == [[0, 0], [100, 0]]
    assert occupancy.origin == (2.0, 3.0, 0.0)
    assert occupancy.resolution == 0.25


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"resolution": 0.0}, "resolution"),
        ({"resolution": 0.1, "origin": (1.0,)}, "origin"),
        ({"resolution": 0.1, "mode": "fancy"}, "mode"),
        ({"resolution": 0.1, "free_thresh": 0.9}, "free_thresh"),
    ],
)
def test_load_image_map_rejects_bad_settings(tmp_path, kwargs, field):
    write_image(tmp_path, [[0]], name="plain.png")
    with pytest.raises(MapLoadError, match=field) as caught:
        load_image_map(tmp_path / "plain.png", **kwargs)
    assert "plain.png" in str(caught.value)


def test_load_image_map_reports_a_missing_file(tmp_path):
    with pytest.raises(MapLoadError, match=r"nothing\.png"):
        load_image_map(tmp_path / "nothing.png", 0.1)


# --- malformed input --------------------------------------------------------------------------


REQUIRED_FIELDS = ["image", "resolution", "origin", "negate", "occupied_thresh", "free_thresh"]


@pytest.mark.parametrize("field", REQUIRED_FIELDS)
def test_a_missing_required_field_is_named(tmp_path, field):
    write_image(tmp_path, [[0]])
    overrides = {"image": None} if field == "image" else {field: None}
    path = write_yaml(tmp_path, **overrides)
    with pytest.raises(MapLoadError) as caught:
        load_map(path)
    assert str(path) in str(caught.value)
    assert f"'{field}'" in str(caught.value)
    assert "missing" in str(caught.value)


@pytest.mark.parametrize(
    ("overrides", "field", "words"),
    [
        ({"resolution": "0"}, "resolution", "> 0"),
        ({"resolution": "-0.05"}, "resolution", "> 0"),
        ({"resolution": "fast"}, "resolution", "number"),
        ({"origin": "[1.0, 2.0]"}, "origin", "3 elements"),
        ({"origin": "[1.0, 2.0, 0.0, 4.0]"}, "origin", "3 elements"),
        ({"origin": "1.0"}, "origin", "list"),
        ({"mode": "fancy"}, "mode", "trinary, scale, raw"),
        ({"mode": "null"}, "mode", "trinary, scale, raw"),  # map_server reads it as "null"
        ({"occupied_thresh": "1.5"}, "occupied_thresh", "[0, 1]"),
        ({"free_thresh": "-0.1"}, "free_thresh", "[0, 1]"),
        ({"free_thresh": "0.7"}, "free_thresh", "smaller"),
        ({"free_thresh": "0.65"}, "free_thresh", "smaller"),
        ({"negate": "maybe"}, "negate", "0, 1"),
        ({"negate": "0.5"}, "negate", "0, 1"),
        ({"negate": "'0.5'"}, "negate", "0, 1"),
        ({"negate": "'yEs'"}, "negate", "0, 1"),
        ({"negate": "' 1'"}, "negate", "0, 1"),
        ({"negate": "'08'"}, "negate", "0, 1"),  # not octal: yaml-cpp (map_server) fails too
    ],
)
def test_an_invalid_field_is_named_with_the_reason(tmp_path, overrides, field, words):
    write_image(tmp_path, [[0]])
    path = write_yaml(tmp_path, **overrides)
    with pytest.raises(MapLoadError) as caught:
        load_map(path)
    message = str(caught.value)
    assert str(path) in message
    assert f"'{field}'" in message
    assert words in message


def test_malformed_yaml_names_the_file(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("image: [unclosed\nresolution: 0.05\n")
    with pytest.raises(MapLoadError, match="not valid YAML") as caught:
        load_map(path)
    assert str(path) in str(caught.value)
    # One line (the CLI prints it as its one error line): PyYAML's text spans four.
    assert str(caught.value).endswith(
        "is not valid YAML: while parsing a flow sequence at line 1, column 8; expected ',' or "
        "']', but got ':' at line 2, column 11")


def test_yaml_that_is_not_a_mapping_is_refused(tmp_path):
    path = tmp_path / "list.yaml"
    path.write_text("- 1\n- 2\n")
    with pytest.raises(MapLoadError, match="mapping") as caught:
        load_map(path)
    assert str(path) in str(caught.value)


def test_missing_yaml_file_is_reported(tmp_path):
    with pytest.raises(MapLoadError, match="not found") as caught:
        load_map(tmp_path / "nope.yaml")
    assert "nope.yaml" in str(caught.value)


def test_missing_image_file_names_the_yaml_field_and_the_image(tmp_path):
    path = write_yaml(tmp_path, image="absent.pgm")
    with pytest.raises(MapLoadError) as caught:
        load_map(path)
    message = str(caught.value)
    assert str(path) in message and "'image'" in message
    assert str(tmp_path / "absent.pgm") in message and "not found" in message


def test_an_unreadable_image_names_the_file(tmp_path):
    (tmp_path / "map.pgm").write_bytes(b"this is not an image")
    path = write_yaml(tmp_path)
    with pytest.raises(MapLoadError, match="cannot be read") as caught:
        load_map(path)
    assert "map.pgm" in str(caught.value)


def test_a_broken_png_names_the_file(tmp_path):
    # A PNG whose second data chunk has an invalid type: Pillow raises SyntaxError in load().
    Image.fromarray(np.zeros((4, 4), dtype=np.uint8)).save(tmp_path / "map.png")
    data = (tmp_path / "map.png").read_bytes()
    start = data.index(b"IDAT") - 4
    (length,) = struct.unpack(">I", data[start : start + 4])
    payload = data[start + 8 : start + 8 + length]

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    broken = chunk(b"IDAT", payload[:2]) + chunk(b"ID?T", payload[2:])
    (tmp_path / "map.png").write_bytes(data[:start] + broken + data[start + 12 + length :])
    with pytest.raises(MapLoadError, match="cannot be read") as caught:
        load_map(write_yaml(tmp_path, image="map.png"))
    assert "map.png" in str(caught.value)


def test_an_empty_image_name_is_refused(tmp_path):
    path = write_yaml(tmp_path, image='""')
    with pytest.raises(MapLoadError, match="'image'"):
        load_map(path)


# --- ~ in paths, huge images, memory ----------------------------------------------------------


def test_a_yaml_path_starting_with_tilde_slash_is_expanded_with_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "maps").mkdir()
    image = write_image(tmp_path / "maps", [[0, 254]])
    write_yaml(tmp_path / "maps", image=str(image))
    occupancy = load_map("~/maps/map.yaml")
    assert occupancy.data.tolist() == [100, 0]
    assert read_map_yaml("~/maps/map.yaml").yaml_path == tmp_path / "maps" / "map.yaml"


def test_the_image_path_keeps_its_tilde_like_map_server(tmp_path, monkeypatch):
    # map_server joins a relative image to the YAML name as given ("~/maps"), unexpanded, and
    # GraphicsMagick opens "~/maps/map.pgm" literally: not found (unless ./~ exists).
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "maps").mkdir()
    write_image(tmp_path / "maps", [[0]])
    write_yaml(tmp_path / "maps")
    assert read_map_yaml("~/maps/map.yaml").image == Path("~/maps/map.pgm")
    with pytest.raises(MapLoadError) as caught:
        load_map("~/maps/map.yaml")
    message = str(caught.value)
    assert "image file ~/maps/map.pgm not found" in message
    assert "'~' is not expanded" in message


@pytest.mark.parametrize("home", ["", None])
def test_tilde_is_left_alone_without_home(tmp_path, monkeypatch, home):
    if home is None:
        monkeypatch.delenv("HOME", raising=False)
    else:
        monkeypatch.setenv("HOME", home)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(MapLoadError, match=r"map YAML ~/maps/map\.yaml not found"):
        load_map("~/maps/map.yaml")


def claimed_size_pgm(path: Path, width: int, height: int) -> Path:
    """A PGM header claiming `width` x `height` pixels, with no pixel data."""
    path.write_bytes(f"P5\n{width} {height}\n255\n".encode())
    return path


def test_a_huge_image_is_refused_in_one_line_without_a_warning(tmp_path):
    claimed_size_pgm(tmp_path / "map.pgm", 100_000, 100_000)
    path = write_yaml(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(MapLoadError) as caught:
            load_map(path)
    message = str(caught.value)
    assert str(path) in message and str(tmp_path / "map.pgm") in message
    assert "too large" in message and "10000000000 pixels" in message
    assert "decompression bomb" in message
    assert "\n" not in message


def test_a_huge_image_exits_the_cli_with_2_and_one_line(capsys, tmp_path):
    claimed_size_pgm(tmp_path / "map.pgm", 100_000, 100_000)
    path = write_yaml(tmp_path)
    code, out, err = run(
        capsys, "plan", str(path), "--cells", "--start", "0", "0", "--goal", "1", "0"
    )
    assert code == 2 and out == ""
    assert_one_error_line(err, "map.pgm", "too large")


def test_a_large_map_below_the_limit_loads_without_pillows_warning(tmp_path):
    # 10,000 x 9,000 = 90 million pixels: over Pillow's warning limit (89,478,485), under its
    # refusal limit. The header has no pixel data, so loading ends as a truncated image; with
    # warnings as errors, Pillow's DecompressionBombWarning would raise instead.
    claimed_size_pgm(tmp_path / "map.pgm", 10_000, 9_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(MapLoadError, match="truncated"):
            load_map(write_yaml(tmp_path))


def test_running_out_of_memory_is_a_map_load_error_naming_the_size(tmp_path, monkeypatch):
    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(map_io, "image_to_values", no_memory)
    write_image(tmp_path, [[0, 254, 205]])
    with pytest.raises(MapLoadError, match=r"map\.pgm \(3 x 1 pixels\) does not fit in memory"):
        load_map(write_yaml(tmp_path))


# --- saving and the shipped maps --------------------------------------------------------------


def test_save_then_load_round_trips_free_occupied_and_unknown(tmp_path):
    values = np.array([[0, 100, -1], [100, 0, 0]], dtype=np.int8)
    original = OccupancyMap.from_rows(values, resolution=0.05, origin=(-1.5, 2.25, 0.0))
    image = save_map(original, tmp_path / "saved.yaml")
    assert image == tmp_path / "saved.pgm"
    assert Image.open(image).mode == "L"
    loaded = load_map(tmp_path / "saved.yaml")
    np.testing.assert_array_equal(loaded.data, original.data)
    assert loaded.origin == original.origin
    assert loaded.resolution == original.resolution


def test_save_writes_in_between_values_like_map_saver(tmp_path):
    values = np.array([[10, 20, 21, 64, 65, 101]], dtype=np.int16).astype(np.int8)
    loaded_values = load_map_after_save(tmp_path, values)
    # <= rint(19.6) = 20 free; >= 65 occupied; between, and outside 0..100, unknown.
    assert loaded_values == [0, 0, -1, -1, 100, -1]


@pytest.mark.parametrize("free_thresh, occupied_thresh", [(0.25, 0.9), (0.05, 0.5), (0.196, 0.65)])
def test_save_sorts_by_the_thresholds_and_always_loads_back_as_sorted(
    tmp_path, free_thresh, occupied_thresh
):
    # map_saver writes 0.65 / 0.196 whatever it sorted by: the three pixel values need them.
    values = np.array([[-1, 0, 5, 20, 25, 26, 50, 64, 65, 89, 90, 100]], dtype=np.int8)
    save_map(OccupancyMap.from_rows(values), tmp_path / "m.yaml",
             free_thresh=free_thresh, occupied_thresh=occupied_thresh)
    free, occupied = round(free_thresh * 100), round(occupied_thresh * 100)
    expected = [-1 if v < 0 else 0 if v <= free else 100 if v >= occupied else -1
                for v in values[0].tolist()]
    assert load_map(tmp_path / "m.yaml").data.tolist() == expected
    meta = read_map_yaml(tmp_path / "m.yaml")
    assert (meta.occupied_thresh, meta.free_thresh) == (0.65, 0.196)


def load_map_after_save(tmp_path: Path, values: np.ndarray) -> list[int]:
    save_map(OccupancyMap.from_rows(values), tmp_path / "m.yaml")
    return load_map(tmp_path / "m.yaml").data.tolist()


@pytest.mark.parametrize("name", sorted(SHIPPED_MAPS))
def test_shipped_maps_are_exactly_what_the_drawing_code_draws(name, tmp_path):
    shipped = load_map(PROJECT / "config" / "maps" / f"{name}.yaml")
    drawn = SHIPPED_MAPS[name]()
    np.testing.assert_array_equal(shipped.data, drawn.data)
    assert shipped.origin == drawn.origin
    assert shipped.resolution == drawn.resolution
    # Regenerating gives byte-identical files.
    write_maps(tmp_path)
    for suffix in (".yaml", ".pgm"):
        fresh = (tmp_path / f"{name}{suffix}").read_bytes()
        assert fresh == (PROJECT / "config" / "maps" / f"{name}{suffix}").read_bytes()


def test_shipped_tutorial_grid_is_the_printed_grid_with_the_top_row_last_in_memory():
    occupancy = load_map(PROJECT / "config" / "maps" / "tutorial_grid.yaml")
    assert (occupancy.width, occupancy.height) == (10, 8)
    np.testing.assert_array_equal(occupancy.grid2d(), tutorial_values()[::-1])
    np.testing.assert_array_equal(occupancy.data, tutorial_grid().data)


def test_demo_map_is_an_office_and_warehouse_with_a_non_zero_origin():
    occupancy = demo_map()
    assert (occupancy.width, occupancy.height, occupancy.resolution) == (60, 40, 0.1)
    assert occupancy.origin == (-3.0, -2.0, 0.0)
    counts = occupancy.value_counts()
    assert counts["occupied"] > 0 and counts["unknown"] > 0 and counts["free"] > 1000
    # Every free cell is reachable from every other, also for a robot of radius 0.2 m.
    for radius in (0.0, 0.2):
        assert PlanningGrid(occupancy, robot_radius=radius).component_count == 1
