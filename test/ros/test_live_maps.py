"""planner_node over real DDS with live maps: patches on `map_updates` replan the goal only when
they block its path (`replan_on_map_update`), misfit patches are refused with the reason and the
map stays, and `replan_period` replans from a moving start."""

from __future__ import annotations

import numpy as np
import pytest
from grid_planner_interfaces.srv import ComputePath
from live_harness import LiveHarness
from planner_harness import assert_valid_path, centre, pose
from ros_harness import ros_client, running, wait_until

from grid_planner.grid.occupancy import OccupancyMap

Codes = ComputePath.Response
NS = "/lm"
WIDTH, HEIGHT = 30, 11
OPEN = OccupancyMap.from_rows(np.zeros((HEIGHT, WIDTH), dtype=np.int8), resolution=1.0)
START, GOAL = (1, 5), (28, 5)
KEPT_CLEAR = "the current path stays clear, no replan"
KEPT_AGAIN = "; the same values as before: grid kept"


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    log_dir = tmp_path_factory.mktemp("live_maps")
    args = ["--ros-args", "-r", f"__ns:={NS}", "-p", "use_tf:=false",
            "--log-level", f"{NS[1:]}.grid_planner:=debug"]
    with running("planner_node", args, log_dir) as proc, ros_client("live_maps_test") as client:
        yield LiveHarness(client, proc, NS)


def start_goal(live: LiveHarness) -> object:
    """A fresh open map, the start and the goal: the first plan (the straight row y = 5)."""
    live.publish_map(OPEN)
    assert live.set_parameter("replan_on_map_update", "when_blocked").successful
    live.set_start(*OPEN.cell_to_world(*START))
    before = len(live.plans)
    live.goal_pub.publish(centre(OPEN, GOAL))
    first = live.wait_for_plan_between(OPEN.cell_to_world(*START), OPEN.cell_to_world(*GOAL),
                                       before)
    assert len(first.poses) == GOAL[0] - START[0] + 1
    return first


def cells_of(path) -> set[tuple[int, int]]:
    return {OPEN.world_to_cell(p.pose.position.x, p.pose.position.y) for p in path.poses}


def test_a_patch_on_the_path_gives_a_new_plan_around_it(live) -> None:
    start_goal(live)
    before = len(live.plans)
    live.publish_patch(15, 2, 1, 7, [100] * 7)  # a wall across the row, open at both ends
    second = live.wait_for_plan_between(OPEN.cell_to_world(*START),
                                        OPEN.cell_to_world(*GOAL), before)
    walled = OccupancyMap.from_rows(
        np.where((np.arange(WIDTH)[None, :] == 15) & (np.arange(HEIGHT)[:, None] >= 2)
                 & (np.arange(HEIGHT)[:, None] <= 8), 100, 0).astype(np.int8),
        resolution=1.0, top_row_first=False,
    )
    assert_valid_path(second, walled, START, GOAL)
    assert not cells_of(second) & {(15, y) for y in range(2, 9)}
    assert len(second.poses) == 27 + 2 * 4 + 1  # round the wall's nearer end, y 5 -> 1 and back


def test_a_patch_far_from_the_path_replans_only_under_always(live) -> None:
    start_goal(live)
    plans, kept = len(live.plans), live.count(KEPT_CLEAR)
    live.publish_patch(10, 9, 3, 2, [100] * 6)  # far from row 5
    wait_until(lambda: live.count(KEPT_CLEAR) > kept, what="the patch to be judged harmless")
    assert len(live.plans) == plans
    assert live.set_parameter("replan_on_map_update", "always").successful
    try:
        live.publish_patch(20, 9, 3, 2, [100] * 6)
        again = live.wait_for_plan_between(OPEN.cell_to_world(*START),
                                           OPEN.cell_to_world(*GOAL), plans)
        assert len(again.poses) == GOAL[0] - START[0] + 1
    finally:
        assert live.set_parameter("replan_on_map_update", "when_blocked").successful


