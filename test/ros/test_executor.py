"""The nodes' executor, and the tests' client node, keep spinning while entities they wait on
are destroyed.

Lifecycle transitions destroy the bond's publisher and subscription, and cleanup the action
server, from a pool thread while the spinning thread builds its wait set; rclpy then raises
InvalidHandle (or RCLError, for an action server) out of the wait. The race is a few
instructions wide, so the tests widen it: Python switches threads every microsecond and a
thread creates and destroys publishers (each with its QoS event handler, a waitable) or action
servers as fast as it can.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
import rclpy
from grid_planner_interfaces.action import SolvePuzzle as SolveAction
from rcl_interfaces.srv import GetParameters
from rclpy.action import ActionClient, ActionServer
from rclpy.node import Node
from ros_harness import ros_client, spun
from std_msgs.msg import String

from grid_planner.nodes.executor import NodeExecutor

pytestmark = pytest.mark.alone  # churns at full speed on a 1 us switch interval for 3 s

CHURN_S = 3.0


def _spin_while_churning(name: str, churn_once: Callable[[Node], None]) -> None:
    """A NodeExecutor spins a node with a 1 ms timer for CHURN_S while another thread calls
    `churn_once(node)` (which creates and destroys entities) as fast as it can; the spin must
    last, and the timer tick to the end."""
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    node = rclpy.create_node(name)
    stop = threading.Event()
    ticks: list[float] = []
    churned = 0

    def churn() -> None:
        nonlocal churned
        while not stop.is_set():
            churn_once(node)
            churned += 1

    executor = NodeExecutor(2, stop.is_set)
    executor.add_node(node)
    node.create_timer(0.001, lambda: ticks.append(time.monotonic()))
    churner = threading.Thread(target=churn)
    failure: list[BaseException] = []

    def spin() -> None:
        try:
            executor.spin_until_stopped()
        except BaseException as error:
            failure.append(error)

    spinner = threading.Thread(target=spin)
    try:
        churner.start()
        spinner.start()
        spinner.join(CHURN_S)
        alive = spinner.is_alive()
    finally:
        stop.set()
        executor.wake()
        spinner.join(10.0)
        churner.join(10.0)
        executor.drain(5.0)
        executor.shutdown(timeout_sec=0.0)
        node.destroy_node()
        if owns_context:
            rclpy.shutdown()
    assert not failure, f"the spin ended after {churned} churns: {failure[0]!r}"
    assert alive
    assert churned > 100
    assert ticks and ticks[-1] > ticks[0] + 0.8 * CHURN_S  # callbacks ran to the end


def _publishers(node: Node) -> None:
    publishers = [node.create_publisher(String, f"churn_{i}", 10) for i in range(5)]
    for publisher in publishers:
        node.destroy_publisher(publisher)


def _action_server(node: Node) -> None:
    ActionServer(node, SolveAction, "churn_action", lambda _goal: SolveAction.Result()).destroy()


def test_entities_destroyed_while_the_executor_waits_do_not_end_the_spin(tiny_switch_interval):
    """Publishers (InvalidHandle from the wait), as the bond's are destroyed."""
    _spin_while_churning("executor_churn", _publishers)


def test_an_action_server_destroyed_while_the_executor_waits_does_not_end_the_spin(
    tiny_switch_interval,
):
    """An action server, as cleanup destroys compute_path_to_pose's: rclpy raises RCLError
    ("action server pointer is invalid") from the wait, which ended the spin, and with it the
    node, within a few churns before the executor retried it."""
    _spin_while_churning("executor_action_churn", _action_server)


