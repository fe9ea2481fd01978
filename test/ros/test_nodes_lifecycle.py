"""Each executable starts as a real rclpy node, answers over DDS and stops cleanly on signals."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from nav_msgs.msg import OccupancyGrid
from nav_msgs.srv import GetMap
from rcl_interfaces.srv import ListParameters
from ros_harness import NodeProcess, ros_client, running, wait_until
from shared_data import PROJECT_ROOT

from grid_planner.nodes.qos import MAP_QOS

TUTORIAL_MAP = PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml"


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
@pytest.mark.parametrize(
    ("executable", "args"),
    [
        ("planner_node", []),
        ("puzzle_node", []),
        ("map_publisher", ["--ros-args", "-p", f"yaml_filename:={TUTORIAL_MAP}"]),
        ("bringup", ["--map", str(TUTORIAL_MAP)]),
    ],
)
def test_executable_logs_ready_and_exits_cleanly(
    executable: str, args: list[str], sig: int, tmp_path: Path
) -> None:
    proc = NodeProcess(executable, args, tmp_path)
    try:
        proc.wait_for_output("ready: bringup" if executable == "bringup" else "ready:")
    finally:
        code = proc.stop(sig)
    assert code == 0, proc.output()
    assert "Traceback" not in proc.output()


def test_bringup_starts_from_a_plain_venv_without_ament_prefix_path(tmp_path: Path) -> None:
    # README runs `.venv/bin/bringup` from a fresh shell: no ROS setup script, no ament index.
    proc = NodeProcess("bringup", [], tmp_path, unset=["AMENT_PREFIX_PATH"])
    try:
        proc.wait_for_output("ready: bringup runs 3 nodes")
    finally:
        code = proc.stop()
    assert code == 0, proc.output()
    assert "demo_map.yaml" in proc.output()
    assert "Traceback" not in proc.output()


CONTEXT_CLOSED_BEHIND_THE_EXECUTOR = """
import sys
import threading
import time
import rclpy
from rclpy.node import Node
from grid_planner.nodes.runtime import spin_nodes

WHEN = sys.argv[1]


def close_the_context() -> None:
    # As rclpy's signal thread does once its wake-up was spent: a C-level shutdown, which runs
    # no on_shutdown callback and triggers no guard of the executor.
    rclpy.get_default_context().handle.shutdown()


def close_the_context_later() -> None:
    time.sleep(0.5)
    close_the_context()


def context_closer() -> Node:
    if WHEN == "while a node is created":
        close_the_context()
        return Node("context_closer")
    node = Node("context_closer")
    threading.Thread(target=close_the_context_later, daemon=True).start()
    return node


sys.exit(spin_nodes([context_closer], num_threads=2, args=["context_closer"]))
"""


@pytest.mark.parametrize("when", ["while a node is created", "between two waits"])
def test_spin_ends_cleanly_when_the_context_shuts_down(tmp_path: Path, when: str) -> None:
    # The race behind a rare hang on SIGTERM just after start-up, made deterministic: the
    # context closes under the executor's waits, or under a node still being created.
    child = subprocess.run(
        [sys.executable, "-c", CONTEXT_CLOSED_BEHIND_THE_EXECUTOR, when],
        capture_output=True, text=True, timeout=30, cwd=tmp_path,
    )
    assert child.returncode == 0, child.stdout + child.stderr
    assert "Traceback" not in child.stderr


HANGING_TEARDOWN = """
import ctypes
import os
import signal
import sys
import threading
import time
from rclpy.node import Node
from grid_planner.nodes import runtime

runtime.TEARDOWN_LIMIT_S = 1.0
HOLD_THE_LOCK = sys.argv[1] == "holding"


class HangingNode(Node):
    def destroy_node(self) -> None:
        if HOLD_THE_LOCK:
            ctypes.PyDLL(None).sleep(600)  # a C call that keeps the interpreter's lock
        else:
            time.sleep(600)
        super().destroy_node()


def interrupt_soon() -> None:
    time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGINT)


def hanging() -> Node:
    threading.Thread(target=interrupt_soon, daemon=True).start()
    return HangingNode("hanging_teardown")


