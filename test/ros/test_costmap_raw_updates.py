"""planner_node over real DDS following Nav2's costmap_raw: with `map` remapped to
`global_costmap/costmap_raw` (nav2_msgs/Costmap) it takes partial updates from
`global_costmap/costmap_raw_updates` as nav2_msgs/CostmapUpdate, a patch gives the map the same
costs sent whole give, and a misfit patch is refused with the reason while the map stays."""

from __future__ import annotations

import numpy as np
import pytest
from grid_planner_interfaces.srv import ComputePath
from nav2_clients import costmap_message, costmap_update_message
from planner_harness import assert_valid_path, centre, pose
from ros_harness import ros_client, running, wait_until

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.qos import MAP_QOS, MAP_UPDATES_QOS

nav2_msgs = pytest.importorskip("nav2_msgs.msg")

Codes = ComputePath.Response
NS = "/cr"
TOPIC = f"{NS}/global_costmap/costmap_raw"
WIDTH, HEIGHT = 30, 11
FREE = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)  # raw costs, row 0 at the bottom
OPEN = OccupancyMap.from_rows(FREE.astype(np.int8), resolution=1.0, top_row_first=False)
START, GOAL = (1, 5), (28, 5)
# A lethal wall across the route at x = 15 (y 2..8, open at both ends) and beside it a column
# of raw cost 2, which a costmap's OccupancyGrid values cannot tell from 1.
WALL_X, WALL_Y = 15, 2
WALL = np.array([[254, 2]] * 7, dtype=np.uint8)


class RawCostmapClient:
    """Publishes a Costmap and its CostmapUpdates, asks compute_path, counts log lines."""

    def __init__(self, client, proc) -> None:
        self.client, self.proc = client, proc
        node = client.node
        self.map_pub = node.create_publisher(nav2_msgs.Costmap, TOPIC, MAP_QOS)
        self.update_pub = node.create_publisher(nav2_msgs.CostmapUpdate, f"{TOPIC}_updates",
                                                MAP_UPDATES_QOS)
        self.compute = node.create_client(ComputePath, f"{NS}/compute_path")
        proc.wait_for_output("carries nav2_msgs/msg/Costmap: following it")
        wait_until(lambda: self.map_pub.get_subscription_count() > 0
                   and self.update_pub.get_subscription_count() > 0,
                   what="the planner to follow the Costmap and its CostmapUpdates")

    def count(self, text: str) -> int:
        return self.proc.output().count(text)

    def publish_map(self, raw: np.ndarray) -> None:
        msg = costmap_message(raw, 1.0, self.client.node.get_clock().now().to_msg())
        received = self.count("map received in frame 'map'")
        self.map_pub.publish(msg)
        wait_until(lambda: self.count("map received in frame 'map'") > received,
                   what="the full costmap")

    def publish_update(self, x: int, y: int, raw: np.ndarray, stamp=None) -> None:
        self.update_pub.publish(costmap_update_message(
            x, y, raw, stamp or self.client.node.get_clock().now().to_msg()))

    def plan(self) -> object:
        request = ComputePath.Request(goal=centre(OPEN, GOAL), start=centre(OPEN, START),
                                      use_start=True)
        answer = self.client.call(self.compute, request)
        assert answer.error_code == Codes.NONE, answer.error_msg
        return answer.path


@pytest.fixture(scope="module")
def raw_costmap(tmp_path_factory):
    args = ["--ros-args", "-r", f"__ns:={NS}", "-r", "map:=global_costmap/costmap_raw",
            "-p", "use_tf:=false", "-p", "cost_model:=costmap",
            "--log-level", f"{NS[1:]}.grid_planner:=debug"]
    log_dir = tmp_path_factory.mktemp("costmap_raw_updates")
    with running("planner_node", args, log_dir) as proc, ros_client("costmap_raw_test") as client:
        yield RawCostmapClient(client, proc)


