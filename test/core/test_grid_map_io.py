"""Map loading and saving: the real ROS maps, every map_server mode, and every malformed input."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
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


def test_trinary_thresholds_are_inclusive(tmp_path):
    # Black has occ exactly 1.0 and white exactly 0.0: with occupied_thresh 1.0 and free_thresh
    # 0.0 inclusive comparisons make them occupied and free (strict ones would say unknown).
    occupancy = load_pixels(tmp_path, [[0, 255]], occupied_thresh="1.0", free_thresh="0.0")
    assert occupancy.data.tolist() == [100, 0]


def test_rows_are_flipped_and_origin_and_resolution_kept(tmp_path):
    occupancy = load_pixels(tmp_path, [[0, 254, 254], [254, 254, 205]])
    assert (occupancy.width, occupancy.height) == (3, 2)
    # Bottom image row first.
    assert occupancy.grid2d().tolist() == [[0, 0, -1], [100, 0, 0]]
    assert occupancy.resolution == 0.5
    assert occupancy.origin == (1.0, -2.0, 0.0)


@pytest.mark.parametrize("negate", ["1", "true"])
def test_negate_turns_dark_pixels_free_and_light_pixels_occupied(tmp_path, negate):
    occupancy = load_pixels(tmp_path, [[0, 205, 254, 128]], negate=negate)
    # occ = pixel / 255: 0 -> 0 free, 205 -> 0.80 occupied, 254 -> 1.0 occupied, 128 -> 0.50.
    assert occupancy.data.tolist() == [0, 100, 100, -1]


def test_scale_mode_interpolates_between_the_thresholds_with_rint(tmp_path):
    occupancy = load_pixels(tmp_path, [[254, 200, 128, 100, 0]], mode="scale")
    # occ = 1 - p/255; in between: rint((occ - 0.196) / (0.65 - 0.196) * 100)
    #   200 -> occ 0.2157 -> 4.34 -> 4;  128 -> 0.4980 -> 66.53 -> 67;  100 -> 0.6078 -> 90.71 -> 91
    assert occupancy.data.tolist() == [0, 4, 67, 91, 100]


def test_scale_mode_makes_any_transparent_pixel_unknown(tmp_path):
    pixels = [[[0, 0, 0, 255], [0, 0, 0, 254], [255, 255, 255, 255], [255, 255, 255, 0]]]
    write_image(tmp_path, pixels, name="map.png")
    occupancy = load_map(write_yaml(tmp_path, image="map.png", mode="scale"))
    assert occupancy.data.tolist() == [100, -1, 0, -1]


def test_raw_mode_keeps_pixel_values_up_to_100_and_makes_the_rest_unknown(tmp_path):
    occupancy = load_pixels(tmp_path, [[0, 1, 57, 100, 101, 255]], mode="raw", negate="1")
    assert occupancy.data.tolist() == [0, 1, 57, 100, -1, -1]


def test_rgb_pixels_are_averaged_over_their_three_channels(tmp_path):
    pixels = [[[255, 0, 0], [0, 255, 255], [250, 250, 250], [90, 30, 0]]]
    write_image(tmp_path, pixels, name="map.png")
    occupancy = load_map(write_yaml(tmp_path, image="map.png"))
    # shades 1/3 (occ 0.67 occupied), 2/3 (occ 0.33 unknown), 0.98 (free), 40/255 (occupied).
    assert occupancy.data.tolist() == [100, -1, 0, 100]


def test_trinary_mode_averages_alpha_in_with_the_colour_like_map_server(tmp_path):
    pixels = [[[0, 0, 0, 255], [255, 255, 255, 0], [255, 255, 255, 255], [0, 0, 0, 0]]]
    write_image(tmp_path, pixels, name="map.png")
    occupancy = load_map(write_yaml(tmp_path, image="map.png"))
    # Shades (0+0+0+255)/4 = 0.25 -> occ 0.75 occupied; (3*255+0)/4 = 0.75 -> occ 0.25 unknown.
    assert occupancy.data.tolist() == [100, -1, 0, 100]


def test_grey_with_alpha_and_palette_images_load(tmp_path):
    grey_alpha = np.array([[[0, 255], [254, 255]]], dtype=np.uint8)
    image = Image.fromarray(grey_alpha)
    assert image.mode == "LA"
    image.save(tmp_path / "la.png")
    assert load_map(write_yaml(tmp_path, image="la.png")).data.tolist() == [100, 0]
    palette = Image.fromarray(np.array([[0, 254, 205]], dtype=np.uint8)).convert("P")
    palette.save(tmp_path / "p.png")
    assert load_map(write_yaml(tmp_path, image="p.png")).data.tolist() == [100, 0, -1]


def test_a_16_bit_image_uses_its_values_as_quanta(tmp_path):
    pixels = np.array([[0, 65535, 205 * 257, 254 * 257]], dtype=np.uint16)
    Image.fromarray(pixels).save(tmp_path / "deep.png")
    assert Image.open(tmp_path / "deep.png").mode.startswith("I")
    assert load_map(write_yaml(tmp_path, image="deep.png")).data.tolist() == [100, 0, -1, 0]


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
        ({"occupied_thresh": "1.5"}, "occupied_thresh", "[0, 1]"),
        ({"free_thresh": "-0.1"}, "free_thresh", "[0, 1]"),
        ({"free_thresh": "0.7"}, "free_thresh", "smaller"),
        ({"free_thresh": "0.65"}, "free_thresh", "smaller"),
        ({"negate": "maybe"}, "negate", "0, 1"),
        ({"negate": "0.5"}, "negate", "0, 1"),
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


def test_an_empty_image_name_is_refused(tmp_path):
    path = write_yaml(tmp_path, image='""')
    with pytest.raises(MapLoadError, match="'image'"):
        load_map(path)


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