def test_a_full_map_sent_again_keeps_the_grid_and_a_changed_one_is_prepared_in_its_box(
    live,
) -> None:
    start_goal(live)
    plans, kept, judged = len(live.plans), live.count(KEPT_AGAIN), live.count(KEPT_CLEAR)
    live.publish_map(OPEN)  # what a costmap with always_send_full_costmap does every cycle
    wait_until(lambda: live.count(KEPT_CLEAR) > judged, what="the map to be judged harmless")
    assert live.count(KEPT_AGAIN) == kept + 1
    assert len(live.plans) == plans
    walled = OPEN.grid2d().copy()
    walled[2:9, 15] = 100  # the wall of the patch test, sent as a whole map
    live.publish_map(OccupancyMap.from_rows(walled, resolution=1.0, top_row_first=False))
    assert "map received in frame 'map': " in live.proc.output()
    assert "; 1 x 7 cells changed at (15, 2): prepared again there only" in live.proc.output()
    second = live.wait_for_plan_between(OPEN.cell_to_world(*START),
                                        OPEN.cell_to_world(*GOAL), plans)
    assert len(second.poses) == 27 + 2 * 4 + 1


def test_a_path_short_of_its_goal_is_replanned_when_a_map_uncovers_the_goal(live) -> None:
    # SLAM uncovering unknown space keeps the map's size: the path that goal_tolerance cut
    # short at (25, 5) stayed, 3 cells short of a goal that had become free.
    unexplored = OPEN.grid2d().copy()
    unexplored[:, 26:] = -1
    live.publish_map(OccupancyMap.from_rows(unexplored, resolution=1.0, top_row_first=False))
    live.set_start(*OPEN.cell_to_world(*START))
    assert live.set_parameter("goal_tolerance", 3.0).successful
    try:
        before = len(live.plans)
        live.goal_pub.publish(centre(OPEN, GOAL))
        live.wait_for_plan_between(OPEN.cell_to_world(*START), OPEN.cell_to_world(25, 5),
                                   before)
        before = len(live.plans)
        live.publish_map(OPEN)
        whole = live.wait_for_plan_between(OPEN.cell_to_world(*START),
                                           OPEN.cell_to_world(*GOAL), before)
        assert len(whole.poses) == GOAL[0] - START[0] + 1
        assert ("a cell nearer the goal than the path's end is free and reachable now"
                in live.proc.output())
    finally:
        assert live.set_parameter("goal_tolerance", 0.0).successful


def test_a_bad_replan_policy_is_refused_with_the_choices(live) -> None:
    result = live.set_parameter("replan_on_map_update", "sometimes")
    assert not result.successful
    assert "always, when_blocked, never" in result.reason
    result = live.set_parameter("replan_period", -1.0)
    assert not result.successful
    assert result.reason.endswith("must be 0 (off) or a finite number in [0.05, 86400]")


@pytest.mark.parametrize(
    ("patch", "reason"),
    [
        ({"x": 28, "y": 0, "width": 3, "height": 1, "values": [100] * 3},
         "map update refused: the patch covers cells x 28..30, y 0..0, outside the 30 x 11 map"),
        ({"x": -1, "y": 0, "width": 1, "height": 1, "values": [100]},
         "the patch covers cells x -1..-1, y 0..0, outside the 30 x 11 map"),
        ({"x": 5, "y": 5, "width": 2, "height": 2, "values": [100] * 3},
         "the patch has 3 values, expected width * height = 2 * 2 = 4"),
        ({"x": 5, "y": 5, "width": 1, "height": 1, "values": [100], "frame": "odom"},
         "its frame 'odom' is not the map's frame 'map'"),
        ({"x": 5, "y": 5, "width": 1, "height": 1, "values": [100], "old": True},
         "is older than the current full map's"),
    ],
)
def test_a_bad_patch_is_refused_with_the_reason_and_the_map_stays(live, patch, reason) -> None:
    live.publish_map(OPEN)
    warned = live.count("map update refused")
    patch = dict(patch)
    if patch.pop("old", False):
        patch["stamp"] = pose(0.0, 0.0).header.stamp  # time zero, before the map
    live.publish_patch(**patch)
    wait_until(lambda: live.count("map update refused") > warned, what="the refusal")
    refusal = [line for line in live.proc.output().splitlines() if "update refused" in line][-1]
    assert reason in refusal and refusal.endswith("; the map stays as it was"), refusal
    # The map is as it was and the node serves: (5, 5) is still free.
    answer = live.request(centre(OPEN, (5, 5)), start=centre(OPEN, START))
    assert answer.error_code == Codes.NONE, answer.error_msg


def test_a_patch_before_any_full_map_is_refused(tmp_path) -> None:
    args = ["--ros-args", "-r", "__ns:=/lm0", "-p", "use_tf:=false"]
    with running("planner_node", args, tmp_path) as proc, ros_client("live_maps_first") as client:
        harness = LiveHarness(client, proc, "/lm0")
        harness.publish_patch(0, 0, 1, 1, [100])
        proc.wait_for_output("map update refused: no full map has been received yet")
        answer = harness.request(centre(OPEN, GOAL), start=centre(OPEN, START))
        assert answer.error_code == Codes.NO_MAP