def test_the_test_client_keeps_spinning_when_a_test_destroys_its_clients(tiny_switch_interval):
    """The harness's ClientNode, whose spin ended when a test destroyed an ActionClient it
    made (RCLError "action client pointer is invalid"; every later call of the module then
    went unanswered), churned with service clients and ActionClients. It also ended when waits
    that raised kept coming for 2 s although normal waits came between them, inside rclpy's
    spin_once (1 of 4 runs on a loaded machine): a run of invalid waits must end there."""
    stop = threading.Event()
    churned = 0
    with ros_client("client_churn") as client:
        node = client.node
        node.create_service(GetParameters, "churn_probe", lambda _request, response: response)

        def churn() -> None:
            nonlocal churned
            while not stop.is_set():
                made = [node.create_client(GetParameters, f"churn_{i}") for i in range(3)]
                action = ActionClient(node, SolveAction, "churn_action")
                for made_client in made:
                    node.destroy_client(made_client)
                action.destroy()
                churned += 1
                time.sleep(0.002)  # a test destroying what it made, in a tight loop

        churner = threading.Thread(target=churn)
        churner.start()
        try:
            time.sleep(CHURN_S)
        finally:
            stop.set()
            churner.join(10.0)
        assert client.spinning, f"the spin ended after {churned} churns"
        assert churned > 50
        probe = node.create_client(GetParameters, "churn_probe")
        assert isinstance(client.call(probe, GetParameters.Request(), timeout=10.0),
                          GetParameters.Response)


def test_linger_waits_after_the_last_answer_of_what_is_about_to_go(monkeypatch):
    """A writer destroyed just after it sent an answer lost about one answer in sixteen (a
    service server answering, then tearing down at once: 9 of 140 lost, none of 100 with a
    tenth of a second between). The stop and a cleanup wait ANSWER_LINGER_S after the last
    callback of what they destroy ended, and not for the callbacks of anything else."""
    from grid_planner_interfaces.srv import SolvePuzzle

    import grid_planner.nodes.executor as executor_module

    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    node = rclpy.create_node("lingering")
    answering = node.create_service(SolvePuzzle, "linger_probe", lambda _q, answer: answer)
    idle = node.create_service(SolvePuzzle, "linger_idle", lambda _q, answer: answer)
    slept: list[float] = []
    try:
        with spun([node]) as executor:
            with ros_client("linger_client") as client:
                service = client.node.create_client(SolvePuzzle, "linger_probe")
                client.call(service, SolvePuzzle.Request())
            # A minute long, so the answer is always that recent; the sleeps are only recorded.
            monkeypatch.setattr(executor_module, "ANSWER_LINGER_S", 60.0)
            monkeypatch.setattr(executor_module, "time",
                                type("Clock", (), {"monotonic": time.monotonic,
                                                   "sleep": staticmethod(slept.append)}))
            executor.linger([idle])
            nothing_answered = list(slept)
            executor.linger([answering])
            executor.linger()
            monkeypatch.undo()
    finally:
        monkeypatch.undo()
        if owns_context:
            rclpy.shutdown()
    assert nothing_answered == []
    assert len(slept) == 2
    assert all(50.0 < left <= 60.0 for left in slept)


def test_an_answer_a_cleanup_cut_off_is_said_as_lost_not_as_a_failure(monkeypatch):
    """A cleanup destroys a service whose callback outlived its wait; rclpy then fails to send
    the answer. That was an ERROR with rclpy's InvalidHandle text."""
    from grid_planner_interfaces.srv import SolvePuzzle

    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    node = rclpy.create_node("cut_off")
    entered, release = threading.Event(), threading.Event()

    def slow(_request, answer):
        entered.set()
        release.wait(30.0)
        return answer

    service = node.create_service(SolvePuzzle, "cut_off_probe", slow)
    said: list[tuple[str, str]] = []
    try:
        with spun([node]) as executor:
            monkeypatch.setattr(executor, "_logger", type("Recorder", (), {
                "warning": staticmethod(lambda text: said.append(("warning", text))),
                "error": staticmethod(lambda text: said.append(("error", text))),
            }))
            with ros_client("cut_off_client") as client:
                caller = client.node.create_client(SolvePuzzle, "cut_off_probe")
                assert caller.wait_for_service(timeout_sec=10.0)
                caller.call_async(SolvePuzzle.Request())
                assert entered.wait(10.0)
                node.destroy_service(service)
                release.set()
                deadline = time.monotonic() + 10.0
                while not said and time.monotonic() < deadline:
                    time.sleep(0.01)
    finally:
        release.set()
        if owns_context:
            rclpy.shutdown()
    assert len(said) == 1 and said[0][0] == "warning", said
    assert said[0][1].startswith("a request's answer is lost: a cleanup destroyed its server "
                                 "while the callback ran (InvalidHandle(")
