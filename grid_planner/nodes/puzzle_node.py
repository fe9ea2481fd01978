"""puzzle_node (node name `puzzle_solver`): the `solve_puzzle` service over the search core."""

from __future__ import annotations

import math
import sys
import threading

from grid_planner_interfaces.srv import SolvePuzzle
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node

from grid_planner.nodes.concurrency import RequestGate
from grid_planner.nodes.parameters import at_least, declare_validated, one_of
from grid_planner.nodes.paths import install_source
from grid_planner.nodes.qos import SERVICE_QOS
from grid_planner.puzzle import (
    HEURISTICS,
    PUZZLE_ALGORITHMS,
    PuzzleStatus,
    prepare,
    solve,
    warm_up,
)
from grid_planner.search.result import Budget

HEURISTIC_NAMES = tuple(HEURISTICS)
# What `prepare_tables` may name: the table heuristic and the board side it is built for.
PREPARABLE_TABLES = {"table": 3, "pdb": 4}
# Boards of up to this many tiles (the 8-puzzle and smaller: at most 181,440 states) are solved
# in a lane of their own, so long solves of bigger boards never hold them up.
SMALL_BOARD_TILES = 9


def known_tables(names: object) -> str | None:
    """Accept a list of PREPARABLE_TABLES names."""
    unknown = [name for name in names if name not in PREPARABLE_TABLES]
    if unknown:
        return f"names unknown tables {unknown}: choose from {', '.join(PREPARABLE_TABLES)}"
    return None


