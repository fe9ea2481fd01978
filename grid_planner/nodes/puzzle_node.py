"""puzzle_node (node name `puzzle_solver`): the `solve_puzzle` service and action over the
search core.

The service answers one request; the action (`puzzle_action`) is for long solves: feedback while
it runs, cancellable. Both go through the same lanes (`RequestGate`), the same parameters and
`solve_request`, so they answer the same board with the same codes and messages.
"""

from __future__ import annotations

import math
import sys
import threading
import time

from grid_planner_interfaces.srv import SolvePuzzle
from rclpy.callback_groups import ReentrantCallbackGroup

from grid_planner.jit.warm_notice import warm_with_notice
from grid_planner.nodes.concurrency import RequestGate
from grid_planner.nodes.lifecycle import DEACTIVATE_WAIT_S, LIFECYCLE_THREADS, ManagedNode
from grid_planner.nodes.parameters import (
    at_least,
    declare_validated,
    one_of,
    undeclared_overrides,
    warn_unknown,
)
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.puzzle_action import fill_answer, serve_solve_action
from grid_planner.nodes.qos import SERVICE_QOS
from grid_planner.puzzle import (
    AUTO,
    HEURISTICS,
    PUZZLE_ALGORITHMS,
    PuzzleOutcome,
    PuzzleStatus,
    SolveProgress,
    prepare,
    solve,
    warm_up,
)
from grid_planner.puzzle.solver import (
    DEFAULT_SETUP_TIMEOUT,
    DEFAULT_SOLVE_MAX_HELD,
    DEFAULT_SOLVE_TIMEOUT,
)
from grid_planner.puzzle.tables import (
    Setup,
    SetupStoppedError,
    TableBuild,
    add_listener,
    cancel_builds,
    remove_listener,
    running_builds,
)
from grid_planner.search import DEPTH_LIMIT_BOUND, DEPTH_LIMIT_WORDS
from grid_planner.search.result import Budget, LimitKind

HEURISTIC_NAMES = (AUTO, *HEURISTICS)


def depth_limit_rule(value: object) -> str | None:
    """Accept a depth limit a search can take: a whole number in [0, 2**62)."""
    if 0 <= value < DEPTH_LIMIT_BOUND:
        return None
    return f"must be a whole number in [0, {DEPTH_LIMIT_WORDS})"
# What `prepare_tables` may name: the table heuristic and the board side it is built for.
PREPARABLE_TABLES = {"table": 3, "pdb": 4}
# Boards of up to this many tiles (the 8-puzzle and smaller: at most 181,440 states) are solved
# in a lane of their own, so long solves of bigger boards never hold them up.
SMALL_BOARD_TILES = 9
# Table builds longer than this log their progress at INFO, at most this often.
BUILD_LOG_INTERVAL_S = 1.0
# Start-up waits this long for the tables to load before it says "ready".
PREPARE_WAIT_S = 2.0
# Teardown waits this long for cancelled table builds to stop (they check every few ms).
BUILD_STOP_WAIT_S = 2.0


def known_tables(names: object) -> str | None:
    """Accept a list of PREPARABLE_TABLES names."""
    unknown = [name for name in names if name not in PREPARABLE_TABLES]
    if unknown:
        return f"names unknown tables {unknown}: choose from {', '.join(PREPARABLE_TABLES)}"
    return None


