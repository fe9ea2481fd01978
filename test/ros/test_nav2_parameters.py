"""Nav2's planner_server parameter blocks on planner_node run as `planner_server`, over real
DDS: jazzy's default block loads as it is, a Smac 2D block gets Smac's defaults, unknown keys
warn once, a planner's keys can be set at runtime and bad values are refused."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from action_msgs.msg import GoalStatus
from grid_planner_interfaces.srv import ComputePath
from nav2_clients import ActionCaller, require
from planner_harness import TUTORIAL_ROWS, PlannerHarness, centre
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.srv import (
    GetParameters,
    ListParameters,
    SetParameters,
    SetParametersAtomically,
)
from rclpy.parameter import Parameter, parameter_value_to_python
from ros_harness import ros_client, running

from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import map_to_msg
from grid_planner.nodes.nav2_parameters import unknown_keys

# nav2_bringup jazzy's planner_server block, verbatim, and one key nobody knows; before it a
# wildcard block with a key for another node, which the unknown-key WARN named too.
JAZZY_BLOCK = """\
/**:
  ros__parameters:
    default_timeout: 5.0
planner_server:
  ros__parameters:
    expected_planner_frequency: 20.0
    planner_plugins: ["GridBased"]
    costmap_update_timeout: 1.0
    GridBased:
      plugin: "nav2_navfn_planner::NavfnPlanner"
      tolerance: 0.5
      use_astar: false
      allow_unknown: true
    expected_planner_frequencyy: 20.0
"""
SMAC_BLOCK = """\
/nb/planner_server:
  ros__parameters:
    planner_plugins: ["GridBased", "Bfs"]
    GridBased:
      plugin: "nav2_smac_planner::SmacPlanner2D"
      downsample_costmap: false
      max_iterations: 1000000
      terminal_checking_interval: 5000
      smoother:
        max_iterations: 1000
        w_smooth: 0.3
        do_refinement: true
    Bfs:
      plugin: "grid_planner::GridPlanner"
      algorithm: bfs
"""
# The tutorial grid at 0.25 m: cell (7, 7) is blocked, its free neighbour 0.25 m away.
QUARTER = OccupancyMap.from_rows(np.array(TUTORIAL_ROWS) * 100, resolution=0.25)


class ParameterClient:
    """get / set / list of one node's parameters through its services."""

    def __init__(self, client, node: str) -> None:
        self._client = client
        node_client = client.node
        self._get = node_client.create_client(GetParameters, f"{node}/get_parameters")
        self._set = node_client.create_client(SetParameters, f"{node}/set_parameters")
        self._list = node_client.create_client(ListParameters, f"{node}/list_parameters")
        self._set_together = node_client.create_client(
            SetParametersAtomically, f"{node}/set_parameters_atomically"
        )

    def get(self, *names: str) -> list[object]:
        answer = self._client.call(self._get, GetParameters.Request(names=list(names)))
        return [parameter_value_to_python(value) for value in answer.values]

    def set(self, name: str, value: object) -> tuple[bool, str]:
        message = ParameterMsg(name=name, value=Parameter(name, value=value).get_parameter_value())
        result = self._client.call(self._set, SetParameters.Request(parameters=[message]))
        return result.results[0].successful, result.results[0].reason

    def set_together(self, **values: object) -> tuple[bool, str]:
        """Set `values` in one atomic request, as `ros2 param load` may."""
        messages = [ParameterMsg(name=name, value=Parameter(name, value=value)
                                 .get_parameter_value()) for name, value in values.items()]
        result = self._client.call(
            self._set_together, SetParametersAtomically.Request(parameters=messages)
        ).result
        return result.successful, result.reason

    def names(self) -> set[str]:
        return set(self._client.call(self._list, ListParameters.Request()).result.names)


def params_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "nav2_params.yaml"
    path.write_text(text)
    return path


def test_jazzys_default_block_loads_into_planner_server(tmp_path: Path) -> None:
    require("nav2_msgs.action")
    from nav2_msgs.action import ComputePathToPose

    args = ["--ros-args", "-r", "__node:=planner_server", "--params-file",
            str(params_file(tmp_path, JAZZY_BLOCK))]
    with running("planner_node", args, tmp_path) as proc, ros_client("nav2_params") as client:
        parameters = ParameterClient(client, "/planner_server")
        assert parameters.get(
            "planner_plugins", "expected_planner_frequency", "costmap_update_timeout",
            "GridBased.plugin", "GridBased.tolerance", "GridBased.use_astar",
            "GridBased.allow_unknown",
        ) == [["GridBased"], 20.0, 1.0, "nav2_navfn_planner::NavfnPlanner", 0.5, False, True]
        output = proc.output()
        assert ("planner GridBased (nav2_navfn_planner::NavfnPlanner): algorithm dijkstra, "
                "allow_unknown True, goal_tolerance 0.5, max_nodes 16777216, "
                "use_final_approach_orientation False") in output
        assert output.count("unknown parameters ignored") == 1
        assert "unknown parameters ignored: expected_planner_frequencyy (" in output

        harness = PlannerHarness(client, proc, "")
        harness.publish_map(QUARTER)
        to_pose = ActionCaller(client, ComputePathToPose, "/compute_path_to_pose")
        blocked_goal, start = centre(QUARTER, (7, 7)), centre(QUARTER, (0, 7))

        def plan() -> object:
            return to_pose.call(goal=blocked_goal, start=start, use_start=True,
                                planner_id="GridBased")

        outcome = plan()  # NavFn's tolerance 0.5 m reaches the free neighbour
        assert outcome.status == GoalStatus.STATUS_SUCCEEDED, outcome.result.error_msg
        assert QUARTER.world_to_cell(outcome.result.path.poses[-1].pose.position.x,
                                     outcome.result.path.poses[-1].pose.position.y) == (6, 7)
        # The flat parameters still rule the services: goal_tolerance is 0 there.
        assert harness.request(blocked_goal, start=start).error_code == (
            ComputePath.Response.GOAL_OCCUPIED
        )
        assert parameters.set("GridBased.tolerance", 0.0) == (True, "")
        assert plan().result.error_code == 206
        assert parameters.set("GridBased.tolerance", -1.0) == (
            False, "GridBased.tolerance=-1.0 refused: must be a finite number >= 0.0"
        )
        successful, reason = parameters.set("GridBased.tolerance", "far")
        assert not successful and "type" in reason
        assert parameters.get("GridBased.tolerance") == [0.0]
        assert parameters.set("GridBased.tolerance", 0.5) == (True, "")
        assert plan().status == GoalStatus.STATUS_SUCCEEDED
        # An infinite frequency means no period, as in planner_server (1 / inf = 0: no check).
        assert parameters.set("expected_planner_frequency", math.inf) == (True, "")
        assert plan().status == GoalStatus.STATUS_SUCCEEDED
        assert "longer than the period" not in proc.output()
        # Held in int64 nanoseconds by the action server: 1e10 s would overflow at configure.
        assert parameters.set("action_server_result_timeout", 1e10) == (
            False, "action_server_result_timeout=10000000000.0 refused: must be a finite "
            "number in [0.0, 1000000000.0]"
        )


INFLATING_BLOCK = """\
planner_server:
  ros__parameters:
    planner_plugins: ["GridBased"]
    GridBased:
      plugin: "grid_planner::GridPlanner"
      cost_model: uniform
      inflation_radius: 0.55
      robot_radius: 0.0
"""


def test_max_inflation_cells_bounds_every_planners_grid_and_whole_batches(tmp_path: Path) -> None:
    # QUARTER is 0.25 m a cell: the limit of 100 cells is 25 m.
    args = ["--ros-args", "-r", "__node:=planner_server", "--params-file",
            str(params_file(tmp_path, INFLATING_BLOCK))]
    with running("planner_node", args, tmp_path) as proc, ros_client("inflating") as client:
        parameters = ParameterClient(client, "/planner_server")
        harness = PlannerHarness(client, proc, "")
        harness.publish_map(QUARTER)
        # The block's own settings count, not the flat ones: its uniform model has no use for
        # inflation_radius, its inflation model has.
        assert parameters.set("GridBased.inflation_radius", 30.0) == (True, "")
        assert parameters.set("GridBased.cost_model", "inflation") == (
            False, "GridBased.cost_model='inflation' refused: inflation_radius 30.0 m is 120 "
                   "cells at 0.25 m/cell, more than max_inflation_cells 100")
        assert parameters.set("GridBased.robot_radius", 20.0) == (True, "")
        assert parameters.set("max_inflation_cells", 79) == (
            False, "max_inflation_cells=79 refused: robot_radius 20.0 m is 80 cells at 0.25 "
                   "m/cell, more than max_inflation_cells 79")
        # A finer map that the block's grid would inflate too far is refused too.
        harness.map_pub.publish(map_to_msg(
            OccupancyMap.from_rows(np.zeros((8, 10)), resolution=0.1),
            client.node.get_clock().now().to_msg(),
        ))
        proc.wait_for_output("map refused: robot_radius 20.0 m is 200 cells at 0.1 m/cell, more "
                             "than max_inflation_cells 100", timeout=20.0)
        assert parameters.set("GridBased.robot_radius", 0.0) == (True, "")
        # A batch is judged whole: each change alone would fit, together they do not.
        assert parameters.set_together(robot_radius=10.0, max_inflation_cells=39) == (
            False, "robot_radius=10.0 refused: robot_radius 10.0 m is 40 cells at 0.25 m/cell, "
                   "more than max_inflation_cells 39")
        assert parameters.get("GridBased.cost_model", "robot_radius", "max_inflation_cells") == [
            "uniform", 0.0, 100]


@pytest.mark.parametrize("planner_id", ["", "GridBased", "Bfs"])
def test_with_two_planners_a_goal_names_one(smac_server, planner_id) -> None:
    _parameters, to_pose, _proc = smac_server
    outcome = to_pose.call(goal=centre(QUARTER, (9, 0)), start=centre(QUARTER, (0, 7)),
                           use_start=True, planner_id=planner_id)
    if planner_id == "":
        assert outcome.result.error_code == 201  # two planners: the goal must name one
        assert "planner_plugins: GridBased, Bfs" in outcome.result.error_msg
    else:
        assert outcome.status == GoalStatus.STATUS_SUCCEEDED
        points = np.array([(p.pose.position.x, p.pose.position.y)
                           for p in outcome.result.path.poses])
        length = float(np.linalg.norm(np.diff(points, axis=0), axis=1).sum())
        if planner_id == "GridBased":
            # Smac 2D's defaults make GridBased 8-connected (12 straight and 2 diagonal steps)
            # and smoothed, which cuts that path short.
            raw = (12 + 2 * math.sqrt(2)) * 0.25
            assert math.dist(points[0], points[-1]) <= length < raw - 0.1
        else:
            # BFS, our plugin's 4-connected and unsmoothed default: 16 straight steps.
            assert length == pytest.approx(16 * 0.25)


@pytest.fixture(scope="module")
def smac_server(tmp_path_factory):
    require("nav2_msgs.action")
    from nav2_msgs.action import ComputePathToPose

    log_dir = tmp_path_factory.mktemp("smac")
    args = ["--ros-args", "-r", "__node:=planner_server", "-r", "__ns:=/nb", "--params-file",
            str(params_file(log_dir, SMAC_BLOCK))]
    with running("planner_node", args, log_dir) as proc, ros_client("smac_params") as client:
        harness = PlannerHarness(client, proc, "/nb")
        harness.publish_map(QUARTER)
        yield (ParameterClient(client, "/nb/planner_server"),
               ActionCaller(client, ComputePathToPose, "/nb/compute_path_to_pose"), proc)


def test_a_smac_2d_block_gets_smacs_defaults_and_its_keys_quietly(smac_server) -> None:
    parameters, _to_pose, proc = smac_server
    assert parameters.get(
        "GridBased.plugin", "GridBased.tolerance", "GridBased.allow_unknown",
        "GridBased.max_planning_time", "GridBased.use_final_approach_orientation",
        "Bfs.algorithm",
    ) == ["nav2_smac_planner::SmacPlanner2D", 0.125, True, 2.0, False, "bfs"]
    assert "unknown parameters ignored" not in proc.output()
    names = parameters.names()
    # Smac's other search keys are accepted with no effect; the cost-aware keys apply once the
    # node has their flat parameters.
    assert "GridBased.downsample_costmap" not in names
    assert parameters.get("GridBased.max_iterations") == [1_000_000]
    for key, value in (("smoother.w_smooth", 0.3), ("smoother.max_iterations", 1000),
                       ("smoother.do_refinement", True), ("smoother.refinement_num", 2),
                       ("cost_travel_multiplier", 1.0)):
        if key in names:
            assert parameters.get(f"GridBased.{key}") == [value]
        else:
            assert f"GridBased.{key}" not in names


def test_a_smac_blocks_max_iterations_bounds_its_goals_at_runtime(smac_server) -> None:
    parameters, to_pose, _proc = smac_server

    def plan() -> object:
        return to_pose.call(goal=centre(QUARTER, (9, 0)), start=centre(QUARTER, (0, 7)),
                            use_start=True, planner_id="GridBased")

    try:
        assert parameters.set("GridBased.max_iterations", 5) == (True, "")
        outcome = plan()
        assert outcome.result.error_code == 208
        assert "exhausted its budget of 5 expanded nodes" in outcome.result.error_msg
        assert parameters.set("GridBased.max_iterations", -1) == (True, "")
        assert plan().status == GoalStatus.STATUS_SUCCEEDED
        assert parameters.set("GridBased.max_iterations", 2.5)[0] is False
    finally:
        assert parameters.set("GridBased.max_iterations", 1_000_000) == (True, "")
    assert plan().status == GoalStatus.STATUS_SUCCEEDED


@pytest.mark.parametrize(
    ("key", "value", "refusal"),
    [("smoother.refinement_num", "2.5",
      "smoother.refinement_num=2.5 must be an integer, as smoother.refinement_num is"),
     ("smoother.max_iterations", "1000.0",
      "smoother.max_iterations=1000.0 must be an integer, as smoother.max_iterations is"),
     ("smoother.do_refinement", "1",
      "smoother.do_refinement=1 must be true or false, as smoother.do_refinement is"),
     # A string converts to an algorithm name: only the key's own type catches it.
     ("use_astar", '"false"', "use_astar='false' must be true or false"),
     ("max_iterations", "2.5", "max_iterations=2.5 must be an integer"),
     ("max_iterations", '"-1"', "max_iterations='-1' must be an integer"),
     ("tolerance", "-1.0", "tolerance=-1.0 must be a finite number >= 0.0")],
)
def test_a_bad_block_value_fails_configure_with_the_reason(
    tmp_path: Path, key: str, value: str, refusal: str
) -> None:
    from ros_harness import NodeProcess

    block = ("planner_server:\n  ros__parameters:\n    planner_plugins: [\"GridBased\"]\n"
             "    GridBased:\n      plugin: \"nav2_smac_planner::SmacPlanner2D\"\n"
             f"      {key}: {value}\n")
    args = ["--ros-args", "-r", "__node:=planner_server", "--params-file",
            str(params_file(tmp_path, block))]
    proc = NodeProcess("planner_node", args, tmp_path)
    proc.process.wait(60)
    assert proc.stop() == 1
    output = proc.output()
    assert f"parameter GridBased.{refusal}" in output, output
    assert "Exception" not in output, output


SMAC_2D = "nav2_smac_planner::SmacPlanner2D"
NAVFN = "nav2_navfn_planner::NavfnPlanner"
OURS = "grid_planner::GridPlanner"


@pytest.fixture
def unconfigured_planner():
    """An in-process planner_node waiting for transitions, its block given as overrides
    (`overrides(...)` makes it; the test calls the transitions itself)."""
    from grid_planner.nodes.planner_node import PlannerNode

    made = []

    def overrides(**block: object):
        values = {"autostart_node": False, "bond_heartbeat_period": 0.0,
                  "planner_plugins": ["GridBased"], **block}
        node = PlannerNode(namespace="/switch", parameter_overrides=[
            Parameter(name.replace("__", "."), value=value) for name, value in values.items()])
        made.append(node)
        return node

    with ros_client("plugin_switch"):
        yield overrides
        for node in made:
            node.destroy_node()


def set_value(node, name: str, value: object) -> tuple[bool, str]:
    result = node.set_parameters([Parameter(name, value=value)])[0]
    return result.successful, result.reason


def reconfigured(node, plugin: str) -> object:
    """`node` configured, `GridBased.plugin` set to `plugin`, cleaned up and configured again;
    the flat values a GridBased goal plans with."""
    from grid_planner.nodes.lifecycle import SUCCESS

    assert node.trigger_configure() == SUCCESS
    assert set_value(node, "GridBased.plugin", plugin) == (True, "")
    assert node.trigger_cleanup() == SUCCESS
    assert node.trigger_configure() == SUCCESS
    return node.parameter_lookup("GridBased")


def test_a_plugin_change_applies_whole_at_the_next_configure(unconfigured_planner) -> None:
    # Smac 2D -> ours: Smac's defaults went (ours gives none), the file's key stays. Before,
    # the planner kept connectivity 8, tolerance 0.125 and max_planning_time 2.0.
    node = unconfigured_planner(GridBased__plugin=SMAC_2D, GridBased__max_nodes=5000)
    value = reconfigured(node, OURS)
    for key in ("connectivity", "tolerance", "max_planning_time", "allow_unknown", "smoothing"):
        assert not node.has_parameter(f"GridBased.{key}"), key
    assert (value("connectivity"), value("goal_tolerance"), value("max_planning_time"),
            value("smoothing")) == (4, 0.0, 5.0, "none")
    assert value("max_nodes") == 5000


def test_a_navfn_block_has_no_node_budget_below_the_largest_map(unconfigured_planner) -> None:
    """NavFn's search has no node budget: a NavFn block may expand every cell of the largest
    map the node takes by default (a 2000 x 2000 costmap's 3.1 million free cells ran out of
    the flat default of 2,000,000 on reachable goals). Smac 2D's budget is its own
    max_iterations, 1,000,000 by default."""
    node = unconfigured_planner(GridBased__plugin=SMAC_2D)
    assert reconfigured(node, NAVFN)("max_nodes") == 4096 * 4096
    assert node.get_parameter("GridBased.max_nodes").value == 4096 * 4096
    assert not node.has_parameter("GridBased.max_iterations")
    assert node.get_parameter("max_map_cells").value == 4096 * 4096
    smac = unconfigured_planner(GridBased__plugin=NAVFN)
    assert reconfigured(smac, SMAC_2D)("max_nodes") == 1_000_000
    assert smac.get_parameter("GridBased.max_iterations").value == 1_000_000
    assert not smac.has_parameter("GridBased.max_nodes")
    assert smac.get_parameter("max_nodes").value == 2_000_000


@pytest.mark.parametrize(("block", "budget"), [
    ({"GridBased__max_iterations": 0}, 2**31 - 1),  # Smac: 0 or less is no limit
    ({"GridBased__max_iterations": -1}, 2**31 - 1),
    ({"GridBased__max_iterations": 5000}, 5000),
    # Our own key beats Smac's, whichever the file gives.
    ({"GridBased__max_iterations": 5000, "GridBased__max_nodes": 7000}, 7000),
    ({"GridBased__max_nodes": 7000}, 7000),
])
def test_a_smac_blocks_max_iterations_is_its_node_budget(
    unconfigured_planner, block: dict[str, int], budget: int
) -> None:
    from grid_planner.nodes.lifecycle import SUCCESS

    node = unconfigured_planner(GridBased__plugin=SMAC_2D, **block)
    assert node.trigger_configure() == SUCCESS
    assert node.parameter_lookup("GridBased")("max_nodes") == budget


@pytest.mark.parametrize("plugin", [NAVFN, OURS, "nav2_theta_star_planner::ThetaStarPlanner"])
def test_max_iterations_is_a_key_of_smac_blocks_only(unconfigured_planner, plugin: str) -> None:
    # It set max_nodes under every plugin: a stray max_iterations of 5 failed every NavFn goal.
    from grid_planner.nodes.lifecycle import SUCCESS

    node = unconfigured_planner(GridBased__plugin=plugin, GridBased__max_iterations=5)
    assert node.trigger_configure() == SUCCESS
    assert not node.has_parameter("GridBased.max_iterations")
    assert node.parameter_lookup("GridBased")("max_nodes") > 5
    assert "GridBased.max_iterations" in unknown_keys(node, node._planners)


def test_navfns_keys_leave_a_planner_switched_to_smac(unconfigured_planner) -> None:
    # NavFn's use_astar false kept a Smac 2D planner on Dijkstra, with NavFn's tolerance 0.5.
    node = unconfigured_planner(GridBased__plugin=NAVFN)
    value = reconfigured(node, SMAC_2D)
    assert not node.has_parameter("GridBased.use_astar")
    assert node.get_parameter("GridBased.tolerance").value == 0.125
    # Smac 2D always smooths its path: the block smooths with the gradient smoother.
    assert (value("algorithm"), value("goal_tolerance"), value("connectivity"),
            value("smoothing")) == ("astar", 0.125, 8, "gradient")


def test_a_block_key_set_at_runtime_keeps_its_value_across_a_plugin_change(
    unconfigured_planner,
) -> None:
    from grid_planner.nodes.lifecycle import SUCCESS

    node = unconfigured_planner(GridBased__plugin=SMAC_2D)
    assert node.trigger_configure() == SUCCESS
    assert set_value(node, "GridBased.tolerance", 0.3) == (True, "")
    assert node.trigger_cleanup() == SUCCESS
    value = reconfigured(node, NAVFN)
    assert value("goal_tolerance") == 0.3
    assert not node.has_parameter("GridBased.connectivity")  # Smac's default, NavFn has none


def test_an_empty_plugin_name_is_refused(unconfigured_planner) -> None:
    from grid_planner.nodes.lifecycle import FAILURE, SUCCESS

    node = unconfigured_planner(GridBased__plugin=NAVFN)
    assert node.trigger_configure() == SUCCESS
    assert set_value(node, "GridBased.plugin", " ") == (
        False, f"GridBased.plugin=' ' refused: must name a plugin type, e.g. {OURS}")
    assert node.get_parameter("GridBased.plugin").value == NAVFN
    from_file = unconfigured_planner(GridBased__plugin="")
    assert from_file.trigger_configure() == FAILURE
    # It was rclpy's exception, repr'd over two lines.
    assert from_file.last_failure == (
        f"parameter GridBased.plugin='' must name a plugin type, e.g. {OURS}")


def test_a_refused_file_value_can_be_set_right_and_configure_tried_again(
    unconfigured_planner,
) -> None:
    # The refused key stayed undeclared: `ros2 param set` could not fix it, and every configure
    # read the file's value again, so only a restart helped.
    from grid_planner.nodes.lifecycle import FAILURE, SUCCESS

    node = unconfigured_planner(GridBased__plugin=SMAC_2D, GridBased__tolerance=-1.0)
    refusal = ("parameter GridBased.tolerance=-1.0 must be a finite number >= 0.0 (given at "
               "start-up); set a valid GridBased.tolerance (ros2 param set) and configure "
               "again, or correct the start-up value and restart")
    for _attempt in range(2):
        assert node.trigger_configure() == FAILURE
        assert node.last_failure == refusal
    assert set_value(node, "GridBased.tolerance", -2.0)[0] is False
    assert set_value(node, "GridBased.tolerance", 0.3) == (True, "")
    assert node.trigger_configure() == SUCCESS
    assert node.parameter_lookup("GridBased")("goal_tolerance") == 0.3


def test_bringup_names_its_own_typos_not_a_wildcard_blocks_shared_keys(tmp_path: Path) -> None:
    # With `--params-file=PATH` (argparse's other spelling) shared_key was named: the rule read
    # sys.argv, not the arguments bringup gave rclpy. A plain `-p` reaches both nodes of the
    # process: puzzle_node named the planner's connectivity, planner_node its default_timeout.
    path = params_file(tmp_path, (
        "/**:\n  ros__parameters:\n    shared_key: 1\n"
        "/**/grid_planner:\n  ros__parameters:\n    algorithm: astar\n    algoritm: bfs\n"))
    args = ["--no-use-map-publisher", f"--params-file={path}", "--ros-args", "-p",
            "connectivity:=8", "-p", "default_timeout:=5.0"]
    with running("bringup", args, tmp_path, "ready: bringup runs 2 nodes") as proc:
        output = proc.output()
    assert output.count("unknown parameters ignored") == 1
    assert "unknown parameters ignored: algoritm (" in output
    assert "shared_key" not in output
    assert "connectivity" not in output and "default_timeout" not in output


def test_smoother_is_no_planner_id(unconfigured_planner) -> None:
    # Planner `smoother`'s block key `tolerance` was the flat smoother.tolerance: NavFn's 0.5 m
    # goal tolerance became 1e-10, and setting either set both.
    reason = ("must not use smoother as a planner id: the node's own smoother.* parameters "
              "have that name")
    node = unconfigured_planner()
    assert set_value(node, "planner_plugins", ["GridBased", "smoother"]) == (
        False, f"planner_plugins=['GridBased', 'smoother'] refused: {reason}")
    with pytest.raises(ValueError, match=f"parameter planner_plugins=\\['smoother'\\] {reason}"):
        unconfigured_planner(planner_plugins=["smoother"])
