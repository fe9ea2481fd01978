"""The `solve_puzzle` action of puzzle_node: a long solve with feedback, cancellable.

A goal carries the service's request fields and ends with its response fields. It takes its
turn in the node's lanes like a service request (`max_concurrent_solves` run, then
`max_queued_solves` wait; a goal beyond both is aborted at once with BUSY and the reason, so
the client learns why, which a bare goal rejection cannot say). Goals sent while the node is not
active (a lifecycle node) are rejected. While it waits and runs, a
watcher publishes feedback every FEEDBACK_PERIOD_S: the phase (queued, setup, search), nodes
expanded and generated, frontier, states held, IDA*'s bound or IDDFS's depth limit, seconds of
search and of table set-up. A cancel request sets the goal's cancel event at once: the search
stops at its next budget check (milliseconds), and the goal ends canceled with the statistics
so far (status CANCELED). A bad board or request is aborted with the service's code and
message.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from grid_planner_interfaces.action import SolvePuzzle
from rclpy.action import CancelResponse, GoalResponse
from rclpy.action.server import ServerGoalHandle
from rclpy.callback_groups import ReentrantCallbackGroup

from grid_planner.nodes.action_server import ReadyActionServer
from grid_planner.nodes.qos import SERVICE_QOS
from grid_planner.puzzle import PuzzleOutcome, PuzzleStatus, SolveProgress
from grid_planner.puzzle.tables import running_builds

if TYPE_CHECKING:
    from grid_planner.nodes.puzzle_node import PuzzleNode

FEEDBACK_PERIOD_S = 0.2
Result = SolvePuzzle.Result


def fill_answer(outcome: PuzzleOutcome, answer) -> None:
    """Copy `outcome` into a SolvePuzzle service response or action result (same fields)."""
    report = outcome.report()
    answer.status = int(outcome.status)
    answer.success = outcome.status is PuzzleStatus.SOLVED
    answer.message = report.message
    answer.moves = list(outcome.moves)
    answer.length = report.length
    answer.optimal = report.optimal
    answer.nodes_expanded = report.nodes_expanded
    answer.nodes_generated = report.nodes_generated
    answer.max_frontier = report.max_frontier
    answer.nodes_held = outcome.nodes_held
    answer.planning_time = report.planning_time
    answer.setup_time = outcome.setup_time
    answer.algorithm = outcome.algorithm
    answer.heuristic = outcome.heuristic


class SolveAction:
    """The solve_puzzle action: its server (kept by the node) and the cancel events of the goals
    it runs."""

    def __init__(self, node: PuzzleNode) -> None:
        self._node = node
        self._lock = threading.Lock()
        self._cancels: dict[bytes, threading.Event] = {}
        # Where the action is: rcl_action expands an action's name in the node's namespace but
        # applies no remap rule to it, so `-r solve_puzzle:=...` moves the service only.
        self.name = node.resolve_topic_name("solve_puzzle", only_expand=True)
        # Its services keep every request, like the solve service: with rclpy's default
        # (the last 10) a burst of goals lost the older ones unanswered instead of queueing
        # them or answering BUSY.
        # Kept by the node, so cleanup destroys it once its running callbacks have answered.
        node.keep(ReadyActionServer(
            node, SolvePuzzle, "solve_puzzle", execute_callback=self._execute,
            goal_callback=self._on_goal,
            cancel_callback=self._on_cancel, callback_group=ReentrantCallbackGroup(),
            goal_service_qos_profile=SERVICE_QOS, result_service_qos_profile=SERVICE_QOS,
            cancel_service_qos_profile=SERVICE_QOS,
        ))

    def _on_goal(self, _goal) -> GoalResponse:
        """Accept goals while the node serves; reject them, saying why, while it does not."""
        if self._node.serving:
            return GoalResponse.ACCEPT
        self._node.get_logger().warning(f"solve_puzzle goal rejected: {self._node.refusal()}")
        return GoalResponse.REJECT

    def _on_cancel(self, goal: ServerGoalHandle) -> CancelResponse:
        with self._lock:
            cancel = self._cancels.get(bytes(goal.goal_id.uuid))
        if cancel is not None:
            cancel.set()
        return CancelResponse.ACCEPT

    def _execute(self, goal: ServerGoalHandle) -> SolvePuzzle.Result:
        node = self._node
        key = bytes(goal.goal_id.uuid)
        cancel = node.new_cancel()
        with self._lock:
            self._cancels[key] = cancel
        progress = SolveProgress(phase="queued")
        done = threading.Event()
        watcher = threading.Thread(
            target=self._feed, args=(goal, progress, done), name="solve_feedback", daemon=True
        )
        watcher.start()
        result = Result()
        try:
            lane = node.lane(goal.request.board)
            with lane.turn(abandon=cancel) as refusal:
                if refusal is None:
                    progress.phase = "setup"
                    outcome = node.solve_request(goal.request, cancel, progress)
                    fill_answer(outcome, result)
            if refusal is not None:
                result.status, result.message = Result.BUSY, refusal
        except Exception as error:  # a bug must cost one goal, never the node
            node.get_logger().error(f"solve_puzzle goal failed unexpectedly: {error!r}")
            result.status, result.message = Result.INVALID_REQUEST, f"internal error: {error}"
        finally:
            done.set()
            watcher.join()
            node.forget_cancel(cancel)
            with self._lock:
                self._cancels.pop(key, None)
        return self._end(goal, result)

    @staticmethod
    def _end(goal: ServerGoalHandle, result: SolvePuzzle.Result) -> SolvePuzzle.Result:
        """Finish the goal: succeeded, canceled (on the client's request) or aborted.

        A solve that the cancel stopped (it ended LIMIT_REACHED) or kept waiting (BUSY) ends
        canceled; one that ended on its own as the cancel came (a solution, an unsolvable or
        invalid board) keeps that answer: a goal canceled with a solution in its result, as
        one in 60 late cancels ended, says two things at once.
        """
        if goal.is_cancel_requested and result.status in (Result.LIMIT_REACHED, Result.BUSY):
            result.status = Result.CANCELED
            result.message = f"canceled by the client: {result.message}"
            goal.canceled()
        elif result.status == PuzzleStatus.SOLVED:
            result.success = True
            goal.succeed()
        else:
            goal.abort()
        return result

    @staticmethod
    def _feed(goal: ServerGoalHandle, progress: SolveProgress, done: threading.Event) -> None:
        """Publish feedback every FEEDBACK_PERIOD_S until the solve is done."""
        while not done.wait(FEEDBACK_PERIOD_S):
            search = progress.search
            setting_up = progress.phase == "setup"
            feedback = SolvePuzzle.Feedback(
                phase=progress.phase if progress.phase != "done" else "search",
                nodes_expanded=search.nodes_expanded,
                nodes_generated=search.nodes_generated,
                frontier=search.frontier,
                nodes_held=search.nodes_held,
                bound=max(0, search.bound),
                elapsed=progress.elapsed,
                setup_time=progress.setup_elapsed,
                setup_progress=max((b.fraction for b in running_builds()), default=0.0)
                if setting_up else 0.0,
            )
            try:
                goal.publish_feedback(feedback)
            except Exception:  # the goal or the node is being torn down: no more feedback
                return


def serve_solve_action(node: PuzzleNode) -> SolveAction:
    """Offer the `solve_puzzle` action on `node`."""
    return SolveAction(node)

