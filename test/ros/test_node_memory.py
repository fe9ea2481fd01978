"""planner_node's memory under a stream of patches and plans on a big map: it stays near where
it started. Each patch and plan allocates grid-sized arrays in one of the node's threads; with
glibc's default of an arena per thread, freed blocks piled up per thread and the node grew by
350-570 MB within the first 150 patches (`malloc_arenas`)."""

from __future__ import annotations

import numpy as np
from grid_planner_interfaces.srv import ComputePath
from live_harness import LiveHarness
from planner_harness import pose
from ros_harness import ros_client, rss_bytes, running, wait_until

from grid_planner.grid.occupancy import OccupancyMap

NS = "/memory"
SIDE = 2048
RESOLUTION = 0.05
PATCHES, PATCH_SIDE, PLAN_EVERY = 150, 100, 5
APPLIED = f"map update {PATCH_SIDE} x {PATCH_SIDE}"
GROWTH_LIMIT_MB = 150  # here the node grows 15-30 MB; without the arena limit, 350 MB and more


def sparse_map(rng: np.random.Generator) -> OccupancyMap:
    """0.5 % obstacles, the corners around the start and the goal left free."""
    rows = np.where(rng.random((SIDE, SIDE)) < 0.005, 100, 0).astype(np.int8)
    rows[:20, :20] = rows[-20:, -20:] = 0
    return OccupancyMap.from_rows(rows, resolution=RESOLUTION, top_row_first=False)


def test_a_stream_of_patches_and_plans_on_a_2048_map_leaves_memory_near_its_start(tmp_path):
    rng = np.random.default_rng(5)
    args = ["--ros-args", "-r", f"__ns:={NS}", "-p", "use_tf:=false", "-p", "robot_radius:=0.22",
            "--log-level", f"{NS[1:]}.grid_planner:=debug"]
    with running("planner_node", args, tmp_path) as proc, ros_client("memory_test") as client:
        live = LiveHarness(client, proc, NS)
        live.publish_map(sparse_map(rng))
        far = SIDE * RESOLUTION - 0.2

        def plan() -> None:
            answer = live.request(pose(far, far), start=pose(0.2, 0.2))
            assert answer.error_code == ComputePath.Response.NONE, answer.error_msg

        plan()  # warm-up: the kernels, the executor threads and the middleware's pools exist
        before = rss_bytes(proc.process.pid)
        for index in range(PATCHES):
            x, y = (int(v) for v in rng.integers(0, SIDE - PATCH_SIDE, size=2))
            values = np.where(rng.random(PATCH_SIDE**2) < 0.01, 100, 0)
            live.publish_patch(x, y, PATCH_SIDE, PATCH_SIDE, values)
            # one patch at a time: the updates topic keeps only the latest
            applied = index + 1
            wait_until(lambda done=applied: live.count(APPLIED) == done, what=f"patch {applied}")
            if index % PLAN_EVERY == 0:
                plan()
        plan()
        after = rss_bytes(proc.process.pid)
    growth_mb = (after - before) / 2**20
    print(f"\nnode RSS {before / 2**20:.0f} -> {after / 2**20:.0f} MB after {PATCHES} patches "
          f"and {PATCHES // PLAN_EVERY + 1} plans")
    assert growth_mb <= GROWTH_LIMIT_MB
