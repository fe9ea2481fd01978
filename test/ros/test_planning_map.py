"""planner_node's PlanningMap (no DDS; it lives with the nodes): patches applied to every grid it
keeps, through one patched map, and a patch that changes nothing keeps the map and its grids;
a grid built on first use holds up nobody else."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from grid_planner.grid.costs import costmap_value
from grid_planner.grid.errors import PlannerCancelled
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.grid.patching import MapPatch, PatchError
from grid_planner.nodes.planning_map import GridSettings, PlanningMap, inflation_refusal

UNIFORM = GridSettings(65, False, 0.2)
COSTMAP = GridSettings(65, True, 0.0, "costmap")


def planning_map(raw: np.ndarray | None = None) -> PlanningMap:
    values = np.zeros(40 * 30, dtype=np.int8) if raw is None else costmap_value(raw)
    maps = PlanningMap()
    occupancy = OccupancyMap(width=40, height=30, resolution=0.1, data=values, raw_costs=raw)
    maps.replace(occupancy, 1, UNIFORM)
    maps.grid(COSTMAP)
    return maps


def test_a_patch_reaches_every_grid_through_one_map() -> None:
    maps = planning_map()
    raw = np.full(6, 254, dtype=np.uint8)
    maps.apply(MapPatch(10, 10, 3, 2, costmap_value(raw), raw), 2)
    uniform, costmap = maps.peek(UNIFORM), maps.peek(COSTMAP)
    assert uniform.map is costmap.map is maps.current
    assert maps.current.raw_costs.reshape(30, 40)[10:12, 10:13].tolist() == [[254] * 3] * 2
    assert uniform.lethal_mask.reshape(30, 40)[10:12, 10:13].all()
    assert costmap.lethal_mask.reshape(30, 40)[10:12, 10:13].all()


def test_a_patch_that_changes_nothing_keeps_the_map_and_its_grids() -> None:
    raw = np.zeros(40 * 30, dtype=np.uint8)
    raw[5] = 200
    maps = planning_map(raw)
    before = (maps.current, maps.peek(UNIFORM), maps.peek(COSTMAP))
    window = raw.reshape(30, 40)[0:2, 0:10].reshape(-1).copy()
    maps.apply(MapPatch(0, 0, 10, 2, costmap_value(window), window), 2)
    assert (maps.current, maps.peek(UNIFORM), maps.peek(COSTMAP)) == before
    # The same values without the raw costs would read 200 back as 198: a change.
    maps.apply(MapPatch(0, 0, 10, 2, costmap_value(window)), 3)
    assert maps.current is not before[0]
    assert maps.current.raw_costs[5] == 198


def test_a_patch_older_than_the_full_map_is_refused_unless_the_clock_went_back() -> None:
    maps = planning_map()
    maps.replace(maps.current, 5_000, UNIFORM, received_ns=5_000)
    with pytest.raises(PatchError, match="older than the current full map"):
        maps.apply(LETHAL_PATCH, 4_000, now_ns=6_000)
    # A publisher whose clock runs ahead of ours is no reason to take a stale patch.
    with pytest.raises(PatchError, match="older than the current full map"):
        maps.apply(LETHAL_PATCH, 4_000, now_ns=5_000)
    maps.replace(maps.current, 5_000, UNIFORM, received_ns=4_000)
    with pytest.raises(PatchError, match="older than the current full map"):
        maps.apply(LETHAL_PATCH, 3_000, now_ns=4_000)
    assert not maps.current.data.any()
    # The clock reads earlier than when the map came: a simulator was reset, and a patch of
    # the new run is applied.
    maps.apply(LETHAL_PATCH, 4_000, now_ns=3_500)
    assert maps.current.data.reshape(30, 40)[10:12, 10:13].all()


# Six lethal cells at (10..12, 10..11).
LETHAL_PATCH = MapPatch(10, 10, 3, 2, costmap_value(np.full(6, 254, dtype=np.uint8)),
                        np.full(6, 254, dtype=np.uint8))
SLOW = GridSettings(65, False, 0.3)
SLOWER = GridSettings(65, False, 0.4)


class GatedBuilds:
    """GridSettings.build, where a build under SLOW waits until `release` is set (under
    SLOWER, until `release_slower` is)."""

    def __init__(self, monkeypatch) -> None:
        self.release, self.started = threading.Event(), threading.Event()
        self.release_slower, self.started_slower = threading.Event(), threading.Event()
        build = GridSettings.build

        def gated(settings, occupancy, timings=None):
            if settings == SLOW:
                self.started.set()
                assert self.release.wait(30.0)
            elif settings == SLOWER:
                self.started_slower.set()
                assert self.release_slower.wait(30.0)
            return build(settings, occupancy, timings)

        monkeypatch.setattr(GridSettings, "build", gated)


def in_thread(call) -> tuple[threading.Thread, list]:
    """Start `call` in a thread; the list gets its result, or the exception it raised."""
    out: list = []

    def run() -> None:
        try:
            out.append(call())
        except Exception as error:
            out.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


def test_a_grid_being_built_holds_up_neither_other_callers_nor_a_cancelled_plan(monkeypatch):
    """A planner's grid was built under the map's lock: every plan of every planner, the
    current map and a cancel waited for it (up to a second on a 4096^2 map). The build here
    waits for the test, so each call below returns only if it does not wait for the build."""
    maps = planning_map()
    gate = GatedBuilds(monkeypatch)
    first, built = in_thread(lambda: maps.grid(SLOW))
    assert gate.started.wait(10.0)
    cancel = threading.Event()
    cancel.set()
    for call in (lambda: maps.current, lambda: maps.grid(UNIFORM),
                 lambda: maps.grid(SLOW, cancel)):
        thread, out = in_thread(call)
        thread.join(10.0)
        assert out, "a call waited for another settings' build"
    assert isinstance(out[0], PlannerCancelled)
    assert maps.peek(SLOW) is None
    gate.release.set()
    first.join(10.0)
    assert built and maps.peek(SLOW) is built[0]  # kept for the next plan


def test_a_patch_waits_for_a_build_and_patches_its_grid(monkeypatch):
    maps = planning_map()
    gate = GatedBuilds(monkeypatch)
    first, built = in_thread(lambda: maps.grid(SLOW))
    assert gate.started.wait(10.0)
    patching, patched = in_thread(lambda: maps.apply(LETHAL_PATCH, 2))
    patching.join(0.5)
    assert not patched  # it waits for the build, as it waited for the lock
    gate.release.set()
    for thread in (first, patching):
        thread.join(10.0)
    assert patched == [None]
    grid = maps.peek(SLOW)
    assert grid is not built[0] and grid.map is maps.current
    assert grid.lethal_mask.reshape(30, 40)[10:12, 10:13].all()


def test_a_patch_waits_only_for_the_builds_under_way_when_it_came(monkeypatch):
    """It waited for a moment with no build at all: plans that kept starting builds (more
    settings than MAX_GRIDS) held patches and maps up for as long as they came."""
    maps = planning_map()
    gate = GatedBuilds(monkeypatch)
    waiting = threading.Event()
    wait_for_builds = maps._wait_for_builds

    def noted() -> None:  # called with the lock held, which `later` needs to begin its build
        waiting.set()
        wait_for_builds()

    monkeypatch.setattr(maps, "_wait_for_builds", noted)
    first, _ = in_thread(lambda: maps.grid(SLOW))
    assert gate.started.wait(10.0)
    patching, patched = in_thread(lambda: maps.apply(LETHAL_PATCH, 2))
    assert waiting.wait(10.0)  # the patch came before `later`'s build began
    later, _ = in_thread(lambda: maps.grid(SLOWER))
    assert gate.started_slower.wait(10.0)
    gate.release.set()
    patching.join(10.0)
    assert patched == [None], "the patch waited for a build that began after it"
    gate.release_slower.set()
    for thread in (first, later):
        thread.join(10.0)


def test_a_build_whose_thread_cannot_start_holds_nobody_up(monkeypatch):
    maps = planning_map()
    start = threading.Thread.start

    def refused(thread) -> None:
        if thread.name == "grid_build":
            raise RuntimeError("can't start new thread")
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", refused)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        maps.grid(SLOW)
    patching, patched = in_thread(lambda: maps.apply(LETHAL_PATCH, 2))
    patching.join(10.0)
    assert patched == [None]


def test_a_float32_resolution_admits_the_inflation_its_exact_value_does():
    # 0.03 arrives as 0.0299999993: 3.0 m read 100.0000022 cells, over max_inflation_cells 100.
    received = float(np.float32(0.03))
    assert inflation_refusal(3.0, 0.03, 100) is None
    assert inflation_refusal(3.0, received, 100) is None
    assert inflation_refusal(3.1, received, 100) is not None
