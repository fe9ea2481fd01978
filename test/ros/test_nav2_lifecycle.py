"""The nodes under a Nav2 lifecycle manager, over real DDS: lifecycle_msgs services in
nav2_lifecycle_manager's order, a bondpy.Bond on the manager's side, refusals while inactive,
a clean stop from every state."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from grid_planner_interfaces.action import SolvePuzzle as SolvePuzzleAction
from grid_planner_interfaces.srv import ComputePath, SolvePuzzle
from nav2_clients import (
    ACTIVATE,
    CLEANUP,
    CONFIGURE,
    DEACTIVATE,
    MANAGER_BOND_TIMEOUT_S,
    UNCONFIGURED_SHUTDOWN,
    ActionCaller,
    Lifecycle,
    ManagerBond,
    require,
)
from planner_harness import TUTORIAL, centre
from rclpy.executors import MultiThreadedExecutor
from ros_harness import NodeProcess, ros_client, wait_until

MANAGED = ["-p", "autostart_node:=false"]
WAITING = "waiting for lifecycle transitions"
INACTIVE = "is inactive: a lifecycle manager or `ros2 lifecycle set` activates it"
# nav2_lifecycle_manager gives up on a server whose bond has not formed within half its
# bond_timeout.
BOND_FORMED_WITHIN_S = MANAGER_BOND_TIMEOUT_S / 2
# A lifecycle manager that dies without a word: its bond stops sending heartbeats.
VANISHING_MANAGER = """
import sys, time, rclpy
from bondpy import bondpy
rclpy.init()
from grid_planner.nodes.bond import BondNode
node = rclpy.create_node("vanishing_manager")
bond = bondpy.Bond(BondNode(node), sys.argv[1], sys.argv[2])
bond.heartbeat_period, bond.heartbeat_timeout = 0.1, 4.0
bond.start()
from rclpy.executors import SingleThreadedExecutor
executor = SingleThreadedExecutor()
executor.add_node(node)
deadline = time.monotonic() + 30
from rclpy.duration import Duration
while not bond.wait_until_formed(Duration(seconds=0.05)) and time.monotonic() < deadline:
    executor.spin_once(timeout_sec=0.05)
print("formed", flush=True)
while True:
    executor.spin_once(timeout_sec=0.1)
"""


def node_services(client, name: str, namespace: str) -> set[str]:
    """The services the node offers (once the client has discovered the node)."""
    wait_until(lambda: (name, namespace) in client.node.get_node_names_and_namespaces(),
               what=f"{namespace}/{name} in the graph")
    return {n for n, _ in client.node.get_service_names_and_types_by_node(name, namespace)}


def serves(client, name: str, namespace: str, service: str) -> bool:
    return f"{namespace}/{service}" in node_services(client, name, namespace)


def assert_clean_exit(proc: NodeProcess, sig: int = signal.SIGINT) -> None:
    code = proc.stop(sig)
    output = proc.output()
    assert code == 0, output
    assert "Traceback" not in output and "Exception" not in output, output


def form_bond(client, topic: str, bond_id: str) -> tuple[ManagerBond, float]:
    """The manager's bond, made right after activation as nav2_lifecycle_manager does."""
    bond = ManagerBond(client, topic, bond_id)
    formed = bond.formed_within(BOND_FORMED_WITHIN_S)
    assert formed is not None, (
        f"bond {bond_id} on {topic} not formed within {BOND_FORMED_WITHIN_S} s"
    )
    return bond, formed