def test_following_the_costmap_type_prints_no_error(raw_costmap) -> None:
    """The subscription of the old type goes before the new one is made: DDS refuses a topic's
    second type while the first is still there, and rcutils printed that refusal."""
    output = raw_costmap.proc.output()
    assert "carries nav2_msgs/msg/Costmap: following it" in output
    assert "rcutils" not in output and "error state" not in output, output


def test_a_burst_of_updates_is_applied_in_full(raw_costmap) -> None:
    """Ten patches published back to back, as fast as one publisher can: the node keeps the
    last ten unread, as Nav2's costmap subscriber does, so none is lost to the next."""
    raw_costmap.publish_map(FREE)
    columns = range(3, 23, 2)
    lines = [f"map update 1 x 1 at ({x}, 1) applied" for x in columns]
    before = [raw_costmap.count(line) for line in lines]
    for x in columns:
        raw_costmap.publish_update(x, 1, np.full((1, 1), 254, dtype=np.uint8))
    wait_until(lambda: all(raw_costmap.count(line) > seen
                           for line, seen in zip(lines, before, strict=True)),
               what="all ten patches")


def cells_of(path) -> list[tuple[int, int]]:
    return [OPEN.world_to_cell(p.pose.position.x, p.pose.position.y) for p in path.poses]


def test_a_raw_update_walls_the_route_as_the_same_costs_sent_whole_do(raw_costmap) -> None:
    raw_costmap.publish_map(FREE)
    assert len(raw_costmap.plan().poses) == GOAL[0] - START[0] + 1
    applied = raw_costmap.count("map update 2 x 7 at (15, 2) applied")
    raw_costmap.publish_update(WALL_X, WALL_Y, WALL)
    wait_until(lambda: raw_costmap.count("map update 2 x 7 at (15, 2) applied") > applied,
               what="the raw update")
    around = raw_costmap.plan()
    walled = FREE.copy()
    walled[WALL_Y:WALL_Y + 7, WALL_X:WALL_X + 2] = WALL
    values = OccupancyMap.from_rows(np.where(walled == 254, 100, 0).astype(np.int8),
                                    resolution=1.0, top_row_first=False)
    assert_valid_path(around, values, START, GOAL)
    assert not set(cells_of(around)) & {(WALL_X, y) for y in range(WALL_Y, WALL_Y + 7)}
    assert len(around.poses) == 27 + 2 * 4 + 1  # round the wall's nearer end, y 5 -> 1 and back
    # The same costs sent whole are the map in use already, raw costs included.
    kept = raw_costmap.count("; the same values as before: grid kept")
    raw_costmap.publish_map(walled)
    assert raw_costmap.count("; the same values as before: grid kept") == kept + 1
    assert cells_of(raw_costmap.plan()) == cells_of(around)


@pytest.mark.parametrize(
    ("x", "y", "rows", "stamp", "reason"),
    [(10, 0, 12, None, "the patch covers cells x 10..10, y 0..11, outside the 30 x 11 map"),
     (10, 0, 11, pose(0.0, 0.0).header.stamp, "is older than the current full map's")],
    ids=["outside", "older"],
)
def test_a_misfit_raw_update_is_refused_and_the_map_stays(raw_costmap, x, y, rows, stamp,
                                                          reason) -> None:
    raw_costmap.publish_map(FREE)
    warned = raw_costmap.count("map update refused")
    raw_costmap.publish_update(x, y, np.full((rows, 1), 254, dtype=np.uint8), stamp)
    wait_until(lambda: raw_costmap.count("map update refused") > warned, what="the refusal")
    refusal = [line for line in raw_costmap.proc.output().splitlines()
               if "map update refused" in line][-1]
    assert "WARN" in refusal and reason in refusal, refusal
    assert refusal.endswith("; the map stays as it was"), refusal
    assert len(raw_costmap.plan().poses) == GOAL[0] - START[0] + 1  # not walled at x = 10