def test_replan_period_replans_from_a_moving_start(live) -> None:
    start_goal(live)
    assert live.set_parameter("replan_period", 0.2).successful
    try:
        for x in (3, 6, 9):
            before = len(live.plans)
            live.set_amcl(*OPEN.cell_to_world(x, 5))
            moved = live.wait_for_plan_between(OPEN.cell_to_world(x, 5),
                                               OPEN.cell_to_world(*GOAL), before)
            assert len(moved.poses) == GOAL[0] - x + 1
            before = len(live.plans)
            # At that rate: the same start is planned again without any new input.
            live.wait_for_plan_between(OPEN.cell_to_world(x, 5), OPEN.cell_to_world(*GOAL),
                                       before)
    finally:
        assert live.set_parameter("replan_period", 0.0).successful


def test_a_patch_that_blocks_the_path_while_inactive_is_replanned_at_activation(tmp_path) -> None:
    # Maps and patches that came while inactive replanned nothing, and activation did not look:
    # the path through the new wall stayed on `plan` until a later map event.
    from nav2_clients import ACTIVATE, CONFIGURE, DEACTIVATE, Lifecycle

    namespace = "/lma"
    args = ["--ros-args", "-r", f"__ns:={namespace}", "-p", "use_tf:=false",
            "-p", "autostart_node:=false", "-p", "bond_heartbeat_period:=0.0",
            "--log-level", f"{namespace[1:]}.grid_planner:=debug"]
    with (running("planner_node", args, tmp_path, ready_text=None) as proc,
          ros_client("live_activation") as client):
        lifecycle = Lifecycle(client, f"{namespace}/grid_planner")
        assert lifecycle.change(CONFIGURE) and lifecycle.change(ACTIVATE)
        harness = LiveHarness(client, proc, namespace)
        first = start_goal(harness)
        assert lifecycle.change(DEACTIVATE)
        harness.publish_patch(15, 2, 1, 7, [100] * 7)  # across the path
        proc.wait_for_output("map update 1 x 7 at (15, 2) applied")
        before = len(harness.plans)
        assert lifecycle.change(ACTIVATE)
        again = harness.wait_for_plan_between(OPEN.cell_to_world(*START),
                                              OPEN.cell_to_world(*GOAL), before)
    assert len(first.poses) == GOAL[0] - START[0] + 1
    assert not cells_of(again) & {(15, y) for y in range(2, 9)}
    assert len(again.poses) == 27 + 2 * 4 + 1


def test_a_replan_period_shorter_than_a_plan_still_publishes_plans(live) -> None:
    # Each tick cancelled the plan still running: 0 plans in 6 s on a 2000^2 map at 0.2 s.
    side = 1500  # 8-connected Dijkstra corner to corner: a few hundred ms a plan
    big = OccupancyMap.from_rows(np.zeros((side, side), dtype=np.int8), resolution=1.0)
    live.publish_map(big)
    assert live.set_parameter("algorithm", "dijkstra").successful
    assert live.set_parameter("connectivity", 8).successful
    assert live.set_parameter("max_nodes", 10_000_000).successful
    assert live.set_parameter("replan_on_map_update", "never").successful
    start, goal = big.cell_to_world(0, 0), big.cell_to_world(side - 1, side - 1)
    live.set_start(*start)
    before = len(live.plans)
    live.goal_pub.publish(centre(big, (side - 1, side - 1)))
    live.wait_for_plan_between(start, goal, before)
    try:
        assert live.set_parameter("replan_period", 0.05).successful
        before = len(live.plans)
        wait_until(lambda: len(live.plans) >= before + 3, timeout=30.0,
                   what="three replans at a period shorter than one plan")
    finally:
        assert live.set_parameter("replan_period", 0.0).successful
        assert live.set_parameter("algorithm", "astar").successful
        assert live.set_parameter("connectivity", 4).successful
        assert live.set_parameter("max_nodes", 2_000_000).successful
        assert live.set_parameter("replan_on_map_update", "when_blocked").successful
    # The corner-to-corner plans (a diagonal of `side` poses); the map's arrival may also have
    # replanned the previous test's goal, a few cells long, once dijkstra was set.
    took = [float(line.rsplit(", ", 1)[1].split(" ms")[0])
            for line in live.proc.output().splitlines()
            if f"plan: dijkstra, {side} poses" in line]
    assert len(took) >= 4
    assert min(took) > 50.0  # each plan is longer than the period
