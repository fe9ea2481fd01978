"""A lifecycle transition racing the nodes' own callbacks leaves their state whole and their
requests answered: a map callback, or a service callback, still at work when cleanup starts; a
parameter change during activation; a request as an action server is made. In-process nodes;
in the two race tests Python switches threads every microsecond, which widens races that a node
meets only now and then."""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable, Iterator

import numpy as np
import pytest
import rclpy
from grid_planner_interfaces.action import SolvePuzzle as SolveAction
from planner_harness import TUTORIAL
from rcl_interfaces.srv import GetParameters
from rclpy.action import ActionClient, ActionServer
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.task import Future, Task
from ros_harness import ros_client, spun

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.action_server import CLAIM_WAIT_S, ReadyActionServer
from grid_planner.nodes.conversions import map_to_msg
from grid_planner.nodes.executor import NodeExecutor
from grid_planner.nodes.lifecycle import SUCCESS, ManagedNode
from grid_planner.nodes.planner_node import PlannerNode

pytestmark = pytest.mark.alone  # a 1 us switch interval slows every thread of the session

ROUNDS = 40
# The replan timer race shows about once in 200 rounds: 2,000 (about 13 s) all but never miss it.
REPLAN_ROUNDS = 2000


@pytest.fixture
def managed_planner():
    """A planner_node waiting for lifecycle transitions, with no bond and no executor: the
    test calls its transitions and callbacks itself."""
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    node = PlannerNode(namespace="/races", parameter_overrides=[
        Parameter("autostart_node", value=False), Parameter("bond_heartbeat_period", value=0.0)])
    yield node
    node.destroy_node()
    if owns_context:
        rclpy.shutdown()