sys.exit(runtime.spin_nodes([hanging], num_threads=2, args=["hanging"]))
"""


@pytest.mark.parametrize(("mode", "code", "says"), [
    ("releasing", 0, "hanging: the stop has not finished after 1 s; leaving without the rest"),
    ("holding", 1, "Timeout (0:00:03)!"),
])
def test_a_teardown_that_hangs_ends_by_its_deadline_saying_where(
    tmp_path: Path, mode: str, code: int, says: str
) -> None:
    # A destroy that never returns: with the interpreter's lock free the watcher leaves with 0,
    # holding it faulthandler ends the process with 1; both print the hanging frame.
    child = subprocess.run(
        [sys.executable, "-c", HANGING_TEARDOWN, mode],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert child.returncode == code, child.stdout + child.stderr
    assert says in child.stderr, child.stderr
    assert 'in destroy_node' in child.stderr, child.stderr


HANGING_EXIT = """
import sys
import threading
import time
from grid_planner.nodes import runtime

runtime.TEARDOWN_LIMIT_S = 1.0


def main() -> int:
    threading.Thread(target=time.sleep, args=(600,), name="never_ends").start()
    return 0


sys.exit(runtime.run_entry("__main__", []))
"""


def test_an_interpreter_exit_that_hangs_after_main_ends_by_its_deadline(tmp_path: Path) -> None:
    # A console script's main returned, but a thread nobody joins keeps the interpreter's exit
    # waiting: the deadline armed by run_entry ends the process with 0, saying where it was.
    child = subprocess.run(
        [sys.executable, "-c", HANGING_EXIT], capture_output=True, text=True, timeout=60,
        cwd=tmp_path,
    )
    assert child.returncode == 0, child.stdout + child.stderr
    assert "__main__: the stop has not finished after 1 s" in child.stderr, child.stderr
    assert "in _shutdown" in child.stderr, child.stderr  # the main thread, joining the thread


def test_map_publisher_refuses_a_missing_map_with_a_clear_error(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.yaml"
    proc = NodeProcess("map_publisher", ["--ros-args", "-p", f"yaml_filename:={missing}"], tmp_path)
    proc.process.wait(30)
    assert proc.stop() == 1
    assert str(missing) in proc.output()
    assert "Traceback" not in proc.output()


def test_nodes_declare_their_parameters_and_advertise_services(tmp_path: Path) -> None:
    bringup = running("bringup", ["--map", str(TUTORIAL_MAP)], tmp_path, "ready: bringup")
    with bringup, ros_client() as client:
        node = client.node
        expected = {
            "grid_planner": {"algorithm", "occupied_threshold", "allow_unknown", "robot_radius",
                             "goal_tolerance", "max_planning_time", "publish_expanded",
                             "use_final_approach_orientation", "global_frame",
                             "start_pose_transient_local"},
            "puzzle_solver": {"default_algorithm", "default_heuristic", "default_max_depth",
                              "default_timeout", "max_nodes"},
            "map_publisher": {"yaml_filename", "frame_id", "topic_name"},
        }
        for node_name, names in expected.items():
            lister = node.create_client(ListParameters, f"/{node_name}/list_parameters")
            listed = set(client.call(lister, ListParameters.Request()).result.names)
            assert names <= listed, (node_name, names - listed)
        services = {
            "/plan_path": "nav_msgs/srv/GetPlan",
            "/compute_path": "grid_planner_interfaces/srv/ComputePath",
            "/solve_puzzle": "grid_planner_interfaces/srv/SolvePuzzle",
            "/map_server/map": "nav_msgs/srv/GetMap",
        }
        for name, type_name in services.items():
            wait_until(
                lambda name=name, type_name=type_name: [type_name]
                == dict(node.get_service_names_and_types()).get(name),
                what=f"service {name} of type {type_name}",
            )


def test_latched_map_reaches_a_subscriber_that_starts_after_publication(tmp_path: Path) -> None:
    args = ["--ros-args", "-p", f"yaml_filename:={TUTORIAL_MAP}"]
    with running("map_publisher", args, tmp_path), ros_client() as client:
        time.sleep(1.0)  # the map was published at start-up, well before we subscribe
        received: list[OccupancyGrid] = []
        client.node.create_subscription(OccupancyGrid, "map", received.append, MAP_QOS)
        wait_until(lambda: received, what="the latched map")
        grid = received[0]
        assert (grid.info.width, grid.info.height) == (10, 8)
        assert grid.header.frame_id == "map"
        assert sum(1 for v in grid.data if v == 100) == 22
        getter = client.node.create_client(GetMap, "map_server/map")
        served = client.call(getter, GetMap.Request()).map
        assert list(served.data) == list(grid.data)


def test_planner_node_receives_the_map_with_the_spec_qos(tmp_path: Path) -> None:
    args = ["--ros-args", "-p", f"yaml_filename:={TUTORIAL_MAP}"]
    with (
        running("map_publisher", args, tmp_path),
        running("planner_node", [], tmp_path) as planner,
        ros_client() as client,
    ):
        planner.wait_for_output("map received in frame")
        # The graph reports each endpoint's QoS as it was created: both ends use MAP_QOS.
        ends = {}

        def both_ends_seen() -> bool:
            node = client.node
            ends["subscription"] = [
                info for info in node.get_subscriptions_info_by_topic("/map")
                if info.node_name == "grid_planner"
            ]
            ends["publisher"] = [
                info for info in node.get_publishers_info_by_topic("/map")
                if info.node_name == "map_publisher"
            ]
            return all(ends.values())

        wait_until(both_ends_seen, what="grid_planner's /map subscription and the publisher")
        for role, infos in ends.items():
            assert len(infos) == 1, (role, infos)
            qos = infos[0].qos_profile
            assert qos.reliability == MAP_QOS.reliability, role
            assert qos.durability == MAP_QOS.durability, role


def test_bringup_flags_set_namespace_sim_time_and_map_publisher(tmp_path: Path) -> None:
    from rcl_interfaces.srv import GetParameters

    params = tmp_path / "params.yaml"
    params.write_text(
        "/**/grid_planner:\n  ros__parameters:\n    algorithm: bfs\n"
        "/**/puzzle_solver:\n  ros__parameters:\n    default_heuristic: misplaced\n"
    )
    args = ["--namespace", "robot1", "--use-sim-time", "--no-use-map-publisher",
            "--params-file", str(params)]
    with running("bringup", args, tmp_path, "ready: bringup runs 2 nodes"), ros_client() as client:
        node = client.node
        for node_name, name, expected in (
            ("grid_planner", "algorithm", "bfs"),
            ("puzzle_solver", "default_heuristic", "misplaced"),
        ):
            getter = node.create_client(GetParameters, f"/robot1/{node_name}/get_parameters")
            answer = client.call(getter, GetParameters.Request(names=[name, "use_sim_time"]))
            assert answer.values[0].string_value == expected
            assert answer.values[1].bool_value is True
        wait_until(
            lambda: "/robot1/compute_path" in dict(node.get_service_names_and_types()),
            what="the namespaced compute_path service",
        )
        # Node names travel on ros_discovery_info, apart from endpoint discovery: wait for them
        # too. bringup's nodes share one participant, so they are announced together.
        wait_until(
            lambda: {("grid_planner", "/robot1"), ("puzzle_solver", "/robot1")}
            <= set(node.get_node_names_and_namespaces()),
            what="grid_planner and puzzle_solver under /robot1",
        )
        assert "map_publisher" not in node.get_node_names()


def test_bringup_takes_use_sim_time_from_a_parameters_file(tmp_path: Path) -> None:
    # Without --use-sim-time, bringup overrode it with false whatever the file (or -p) said.
    from rcl_interfaces.srv import GetParameters

    params = tmp_path / "params.yaml"
    params.write_text("/**:\n  ros__parameters:\n    use_sim_time: true\n")
    args = ["--namespace", "simt", "--params-file", str(params)]
    with running("bringup", args, tmp_path, "ready: bringup runs 3 nodes"), ros_client() as client:
        for node_name in ("grid_planner", "puzzle_solver", "map_publisher"):
            getter = client.node.create_client(GetParameters, f"/simt/{node_name}/get_parameters")
            answer = client.call(getter, GetParameters.Request(names=["use_sim_time"]))
            assert answer.values[0].bool_value is True, node_name


@pytest.mark.parametrize(
    ("namespace", "reason"),
    [("robot 1", "must not contain characters other than alphanumerics, '_', or '/'"),
     ("/r1/", "must not end with a '/', unless only a '/'")],
)
def test_bringup_refuses_a_bad_namespace_in_one_line(namespace, reason) -> None:
    # The nodes' constructors raised two chained tracebacks.
    from grid_planner.nodes.bringup import main

    with pytest.raises(SystemExit) as stopped:
        main(["--namespace", namespace, "--no-use-map-publisher"])
    assert str(stopped.value) == f"bringup: --namespace {namespace!r}: namespace {reason}"