class PuzzleNode(Node):
    """Solves sliding-tile puzzles in two lanes (small and big boards), each with its own limits.

    In each lane at most `max_concurrent_solves` run at once and `max_queued_solves` wait; the
    requests beyond are answered BUSY at once.
    """

    def __init__(self, **node_options) -> None:
        super().__init__("puzzle_solver", **node_options)
        declare_validated(
            self,
            {
                "default_algorithm": ("astar", "algorithm when a request names none",
                                      one_of(PUZZLE_ALGORITHMS)),
                "default_heuristic": ("manhattan", "heuristic when a request names none",
                                      one_of(HEURISTIC_NAMES)),
                "default_max_depth": (0, "dfs/iddfs depth limit when a request gives 0 "
                                      "(0: the solver's default for the board size)", at_least(0)),
                "default_timeout": (10.0, "seconds a solve may take when a request gives 0",
                                    at_least(0.001)),
                "max_nodes": (2_000_000, "nodes one solve may expand (its memory budget)",
                              at_least(1)),
                "max_board_side": (6, "largest board side accepted (6: the 35-puzzle); bigger "
                                   "boards are INVALID_BOARD", at_least(2)),
                "max_concurrent_solves": (2, "solves that run at once in each lane (boards of "
                                          "up to 9 tiles, bigger boards)", at_least(1)),
                "max_queued_solves": (16, "requests that wait for a running slot in each lane; "
                                      "further ones are answered BUSY at once", at_least(0)),
                "prepare_tables": (["table"], "heuristic tables built (or loaded from the cache) "
                                   "at start-up: table = exact 8-puzzle distances, pdb = 15-puzzle "
                                   "6-6-3 pattern database (~10 s to build once)", known_tables),
            },
            read_only=frozenset({"max_concurrent_solves", "max_queued_solves",
                                 "prepare_tables"}),
        )
        warm_seconds = warm_up()
        for name in self._param("prepare_tables"):
            seconds = prepare(name, PREPARABLE_TABLES[name])
            self.get_logger().info(f"heuristic table '{name}' ready in {seconds:.2f} s")
        self._stopping = threading.Event()
        limit, queued = self._param("max_concurrent_solves"), self._param("max_queued_solves")
        names = "max_concurrent_solves, max_queued_solves"
        self._lanes = {small: RequestGate(limit, queued, names) for small in (True, False)}
        # Executor threads the callbacks may hold: both lanes' requests and rclpy's parameter
        # services.
        self.callback_threads = 2 * (limit + queued) + 1
        self._service = self.create_service(
            SolvePuzzle, "solve_puzzle", self._on_solve, qos_profile=SERVICE_QOS,
            callback_group=ReentrantCallbackGroup(),
        )
        self.get_logger().info(
            f"ready: serving '{self._service.service_name}' "
            f"(default {self._param('default_algorithm')} / {self._param('default_heuristic')}, "
            f"{limit} running + {queued} waiting solves a lane, IDA* kernel warm-up "
            f"{warm_seconds * 1000:.0f} ms); "
            f"{install_source()}"
        )

    def _param(self, name: str):
        return self.get_parameter(name).value

    def begin_shutdown(self) -> None:
        """Cancel running solves (they end with LIMIT_REACHED); waiting and new ones are refused."""
        self._stopping.set()
        for lane in self._lanes.values():
            lane.close()

    def _on_solve(
        self, request: SolvePuzzle.Request, response: SolvePuzzle.Response
    ) -> SolvePuzzle.Response:
        lane = self._lanes[len(request.board) <= SMALL_BOARD_TILES]
        with lane.turn() as refusal:
            if refusal is None:
                try:
                    self._solve_into(request, response)
                except Exception as error:  # a bug must cost one answer, never the node
                    self.get_logger().error(f"solve_puzzle failed unexpectedly: {error!r}")
                    response.status = SolvePuzzle.Response.INVALID_REQUEST
                    response.success = False
                    response.message = f"internal error: {error}"
                return response
        report = lane.refusal_report()
        if report:
            self.get_logger().warning(report)
        response.status = SolvePuzzle.Response.BUSY
        response.message = refusal
        return response

    def _solve_into(self, request: SolvePuzzle.Request, response: SolvePuzzle.Response) -> None:
        side = self._param("max_board_side")
        if len(request.board) > side * side:
            response.status = SolvePuzzle.Response.INVALID_BOARD
            response.message = (
                f"board has {len(request.board)} tiles, more than the {side * side} of the "
                f"largest side accepted (max_board_side {side})"
            )
            return
        algorithm = request.algorithm.strip() or self._param("default_algorithm")
        heuristic = request.heuristic.strip() or self._param("default_heuristic")
        timeout = request.timeout if request.timeout != 0.0 else self._param("default_timeout")
        max_depth = request.max_depth or self._param("default_max_depth")
        if not math.isfinite(timeout) or timeout < 0.0:
            response.status = SolvePuzzle.Response.INVALID_REQUEST
            response.message = f"timeout must be a finite number of seconds >= 0, got {timeout}"
            return
        budget = Budget.from_timeout(
            timeout, max_nodes=self._param("max_nodes"), cancel=self._stopping
        )
        outcome = solve(
            list(request.board), goal=list(request.goal) or None, algorithm=algorithm,
            heuristic=heuristic, max_depth=max_depth, budget=budget,
        )
        report = outcome.report()
        response.status = int(outcome.status)
        response.success = outcome.status is PuzzleStatus.SOLVED
        response.message = report.message
        response.moves = list(outcome.moves)
        response.length = report.length
        response.optimal = report.optimal
        response.nodes_expanded = report.nodes_expanded
        response.nodes_generated = report.nodes_generated
        response.max_frontier = report.max_frontier
        response.planning_time = report.planning_time
        # One rclpy log call costs ~1.5 ms (it inspects the caller's source): answers are
        # logged at DEBUG, so a service call pays only for the solve.
        self.get_logger().debug(
            f"solve_puzzle {algorithm}/{heuristic}: {outcome.message} "
            f"({outcome.nodes_expanded} expanded, {outcome.planning_time * 1000:.1f} ms)"
        )


def main(args: list[str] | None = None) -> int:
    """Run puzzle_node until shutdown; the exit code."""
    from grid_planner.nodes.runtime import spin_nodes

    return spin_nodes([PuzzleNode], args=args)


if __name__ == "__main__":
    sys.exit(main())