def test_planner_server_under_a_lifecycle_manager_in_namespace_robot1(tmp_path: Path) -> None:
    require("bondpy.bondpy")
    require("nav2_msgs.action")
    from nav2_msgs.action import ComputePathToPose

    args = ["--ros-args", "-r", "__node:=planner_server", "-r", "__ns:=/robot1", *MANAGED]
    proc = NodeProcess("planner_node", args, tmp_path)
    try:
        proc.wait_for_output(WAITING)
        with ros_client("manager") as client:
            lifecycle = Lifecycle(client, "/robot1/planner_server")
            assert lifecycle.state() == "unconfigured"
            assert not serves(client, "planner_server", "/robot1", "compute_path")

            assert lifecycle.change(CONFIGURE) and lifecycle.state() == "inactive"
            wait_until(lambda: serves(client, "planner_server", "/robot1", "compute_path"),
                       what="compute_path after configure")
            compute = client.node.create_client(ComputePath, "/robot1/compute_path")
            refused = client.call(compute, ComputePath.Request(
                goal=centre(TUTORIAL, (9, 0)), start=centre(TUTORIAL, (0, 7)), use_start=True,
            ))
            assert refused.error_code == ComputePath.Response.BUSY
            assert refused.error_msg == f"planner_server {INACTIVE}"
            to_pose = ActionCaller(client, ComputePathToPose, "/robot1/compute_path_to_pose")
            assert not to_pose.send(goal=centre(TUTORIAL, (9, 0))).accepted
            assert not [t for t, _ in client.node.get_subscriber_names_and_types_by_node(
                "planner_server", "/robot1") if t == "/robot1/goal_pose"]

            formed_times = []
            for round_ in range(2):  # activate, deactivate, activate again: a second bond
                assert lifecycle.change(ACTIVATE) and lifecycle.state() == "active"
                bond, formed = form_bond(client, "/robot1/bond", "planner_server")
                formed_times.append(formed)
                if round_ == 0:
                    outcome = to_pose.call(goal=centre(TUTORIAL, (9, 0)),
                                           start=centre(TUTORIAL, (0, 7)), use_start=True)
                    assert outcome.result.error_code == 207  # active, but no map yet
                    publishers = client.node.get_publishers_info_by_topic("/robot1/bond")
                    assert any(p.node_name == "planner_server" for p in publishers)
                assert lifecycle.change(DEACTIVATE) and lifecycle.state() == "inactive"
                assert bond.broken_within(2.0), "the bond did not break on deactivate"
                bond.close()
                assert not to_pose.send(goal=centre(TUTORIAL, (9, 0))).accepted
            print(f"bond formed after activation in {[round(t, 3) for t in formed_times]} s")

            assert lifecycle.change(CLEANUP) and lifecycle.state() == "unconfigured"
            wait_until(lambda: not serves(client, "planner_server", "/robot1", "compute_path"),
                       what="the services to go with cleanup")
            assert lifecycle.change(CONFIGURE) and lifecycle.change(ACTIVATE)
            bond, _ = form_bond(client, "/robot1/bond", "planner_server")
            # nav2_lifecycle_manager's shutdown: deactivate, cleanup, shutdown, in that order.
            assert lifecycle.change(DEACTIVATE) and bond.broken_within(2.0)
            bond.close()
            assert lifecycle.change(CLEANUP)
            assert lifecycle.change(UNCONFIGURED_SHUTDOWN) and lifecycle.state() == "finalized"
    finally:
        assert_clean_exit(proc)
    assert proc.output().count("destroying bond (planner_server)") == 3