def both_at_once(first, second) -> None:
    """Run the two callables in two threads released together."""
    barrier = threading.Barrier(2)

    def run(call) -> None:
        barrier.wait()
        call()

    threads = [threading.Thread(target=run, args=(call,)) for call in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_a_map_arriving_as_cleanup_starts_is_taken_whole_or_not_at_all(
    managed_planner, tiny_switch_interval
):
    """Before the intake closed at cleanup, a map callback at work then read the planners
    cleanup had just released (AttributeError on None) or stored its map after cleanup forgot
    the map, so the next configuration started with a map nobody sent it."""
    node = managed_planner
    msg = map_to_msg(TUTORIAL, node.get_clock().now().to_msg())
    errors: list[BaseException] = []
    kept = 0

    def on_map() -> None:
        try:
            node._intake.on_map(msg)  # the map subscription's callback
        except Exception as error:
            errors.append(error)

    for _ in range(ROUNDS):
        assert node.trigger_configure() == SUCCESS
        both_at_once(on_map, node.trigger_cleanup)
        assert node.lifecycle_state == "unconfigured"
        if node.has_map:
            kept += 1
            node._maps.clear()
    assert not errors, f"{len(errors)} of {ROUNDS} map callbacks failed: {errors[0]!r}"
    assert kept == 0, f"cleanup left the map in place in {kept} of {ROUNDS} rounds"


def test_a_radius_change_and_a_finer_map_are_never_both_taken(
    managed_planner, tiny_switch_interval
):
    """A robot_radius change was checked against the map in use while a finer map was being
    taken, and the map against the radius in force: both passed, and the node planned on a
    grid inflated 200 cells, twice max_inflation_cells."""
    node = managed_planner
    now = node.get_clock().now().to_msg()
    coarse = map_to_msg(OccupancyMap(20, 20, 1.0, np.zeros(400, dtype=np.int8)), now)
    fine = map_to_msg(OccupancyMap(100, 100, 0.01, np.zeros(10_000, dtype=np.int8)), now)
    limit = node.get_parameter("max_inflation_cells").value
    assert node.trigger_configure() == SUCCESS
    both = []
    for round_number in range(ROUNDS):
        node.set_parameters([Parameter("robot_radius", value=0.0)])
        node._intake.on_map(coarse)  # the map callback
        both_at_once(lambda: node._intake.on_map(fine),
                     lambda: node.set_parameters([Parameter("robot_radius", value=2.0)]))
        reach = node.get_parameter("robot_radius").value / node._maps.current.resolution
        if reach > limit:
            both.append(round_number)
    assert not both, f"both taken in {len(both)} of {ROUNDS} rounds, first {both[0]}"


class SlowService(ManagedNode):
    """A managed node with one kept service whose callback waits for `release`."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        super().__init__("slow_service", parameter_overrides=[
            Parameter("autostart_node", value=False),
            Parameter("bond_heartbeat_period", value=0.0)])

    def configure_resources(self) -> None:
        self.keep(self.create_service(GetParameters, "slow", self._answer))

    def _answer(self, _request, response):
        self.started.set()
        self.release.wait(10.0)
        return response


@contextlib.contextmanager
def spinning(node: SlowService, make_executor=NodeExecutor) -> Iterator[None]:
    """Spin `node` on `make_executor(threads, stop)` in a thread of its own; release its
    held callbacks, stop, drain and destroy after."""
    with spun([node], make_executor):
        try:
            yield
        finally:
            node.release.set()


def wait_until(condition, timeout: float = 5.0) -> bool:
    """Whether `condition()` holds within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_cleanup_lets_a_request_already_taken_be_answered():
    """Cleanup destroyed the services at once, so a request whose callback was at work (a
    refusal being written, say) lost its answer: rclpy sends the response after the callback
    returns, and raised InvalidHandle there. Now cleanup waits for such callbacks first."""
    with ros_client("slow_client") as client:
        node = SlowService()
        with spinning(node):
            assert node.trigger_configure() == SUCCESS
            service = client.node.create_client(GetParameters, "slow")
            assert service.wait_for_service(10.0)
            answer = service.call_async(GetParameters.Request())
            assert node.started.wait(10.0)
            cleanup = threading.Thread(target=node.trigger_cleanup)
            cleanup.start()
            time.sleep(0.3)  # cleanup is under way: it waits, or has destroyed the service
            node.release.set()
            cleanup.join(10.0)
            assert node.lifecycle_state == "unconfigured"
            assert wait_until(answer.done), "the request taken before cleanup was never answered"
            assert all(kept.srv_name != "/slow" for kept in node.services)  # destroyed after


class RequestWhileClosing(NodeExecutor):
    """Calls `send()` as soon as cleanup has closed the entities it destroys, then gives the
    spin half a second to take that request before cleanup goes on: the moment between
    cleanup's look at the running callbacks and the destroy, in which a request taken lost its
    answer (three times in a 30 s stress run)."""

    def __init__(self, threads: int, stop, send) -> None:
        super().__init__(threads, stop)
        self._send = send

    @contextlib.contextmanager
    def closing(self, entities):
        with super().closing(entities) as settle:
            self._send()
            time.sleep(0.5)
            yield settle


def test_a_request_arriving_while_cleanup_closes_a_service_is_not_taken():
    """Once cleanup has looked at the callbacks at work, no callback of the services it is
    about to destroy starts: the request stays untaken (as it would a moment later, with the
    service gone) instead of taken and its answer lost. The dropped callback leaves nothing
    behind: the next configuration's service answers."""
    with ros_client("closing_client") as client:
        node = SlowService()
        node.release.set()
        calls = []

        def send() -> None:
            calls.append(service.call_async(GetParameters.Request()))

        with spinning(node, functools.partial(RequestWhileClosing, send=send)):
            assert node.trigger_configure() == SUCCESS
            service = client.node.create_client(GetParameters, "slow")
            assert service.wait_for_service(10.0)
            assert node.trigger_cleanup() == SUCCESS
            assert len(calls) == 1
            assert not node.started.is_set(), "a callback of the closing service started"
            assert node.trigger_configure() == SUCCESS
            assert wait_until(lambda: service.service_is_ready())
            again = service.call_async(GetParameters.Request())
            assert wait_until(again.done), "the next configuration's service did not answer"


@contextlib.contextmanager
def offering(entity: object) -> Iterator[tuple[NodeExecutor, Callable[[Task], None]]]:
    """A NodeExecutor whose waits return what `offer(handler)` names, as from `entity`."""
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    executor = NodeExecutor(2, bool)
    offered: list[Task] = []
    executor.wait_for_ready_callbacks = lambda *_args: (offered.pop(), entity, None)

    def offer(handler: Task) -> None:
        offered.append(handler)
        executor.spin_once()

    try:
        yield executor, offer
    finally:
        executor.drain(5.0)
        executor.shutdown(timeout_sec=0.0)
        if owns_context:
            rclpy.shutdown()


def test_cleanup_waits_for_a_started_callback_until_it_finishes_not_while_a_run_holds_it():
    """rclpy offers a handler again until it has finished, and a second run of it returns at
    once while the first holds it (or while it waits, as a coroutine). Cleanup waited for the
    runs it saw, so when the run it saw returned at once and a later one took the request,
    the service was destroyed under that run (five times in three 30 s stress runs). Now it
    waits until each handler it let start has finished."""
    service, gate = object(), Future()
    finished = threading.Event()

    async def callback() -> None:
        await gate
        finished.set()

    with offering(service) as (executor, offer):
        handler = Task(callback, executor=executor)
        offer(handler)  # runs until it waits on the gate: no run of it is at work now
        assert wait_until(lambda: not executor._running)
        with executor.closing([service]) as settle:
            assert settle(0.2) == 1
            gate.set_result(None)
            offer(handler)  # offered again, as rclpy does: started before, so it runs
            assert settle(5.0) == 0
        assert finished.is_set()


def test_a_callback_offered_first_while_its_entity_closes_never_runs():
    """A handler not yet started when cleanup closes its entity is cancelled unrun (its
    request stays untaken); another entity's handler runs as before."""
    closed_service, other = object(), object()
    ran: list[str] = []
    with offering(closed_service) as (executor, offer):
        with executor.closing([closed_service]) as settle:
            handler = Task(lambda: ran.append("closed"), executor=executor)
            offer(handler)
            assert handler.cancelled() and settle(0.0) == 0
        executor.wait_for_ready_callbacks = lambda *_args: (
            Task(lambda: ran.append("other"), executor=executor), other, None)
        executor.spin_once()
        assert wait_until(lambda: ran == ["other"])


def test_replan_period_set_as_the_planner_activates_leaves_one_timer_of_that_period(
    managed_planner, tiny_switch_interval
):
    """Activation and a replan_period change each made or destroyed the replan timer in their
    own thread: about one round in 200 ended active with no replan timer (the new period not
    kept). Checked too: never two, and none left after deactivation."""
    node = managed_planner
    node.set_parameters([Parameter("replan_period", value=0.0)])
    assert node.trigger_configure() == SUCCESS
    configured = set(node.timers)  # the map follower's

    def replan_timers() -> list:
        return [timer for timer in node.timers if timer not in configured]

    failures = []
    for round_number in range(REPLAN_ROUNDS):
        period = 0.5 + 0.1 * (round_number % 3)
        both_at_once(node.trigger_activate,
                     lambda period=period: node.set_parameters(
                         [Parameter("replan_period", value=period)]))
        timers = replan_timers()
        if [timer.timer_period_ns for timer in timers] != [round(period * 1e9)]:
            failures.append(f"round {round_number}: {len(timers)} replan timer(s) while active")
        node.trigger_deactivate()
        if replan_timers():
            failures.append(f"round {round_number}: a replan timer left after deactivation")
        for timer in replan_timers():
            node.destroy_timer(timer)
        node.set_parameters([Parameter("replan_period", value=0.0)])
    assert not failures, f"{len(failures)} of {REPLAN_ROUNDS} rounds: {failures[:3]}"


def test_an_action_server_can_answer_from_the_moment_it_joins_its_node():
    """rclpy's ActionServer joins its node before it has the logger its request handlers use:
    a goal request taken in between (a client of the server of an earlier configuration) failed
    with AttributeError, unanswered. The nodes' ReadyActionServer has it first."""
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    ready_when_added: list[bool] = []

    class Watching(Node):
        def add_waitable(self, waitable) -> None:
            if isinstance(waitable, ActionServer):
                ready_when_added.append(hasattr(waitable, "_logger"))
            super().add_waitable(waitable)

    node = Watching("watching_action_servers")
    try:
        for server_class in (ActionServer, ReadyActionServer):
            server_class(node, SolveAction, "ready_probe", lambda _goal: SolveAction.Result())
    finally:
        node.destroy_node()
        if owns_context:
            rclpy.shutdown()
    assert ready_when_added == [False, True]  # rclpy's own, then the nodes'


class Serving(Node):
    """A node whose `serving` the test sets, as the lifecycle nodes' own."""

    serving = True


@pytest.mark.parametrize("serving", [True, False])
def test_only_a_goal_ended_while_not_serving_and_not_asked_about_holds_a_stop(
    monkeypatch, serving
):
    """A stop waits up to CLAIM_WAIT_S for the result request of a goal it ended (the node
    did not serve). A request taken between rclpy setting the result and the execution's end
    (widened here to 0.2 s) was answered but the goal still counted as unasked, so the next
    stop waited a second for nothing; a goal that ended while the node served never holds
    a stop."""
    original = ActionServer._execute_goal

    async def widened(self, execute, goal_handle):
        await original(self, execute, goal_handle)
        time.sleep(0.2)

    monkeypatch.setattr(ActionServer, "_execute_goal", widened)
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    server_node, client_node = Serving("claims_server"), Node("claims_client")
    server_node.serving = serving
    release, ended = threading.Event(), threading.Event()

    def execute(goal_handle):
        release.wait(10.0)
        goal_handle.succeed()
        ended.set()
        return SolveAction.Result(message="done")

    server = ReadyActionServer(server_node, SolveAction, "claims_probe", execute)
    client = ActionClient(client_node, SolveAction, "claims_probe")

    def run_goal(ask_in_the_window: bool) -> tuple[float, float]:
        """One goal; its result asked for as it ends, or once it has ended. The seconds a
        stop would wait before and after the answer."""
        release.clear()
        ended.clear()
        accepted = client.send_goal_async(SolveAction.Goal(board=[1, 0]))
        assert wait_until(accepted.done, 10.0)
        release.set()
        assert ended.wait(10.0)
        if not ask_in_the_window:
            assert wait_until(lambda: server.wait_idle(0.0), 10.0)
        before = server.claims_pending()
        answer = accepted.result().get_result_async()
        assert wait_until(answer.done, 10.0)
        assert wait_until(lambda: server.wait_idle(0.0), 10.0)
        return before, server.claims_pending()

    try:
        with spun([server_node, client_node]):
            assert client.wait_for_server(timeout_sec=10.0)
            _, in_the_window = run_goal(ask_in_the_window=True)
            late_before, late_after = run_goal(ask_in_the_window=False)
    finally:
        if owns_context:
            rclpy.shutdown()
    assert in_the_window == 0.0
    # Asked for only after it had ended: the stop waits for it only when the node did not serve.
    assert (late_before > 0.0, late_after) == (not serving, 0.0)


def test_a_goal_accepted_just_before_a_cleanup_is_waited_for_and_answered():
    """rclpy runs an accepted goal's execution from a task it hands the executor; a cleanup
    that came before that task started waited only for the executions already started,
    destroyed the server, and the goal's result never came. Here the task starts
    `task_delay_s` after it was made: the cleanup's wait (and a stop's, `claims_pending`) counts
    the goal from the moment it was scheduled."""
    task_delay_s = 0.3
    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    server_node, client_node = Serving("accepted_server"), Node("accepted_client")
    scheduled = threading.Event()

    def accepted(goal_handle) -> None:
        goal_handle.execute()
        scheduled.set()

    def execute(goal_handle):
        goal_handle.succeed()
        return SolveAction.Result(message="done")

    server = ReadyActionServer(server_node, SolveAction, "accepted_probe", execute,
                               handle_accepted_callback=accepted)
    client = ActionClient(client_node, SolveAction, "accepted_probe")
    try:
        with spun([server_node, client_node]) as executor:
            make_task = executor.create_task

            def later(callback, *args, **kwargs):
                if getattr(callback, "__name__", "") != "_execute_goal":
                    return make_task(callback, *args, **kwargs)
                threading.Timer(task_delay_s, make_task, (callback, *args)).start()
                return None

            executor.create_task = later
            assert client.wait_for_server(timeout_sec=10.0)
            sent = client.send_goal_async(SolveAction.Goal(board=[1, 0]))
            assert wait_until(sent.done, 10.0) and sent.result().accepted
            answer = sent.result().get_result_async()
            assert scheduled.wait(10.0)
            started_or_not = (server.wait_idle(0.0), server.claims_pending())
            assert server.wait_idle(10.0)  # the cleanup's wait, then the server goes
            server.destroy()
            assert wait_until(answer.done, 10.0), "the accepted goal's result never came"
    finally:
        if owns_context:
            rclpy.shutdown()
    assert started_or_not == (False, CLAIM_WAIT_S)
    assert answer.result().result.message == "done"


@pytest.mark.parametrize(("end", "reason"), [("deactivate", "the planner was deactivated"),
                                             ("shutdown", "the planner is shutting down")])
def test_goals_ended_by_a_transition_are_told_which(managed_planner, end, reason):
    """A goal running at a shutdown transition was told that the planner was deactivated."""
    node = managed_planner
    assert node.trigger_configure() == SUCCESS
    assert node.trigger_activate() == SUCCESS
    told: list[str] = []
    actions = node._actions
    stop = actions.stop

    def telling(why: str, wait: float) -> None:
        told.append(why)
        stop(why, wait)

    actions.stop = telling
    transition = node.trigger_deactivate if end == "deactivate" else node.trigger_shutdown
    assert transition() == SUCCESS
    assert told == [reason]


def test_a_goal_whose_execution_cannot_be_scheduled_is_not_counted():
    """The goal was counted as executing before rclpy made its task; when that failed (a
    node with no executor, or one shut down) it stayed counted, and every later stop and
    cleanup waited for it to its limit."""
    from types import SimpleNamespace

    from unique_identifier_msgs.msg import UUID

    owns_context = not rclpy.ok()
    if owns_context:
        rclpy.init()
    node = Serving("unscheduled")  # on no executor
    try:
        server = ReadyActionServer(node, SolveAction, "unscheduled_probe",
                                   lambda _goal: SolveAction.Result())
        goal = SimpleNamespace(goal_id=UUID(uuid=list(range(16))))
        with pytest.raises(AttributeError):
            server.notify_execute(goal, None)
        assert (server.wait_idle(0.0), server.claims_pending()) == (True, 0.0)
    finally:
        node.destroy_node()
        if owns_context:
            rclpy.shutdown()