class PuzzleNode(ManagedNode):
    """Solves sliding-tile puzzles in two lanes (small and big boards), each with its own limits.

    In each lane at most `max_concurrent_solves` run at once and `max_queued_solves` wait,
    service requests and action goals together; the requests beyond are answered BUSY at once,
    and so is every service request while the node is not active (a lifecycle node; action
    goals are then rejected). Configure warms the kernel, makes the service and action and
    builds or loads the tables named in `prepare_tables` in the background (cleanup and
    shutdown cancel them); the "ready:" line follows them unless they take longer than
    PREPARE_WAIT_S (a cold build), which then goes on in the background.
    """

    def __init__(self, **node_options) -> None:
        super().__init__("puzzle_solver", **node_options)
        declare_validated(
            self,
            {
                "default_algorithm": (AUTO, "algorithm when a request names none (auto: the "
                                      "fastest optimal solver for the board)",
                                      one_of((AUTO, *PUZZLE_ALGORITHMS))),
                "default_heuristic": (AUTO, "heuristic when a request names none (auto: the "
                                      "best for the board)", one_of(HEURISTIC_NAMES)),
                "default_max_depth": (0, "dfs/iddfs depth limit when a request gives 0 "
                                      "(0: the solver's default for the board size)",
                                      depth_limit_rule),
                "default_timeout": (DEFAULT_SOLVE_TIMEOUT, "seconds of search a solve may "
                                    "take when a request gives 0 (table set-up not counted)",
                                    at_least(0.001)),
                "max_nodes": (DEFAULT_SOLVE_MAX_HELD, "memory budget of one solve: the "
                              "states it may hold at once (open + closed sets, the table of "
                              "iterative deepening; IDA* holds only its path)", at_least(1)),
                "max_expansions": (0, "nodes one solve may expand (0: no limit; time and "
                                   "memory bound a solve)", at_least(0)),
                "setup_timeout": (DEFAULT_SETUP_TIMEOUT, "seconds a solve may wait for its "
                                  "heuristic table to be built or loaded, apart from its "
                                  "timeout", at_least(0.001)),
                "max_board_side": (6, "largest board side accepted (6: the 35-puzzle); bigger "
                                   "boards are INVALID_BOARD", at_least(2)),
                "max_concurrent_solves": (2, "solves that run at once in each lane (boards of "
                                          "up to 9 tiles, bigger boards)", at_least(1)),
                "max_queued_solves": (16, "requests that wait for a running slot in each lane; "
                                      "further ones are answered BUSY at once", at_least(0)),
                "prepare_tables": (["table", "pdb"], "heuristic tables built (or loaded from "
                                   "the cache) in the background from start-up: table = exact "
                                   "8-puzzle distances, pdb = 15-puzzle 6-6-3 pattern database "
                                   "(~5-10 s to build once, then loaded from the cache)",
                                   known_tables),
            },
            read_only=frozenset({"max_concurrent_solves", "max_queued_solves",
                                 "prepare_tables"}),
        )
        limit, queued = self._param("max_concurrent_solves"), self._param("max_queued_solves")
        self._stopping = threading.Event()  # set: the running solves of this activation stop
        self._tables_stop = threading.Event()  # set: the table builds of this configure stop
        self._cancels_lock = threading.Lock()
        self._cancels: set[threading.Event] = set()
        self._build_logged: dict[int, float] = {}
        self._lanes = self._new_lanes()
        for lane in self._lanes.values():
            lane.close(self.refusal())
        # Executor threads the callbacks may hold: both lanes' requests and goals, rclpy's
        # parameter services, the action server's goal, cancel and result requests and the
        # lifecycle services.
        self.callback_threads = 2 * (limit + queued) + 3 + LIFECYCLE_THREADS
        self._warm_seconds = 0.0
        self._warned_keys: set[str] = set()  # unknown parameter-file keys already named
        self._still = ""
        self.start()

    def _new_lanes(self) -> dict[bool, RequestGate]:
        """One gate for small boards and one for big ones."""
        limit, queued = self._param("max_concurrent_solves"), self._param("max_queued_solves")
        names = "max_concurrent_solves, max_queued_solves"
        return {small: RequestGate(limit, queued, names) for small in (True, False)}

    def configure_resources(self) -> None:
        """Warm the IDA* kernel, make the service and action, start preparing the tables;
        name the parameter-file keys this node does not know (a misspelt one is otherwise
        ignored in silence), once each."""
        warn_unknown(self, undeclared_overrides(self), self._warned_keys, "this node")
        self._warm_seconds = warm_with_notice(warm_up, self.get_logger(), "IDA* kernel")
        self._service = self.keep(self.create_service(
            SolvePuzzle, "solve_puzzle", self._on_solve, qos_profile=SERVICE_QOS,
            callback_group=ReentrantCallbackGroup(),
        ))
        self._action = serve_solve_action(self)
        add_listener(self._on_build)
        self._tables_stop = threading.Event()
        prepared = threading.Event()
        threading.Thread(
            target=self._prepare, args=(prepared, self._tables_stop), name="prepare_tables",
            daemon=True,
        ).start()
        # Tables in the cache load in a fraction of a second: "ready" then means at full speed.
        # A cold build (seconds) goes on in the background, cancelled by cleanup and shutdown.
        self._still = "" if prepared.wait(PREPARE_WAIT_S) else ", tables still being built"

    def activate_resources(self) -> None:
        """Open both lanes."""
        self._stopping = threading.Event()
        self._lanes = self._new_lanes()

    def announce(self) -> None:
        """The ready line."""
        limit, queued = self._param("max_concurrent_solves"), self._param("max_queued_solves")
        service, action = self._service.service_name, self._action.name
        serving = (f"'{service}' (service and action)" if service == action else
                   f"'{service}' (service) and '{action}' (action: remap rules do not move it)")
        self.get_logger().info(
            f"ready: serving {serving} "
            f"(default {self._param('default_algorithm')} / {self._param('default_heuristic')}, "
            f"{limit} running + {queued} waiting solves a lane, IDA* kernel warm-up "
            f"{self._warm_seconds * 1000:.0f} ms{self._still}); "
            f"{install_source()}"
        )

    def deactivate_resources(self) -> None:
        """Refuse new solves, end running ones (LIMIT_REACHED) and wait for their answers."""
        self._cancel_solves()
        for lane in self._lanes.values():
            lane.close(self.refusal())
        for lane in self._lanes.values():
            lane.wait_idle(DEACTIVATE_WAIT_S)

    def cleanup_resources(self) -> None:
        """Stop the table builds and listening to them; let cancelled builds end."""
        self._tables_stop.set()
        cancel_builds()
        remove_listener(self._on_build)
        waited_until = time.monotonic() + BUILD_STOP_WAIT_S
        while running_builds() and time.monotonic() < waited_until:
            time.sleep(0.02)

    def _param(self, name: str):
        return self.get_parameter(name).value

    def lane(self, board: object) -> RequestGate:
        """The lane that solves `board`: small boards have their own."""
        return self._lanes[len(board) <= SMALL_BOARD_TILES]

    def halt_work(self) -> None:
        """Cancel running solves and table builds; waiting and new requests are refused."""
        self._cancel_solves()
        self._tables_stop.set()
        cancel_builds()
        for lane in self._lanes.values():
            lane.close()

    def _cancel_solves(self) -> None:
        self._stopping.set()
        with self._cancels_lock:
            for cancel in self._cancels:
                cancel.set()

    def _prepare(self, prepared: threading.Event, stop: threading.Event) -> None:
        """Build or load the `prepare_tables` (until `stop` is set), then set `prepared`."""
        setup = Setup(timeout=self._param("setup_timeout"), cancel=stop)
        for name in self._param("prepare_tables"):
            try:
                seconds = prepare(name, PREPARABLE_TABLES[name], setup=setup)
            except SetupStoppedError as error:
                if stop.is_set():
                    return
                self.get_logger().warning(f"heuristic table '{name}' not prepared: {error}")
                continue
            self.get_logger().info(f"heuristic table '{name}' ready in {seconds:.2f} s")
        prepared.set()

    def _on_build(self, build: TableBuild) -> None:
        """Log a table build's progress at INFO, once it has run for a second."""
        now = time.monotonic()
        if build.finished:
            if self._build_logged.pop(id(build), None) is not None and build.fraction >= 1.0:
                self.get_logger().info(f"built {build.title} in {build.elapsed:.1f} s")
            return
        last = self._build_logged.get(id(build), build.started)
        if now - last < BUILD_LOG_INTERVAL_S:
            return
        self._build_logged[id(build)] = now
        eta = build.eta
        left = f", about {eta:.0f} s left" if eta is not None else ""
        self.get_logger().info(
            f"building {build.title}: {build.fraction:.0%} after {build.elapsed:.0f} s{left}"
        )

    def new_cancel(self) -> threading.Event:
        """A cancel event for one solve, set at once if the node is stopping (forget it after)."""
        cancel = threading.Event()
        with self._cancels_lock:
            self._cancels.add(cancel)
        if self._stopping.is_set():
            cancel.set()
        return cancel

    def forget_cancel(self, cancel: threading.Event) -> None:
        """The solve of `cancel` has ended."""
        with self._cancels_lock:
            self._cancels.discard(cancel)

    def solve_request(
        self, request, cancel: threading.Event, progress: SolveProgress | None = None
    ) -> PuzzleOutcome:
        """Solve a SolvePuzzle request (or action goal) under the node's parameters."""
        side = self._param("max_board_side")
        if len(request.board) > side * side:
            return PuzzleOutcome(
                PuzzleStatus.INVALID_BOARD,
                f"board has {len(request.board)} tiles, more than the {side * side} of the "
                f"largest side accepted (max_board_side {side})",
            )
        algorithm = request.algorithm.strip() or self._param("default_algorithm")
        heuristic = request.heuristic.strip() or self._param("default_heuristic")
        timeout = request.timeout if request.timeout != 0.0 else self._param("default_timeout")
        max_depth = request.max_depth or self._param("default_max_depth")
        if not math.isfinite(timeout) or timeout < 0.0:
            return PuzzleOutcome(
                PuzzleStatus.INVALID_REQUEST,
                f"timeout must be a finite number of seconds >= 0, got {timeout}",
            )
        budget = Budget.from_timeout(
            timeout, max_nodes=self._param("max_expansions") or None,
            max_held=self._param("max_nodes"), cancel=cancel,
        )
        setup = Setup(timeout=self._param("setup_timeout"), cancel=cancel)
        outcome = solve(
            list(request.board), goal=list(request.goal) or None, algorithm=algorithm,
            heuristic=heuristic, max_depth=max_depth, budget=budget, setup=setup,
            progress=progress,
        )
        if outcome.limit is LimitKind.CANCELLED and self._stopping.is_set():
            # Cut short by the node, not by a limit or the client: say which.
            why = "the node is shutting down" if self.shutting_down else "the node was deactivated"
            outcome.message = f"{outcome.message}: {why}"
        # One rclpy log call costs ~1.5 ms (it inspects the caller's source): answers are
        # logged at DEBUG, so a service call pays only for the solve.
        self.get_logger().debug(
            f"solve_puzzle {outcome.algorithm}/{outcome.heuristic}: {outcome.message} "
            f"({outcome.nodes_expanded} expanded, {outcome.planning_time * 1000:.1f} ms)"
        )
        return outcome

    def _on_solve(
        self, request: SolvePuzzle.Request, response: SolvePuzzle.Response
    ) -> SolvePuzzle.Response:
        lane = self.lane(request.board)
        with lane.turn() as refusal:
            if refusal is None:
                cancel = self.new_cancel()
                try:
                    fill_answer(self.solve_request(request, cancel), response)
                except Exception as error:  # a bug must cost one answer, never the node
                    self.get_logger().error(f"solve_puzzle failed unexpectedly: {error!r}")
                    response.status = SolvePuzzle.Response.INVALID_REQUEST
                    response.success = False
                    response.message = f"internal error: {error}"
                finally:
                    self.forget_cancel(cancel)
                return response
        report = lane.refusal_report()
        if report:
            self.get_logger().warning(report)
        response.status = SolvePuzzle.Response.BUSY
        response.message = refusal
        return response


def main(args: list[str] | None = None) -> int:
    """Run puzzle_node until shutdown; the exit code."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([PuzzleNode], args=args)


if __name__ == "__main__":
    sys.exit(main())