def test_a_vanished_manager_times_out_quietly_and_stopping_breaks_the_bond(
    tmp_path: Path,
) -> None:
    require("bondpy.bondpy")
    args = ["--ros-args", "-r", "__ns:=/vanish", *MANAGED]
    proc = NodeProcess("planner_node", args, tmp_path)
    manager = None
    try:
        proc.wait_for_output(WAITING)
        with ros_client("manager") as client:
            lifecycle = Lifecycle(client, "/vanish/grid_planner")
            assert lifecycle.change(CONFIGURE) and lifecycle.change(ACTIVATE)
            manager = subprocess.Popen(
                [sys.executable, "-c", VANISHING_MANAGER, "/vanish/bond", "grid_planner"],
                stdout=subprocess.PIPE, text=True,
            )
            assert manager.stdout.readline().strip() == "formed"
            proc.wait_for_output("bond (grid_planner) formed with lifecycle manager")  # both ends
            # bondpy starts its heartbeat timer at the second heartbeat, not at formation.
            time.sleep(1.0)
            manager.kill()  # no last word: the node's side sees its heartbeats stop
            manager.wait()
            # bondpy re-declares /bond_disable_heartbeat_timeout when its timeout (4 s) fires.
            proc.wait_for_output("Heartbeat timeout is disabled", timeout=15.0)
            # A new manager bonds with the node after deactivate -> activate, then the node
            # is stopped while active: the bond breaks.
            assert lifecycle.change(DEACTIVATE) and lifecycle.change(ACTIVATE)
            bond, _ = form_bond(client, "/vanish/bond", "grid_planner")
            proc.process.send_signal(signal.SIGINT)
            assert bond.broken_within(5.0), "stopping the node did not break the bond"
            bond.close()
    finally:
        if manager is not None and manager.poll() is None:
            manager.kill()
        assert_clean_exit(proc)


def test_puzzle_node_is_a_lifecycle_node_too(tmp_path: Path) -> None:
    require("bondpy.bondpy")
    proc = NodeProcess("puzzle_node", ["--ros-args", "-r", "__ns:=/plc", *MANAGED], tmp_path)
    try:
        proc.wait_for_output(WAITING)
        with ros_client("manager") as client:
            lifecycle = Lifecycle(client, "/plc/puzzle_solver")
            assert not serves(client, "puzzle_solver", "/plc", "solve_puzzle")
            assert lifecycle.change(CONFIGURE)
            solve = client.node.create_client(SolvePuzzle, "/plc/solve_puzzle")
            request = SolvePuzzle.Request(board=[1, 2, 3, 4, 0, 6, 7, 5, 8])
            refused = client.call(solve, request)
            assert (refused.status, refused.message) == (
                SolvePuzzle.Response.BUSY, f"puzzle_solver {INACTIVE}"
            )
            action = ActionCaller(client, SolvePuzzleAction, "/plc/solve_puzzle")
            assert not action.send(board=request.board).accepted
            assert lifecycle.change(ACTIVATE)
            bond, _ = form_bond(client, "/plc/bond", "puzzle_solver")
            assert client.call(solve, request).moves == ["Down", "Right"]
            assert action.call(board=request.board).result.moves == ["Down", "Right"]
            assert lifecycle.change(DEACTIVATE) and bond.broken_within(2.0)
            bond.close()
            assert client.call(solve, request).status == SolvePuzzle.Response.BUSY
            assert not action.send(board=request.board).accepted
    finally:
        assert_clean_exit(proc, signal.SIGTERM)  # from inactive


def test_a_transition_the_state_lacks_is_answered_false_and_changes_nothing(
    tmp_path: Path,
) -> None:
    """rclpy alone leaves such a request unanswered (its service raises); rclcpp answers
    false, and a manager that sent it must not wait forever."""
    proc = NodeProcess("planner_node", ["--ros-args", "-r", "__ns:=/badtr", *MANAGED], tmp_path)
    try:
        proc.wait_for_output(WAITING)
        with ros_client("manager") as client:
            lifecycle = Lifecycle(client, "/badtr/grid_planner")
            for state, lacking, onwards in (
                ("unconfigured", (ACTIVATE, DEACTIVATE, CLEANUP), CONFIGURE),
                ("inactive", (CONFIGURE, DEACTIVATE), ACTIVATE),
                ("active", (CONFIGURE, ACTIVATE, CLEANUP), DEACTIVATE),
            ):
                for transition in lacking:
                    assert lifecycle.change(transition, timeout=10.0) is False
                    assert lifecycle.state() == state
                assert lifecycle.change(onwards)
            assert lifecycle.state() == "inactive"
        output = proc.output()
        assert ("change_state refused: transition 3 cannot start in state 'unconfigured' "
                "(its transitions: configure (1), shutdown (5))") in output, output
        # A request resent after a lost reply logs its refusal twice: count distinct ones.
        refused = set(re.findall(r"transition (\d) cannot start in state '(\w+)'", output))
        assert refused == {("3", "unconfigured"), ("4", "unconfigured"), ("2", "unconfigured"),
                           ("1", "inactive"), ("4", "inactive"), ("1", "active"),
                           ("3", "active"), ("2", "active")}, output
        assert "a callback failed" not in output, output
    finally:
        assert_clean_exit(proc)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stop_while_unconfigured_is_clean(tmp_path: Path, sig: int) -> None:
    proc = NodeProcess("planner_node", ["--ros-args", "-r", "__ns:=/unconf", *MANAGED], tmp_path)
    try:
        proc.wait_for_output(WAITING)
    finally:
        assert_clean_exit(proc, sig)


