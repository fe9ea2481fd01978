"""The nodes under simulated time (`use_sim_time`, a `/clock` as Gazebo publishes it), over real
DDS: what must keep its pace in wall time does so while the simulation stands still, a patch
made after the simulation was reset (the clock jumped back) is applied, and map_publisher
stamps its map once the clock has come."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from builtin_interfaces.msg import Time
from grid_planner_interfaces.srv import ComputePath
from nav2_clients import costmap_message, costmap_update_message
from nav_msgs.msg import OccupancyGrid
from planner_harness import PlannerHarness, centre
from ros_harness import ros_client, running, wait_until
from rosgraph_msgs.msg import Clock
from shared_data import PROJECT_ROOT

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.qos import MAP_QOS

nav2_msgs = pytest.importorskip("nav2_msgs.msg")

Codes = ComputePath.Response
NS = "/st"
TOPIC = f"{NS}/global_costmap/costmap_raw"
WIDTH, HEIGHT = 30, 11
FREE = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)  # raw costs, row 0 at the bottom
OPEN = OccupancyMap.from_rows(FREE.astype(np.int8), resolution=1.0, top_row_first=False)
START, GOAL = (1, 5), (28, 5)
WALL = np.full((7, 1), 254, dtype=np.uint8)  # across the route at x = 15, y 2..8
APPLIED = "map update 1 x 7 at (15, 2) applied"
REFUSED = "map update refused"


def stamp(seconds: float) -> Time:
    return Time(sec=int(seconds), nanosec=round(seconds % 1 * 1e9))


class SimClock:
    """Publishes `/clock` at 50 Hz from a thread once `set` gives it a time (None: silent)."""

    def __init__(self, node) -> None:
        self._pub = node.create_publisher(Clock, "/clock", 10)
        self._seconds: float | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def set(self, seconds: float | None) -> None:
        self._seconds = seconds

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            if self._seconds is not None:
                self._pub.publish(Clock(clock=stamp(self._seconds)))

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


class SimPlanner(PlannerHarness):
    """A planner on simulated time following a Nav2 raw costmap, with a `/clock` of its own."""

    def __init__(self, client, proc) -> None:
        super().__init__(client, proc, NS)
        node = client.node
        self.clock = SimClock(node)
        self.costmap_pub = node.create_publisher(nav2_msgs.Costmap, TOPIC, MAP_QOS)
        self.update_pub = node.create_publisher(nav2_msgs.CostmapUpdate, f"{TOPIC}_updates",
                                                MAP_QOS)

    def count(self, text: str) -> int:
        return self.proc.output().count(text)

    def publish_costmap(self, seconds: float) -> None:
        received = self.count("map received in frame 'map'")
        self.costmap_pub.publish(costmap_message(FREE, 1.0, stamp(seconds)))
        wait_until(lambda: self.count("map received in frame 'map'") > received,
                   what="the full costmap")

    def publish_wall(self, seconds: float) -> None:
        self.update_pub.publish(costmap_update_message(15, 2, WALL, stamp(seconds)))

    def plan(self) -> object:
        answer = self.request(centre(OPEN, GOAL), centre(OPEN, START))
        assert answer.error_code == Codes.NONE, answer.error_msg
        return answer.path

    def wait_for_node_time(self, test, what: str) -> None:
        """Until the stamp of a plan (the node's clock) passes `test`."""
        wait_until(lambda: test(self.plan().header.stamp.sec), what=what)


def test_map_publisher_stamps_its_map_once_simulated_time_has_begun(tmp_path) -> None:
    yaml_file = PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml"
    args = ["--ros-args", "-r", "__ns:=/stm", "-p", f"yaml_filename:={yaml_file}",
            "-p", "use_sim_time:=true"]
    with ros_client("sim_map_test") as client, running("map_publisher", args, tmp_path):
        stamps: list[int] = []
        client.node.create_subscription(OccupancyGrid, "/stm/map",
                                        lambda msg: stamps.append(msg.header.stamp.sec), MAP_QOS)
        wait_until(lambda: stamps, what="the latched map")
        assert stamps[0] == 0  # no /clock yet: simulated time has not begun
        clock = SimClock(client.node)
        try:
            clock.set(1000.0)
            wait_until(lambda: stamps[-1] >= 1000, what="the map stamped in simulated time")
        finally:
            clock.close()


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    args = ["--ros-args", "-r", f"__ns:={NS}", "-r", "map:=global_costmap/costmap_raw",
            "-p", "use_sim_time:=true", "-p", "use_tf:=false", "-p", "cost_model:=costmap",
            "--log-level", f"{NS[1:]}.grid_planner:=debug"]
    log_dir = tmp_path_factory.mktemp("sim_time")
    with running("planner_node", args, log_dir) as proc, ros_client("sim_time_test") as client:
        planner = SimPlanner(client, proc)
        try:
            yield planner
        finally:
            planner.clock.close()


def test_while_simulated_time_stands_still_the_costmap_is_followed_and_replan_period_ticks(
    sim,
) -> None:
    # No /clock at all: the node's clock reads 0 and does not move.
    sim.proc.wait_for_output("carries nav2_msgs/msg/Costmap: following it")
    answer = sim.request(centre(OPEN, GOAL), centre(OPEN, START))
    # The answer names the topic the remap gave the map.
    assert (answer.error_code, answer.error_msg) == (
        Codes.NO_MAP, f"no map received yet on '{TOPIC}'")
    wait_until(lambda: sim.costmap_pub.get_subscription_count() > 0,
               what="the planner to subscribe as nav2_msgs/Costmap")
    sim.publish_costmap(0.0)
    assert len(sim.plan().poses) == GOAL[0] - START[0] + 1
    sim.set_start(*OPEN.cell_to_world(*START))
    before = len(sim.plans)
    sim.goal_pub.publish(centre(OPEN, GOAL))
    sim.wait_for_plans(before + 1)
    assert sim.set_parameter("replan_period", 0.2).successful
    try:
        counted = len(sim.plans)
        time.sleep(1.5)
        assert len(sim.plans) - counted >= 4  # about 7 in 1.5 s of wall time
    finally:
        assert sim.set_parameter("replan_period", 0.0).successful


def test_a_patch_made_after_the_simulation_was_reset_is_applied(sim) -> None:
    sim.clock.set(1000.0)
    sim.wait_for_node_time(lambda sec: sec >= 1000, "the node's clock to read 1000 s")
    sim.publish_costmap(1000.0)
    assert len(sim.plan().poses) == GOAL[0] - START[0] + 1
    sim.clock.set(2.0)  # the world is reset
    sim.wait_for_node_time(lambda sec: sec < 10, "the node's clock to go back")
    applied, refused = sim.count(APPLIED), sim.count(REFUSED)
    sim.publish_wall(2.5)
    wait_until(lambda: sim.count(APPLIED) > applied or sim.count(REFUSED) > refused,
               what="the wall's update to be judged")
    assert sim.count(REFUSED) == refused, sim.proc.output()[-600:]
    cells = {OPEN.world_to_cell(p.pose.position.x, p.pose.position.y) for p in sim.plan().poses}
    assert not cells & {(15, y) for y in range(2, 9)}


def test_a_patch_older_than_the_full_map_is_still_refused_while_time_runs_on(sim) -> None:
    sim.clock.set(2000.0)
    sim.wait_for_node_time(lambda sec: sec >= 2000, "the node's clock to read 2000 s")
    sim.publish_costmap(2000.0)
    refused = sim.count("is older than the current full map's 2000.000 s")
    sim.publish_wall(1999.0)
    wait_until(lambda: sim.count("is older than the current full map's 2000.000 s") > refused,
               what="the stale update to be refused")
    assert len(sim.plan().poses) == GOAL[0] - START[0] + 1