def test_cleanup_leaves_no_thread_timer_or_entity(tmp_path: Path) -> None:
    require("bondpy.bondpy")
    from rclpy.parameter import Parameter

    from grid_planner.nodes.planner_node import PlannerNode

    with ros_client("inproc_manager") as client:
        node = PlannerNode(namespace="/inproc", parameter_overrides=[
            Parameter("autostart_node", value=False)])
        executor = MultiThreadedExecutor(8)
        executor.add_node(node)
        spinner = threading.Thread(target=executor.spin, daemon=True)
        spinner.start()
        try:
            def entities() -> tuple:
                return ({s.topic_name for s in node.subscriptions},
                        {p.topic_name for p in node.publishers},
                        {s.srv_name for s in node.services}, len(list(node.waitables)))

            baseline_threads = {t.ident for t in threading.enumerate()}
            baseline = entities()
            lifecycle = Lifecycle(client, "/inproc/grid_planner")
            assert lifecycle.change(CONFIGURE) and lifecycle.change(ACTIVATE)
            bond, _ = form_bond(client, "/inproc/bond", "grid_planner")
            assert entities() != baseline
            assert lifecycle.change(DEACTIVATE) and bond.broken_within(2.0)
            bond.close()
            assert lifecycle.change(CLEANUP)

            def left_threads() -> list[str]:
                return [t.name for t in threading.enumerate()
                        if t.ident not in baseline_threads
                        and not t.name.startswith("ThreadPoolExecutor")]

            wait_until(lambda: not left_threads(), timeout=5.0,
                       what=f"the node's threads to end (left: {left_threads()})")
            assert entities() == baseline
            assert list(node.timers) == []
        finally:
            executor.shutdown()
            node.destroy_node()
            spinner.join(5.0)


def test_the_bond_guard_answers_bondpys_second_declaration() -> None:
    require("bondpy.bondpy")
    from bondpy import bondpy
    from rclpy.exceptions import ParameterAlreadyDeclaredException
    from rclpy.node import Node

    from grid_planner.nodes.bond import DISABLE_HEARTBEAT_TIMEOUT_PARAM, ServerBond

    with ros_client("guard"):
        node = Node("guarded")
        node.declare_parameter(DISABLE_HEARTBEAT_TIMEOUT_PARAM, True)  # as Nav2's servers do
        bare = bondpy.Bond(node, "guard_bond", "bare")  # bondpy as it is
        bare.start()
        # The fact: bondpy's handler raises at the first timeout on such a node.
        with pytest.raises(ParameterAlreadyDeclaredException):
            bare._on_heartbeat_timeout()
        bare.shutdown()
        guarded = ServerBond(node, 0.1)
        guarded.bond._on_heartbeat_timeout()  # twice: no exception, the bond is not broken
        guarded.bond._on_heartbeat_timeout()
        assert not guarded.bond.is_broken()
        started = time.monotonic()
        guarded.break_bond()
        assert time.monotonic() - started < 1.0
        node.destroy_node()
