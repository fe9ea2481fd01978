"""Launch grid_planner as Nav2's planner_server, with the global costmap planner_server would run.

    ros2 launch grid_planner nav2_planner_server.launch.py namespace:=robot1 \
        params_file:=/path/to/nav2_params.yaml

Launched alone under a namespace, the params file's blocks must be keyed `/**/planner_server`
and `/**/global_costmap` (as config/nav2_params.yaml is) or carry the namespace as their root
key: Nav2's own nav2_params.yaml keys them `planner_server:`, which matches the node only
outside a namespace (nav2_bringup rewrites the file with the namespace before it includes
this file).

Started in place of nav2_planner's planner_server (README, "Using grid_planner in a Nav2
stack"), under the navigation lifecycle manager that lists `planner_server`:
- planner_node named `planner_server`, waiting for that manager (`autostart_node: false`),
  following `global_costmap/costmap` with Nav2's blocked costs (99 inscribed, 100 lethal) and no
  inflation of its own (the costmap is inflated), without its goal_pose / initialpose inputs
  (bt_navigator sends the goals); the params file's `planner_server` block applies on top;
- Nav2's standalone costmap (`nav2_costmap_2d`) as `global_costmap` in namespace
  `global_costmap`, so the params file's `global_costmap: global_costmap:` block applies and its
  topics are the ones planner_server's child costmap has. That node names its services after
  its fixed internal name `costmap` (`clear_entirely_costmap`, ...); they are remapped to the
  `*_global_costmap` names bt_navigator's recovery calls. Its map topic is made absolute
  (`<namespace>/map`), as the child costmap's is;
- a lifecycle manager for the costmap with `bond_timeout: 0.0`, as the costmap forms no bond.
`use_costmap:=false` starts planner_server alone (for a costmap run elsewhere).
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import Parameter

# The costmap node's services named after its internal name, and the names Nav2 uses.
COSTMAP_SERVICES = ("clear_entirely", "clear_except", "clear_around", "clear_around_pose",
                    "get_cost")
TF_REMAPPINGS = [("/tf", "tf"), ("/tf_static", "tf_static")]
# What planner_server needs to plan on Nav2's global costmap; the params file may override it.
PLANNER_ON_COSTMAP = {
    "map_topic": "global_costmap/costmap",
    "cost_model": "costmap",
    "occupied_threshold": 99,
    "robot_radius": 0.0,
    "allow_unknown": True,
    "subscribe_goal_pose": False,
    "subscribe_initialpose": False,
}
ARGUMENTS = {
    "namespace": ("", "robot namespace of every node"),
    "params_file": (None, "Nav2 parameter file (planner_server and global_costmap blocks)"),
    "use_sim_time": ("false", "use the /clock topic"),
    "autostart": ("true", "the costmap's lifecycle manager starts it"),
    "autostart_node": ("false", "planner_server starts itself (true only without a lifecycle "
                       "manager)"),
    "use_costmap": ("true", "start the global costmap and its lifecycle manager"),
}


def truth(text: str) -> bool:
    """A launch argument's boolean value."""
    return text.strip().lower() in ("true", "1", "yes")


def node_specs(namespace: str, params_file: str, use_sim_time: bool, autostart: bool,
               autostart_node: bool, use_costmap: bool, pushed_namespace: str = "") -> list[dict]:
    """The keyword arguments of each launch_ros Node this launch file starts.

    Included by a launch file that pushed the robot's namespace already (nav2_bringup pushes it
    and passes the same name as `namespace`), the nodes take the pushed one and `namespace`
    only names it; launched alone, `namespace` is the nodes' namespace.
    """
    robot = (pushed_namespace or namespace).strip("/")
    namespace = "" if pushed_namespace else namespace.strip("/")
    # rcl applies every `-p` rule (under `/**`) before any entry keyed by the node's name,
    # wherever it stands. use_sim_time and our Nav2 settings go as `-p` rules ahead of the
    # parameters file, so whatever key the file sets them under wins (Nav2's bringup passes
    # use_sim_time so, a global SetParameter); the arguments that must win go in a dict keyed by
    # the node, after the file.
    sim_time = Parameter("use_sim_time", use_sim_time)
    specs = [{
        "package": "grid_planner", "executable": "planner_node", "name": "planner_server",
        "namespace": namespace, "output": "screen", "remappings": TF_REMAPPINGS,
        "parameters": [sim_time, *(Parameter(name, value)
                                   for name, value in PLANNER_ON_COSTMAP.items()),
                       params_file, {"autostart_node": autostart_node}],
    }]
    if not use_costmap:
        return specs
    map_topic = f"/{robot}/map" if robot else "/map"
    costmap_namespace = f"{namespace}/global_costmap" if namespace else "global_costmap"
    specs += [
        {
            "package": "nav2_costmap_2d", "executable": "nav2_costmap_2d",
            "name": "global_costmap", "namespace": costmap_namespace, "output": "screen",
            "remappings": TF_REMAPPINGS + [(f"{service}_costmap", f"{service}_global_costmap")
                                           for service in COSTMAP_SERVICES],
            "parameters": [sim_time, params_file, {"map_topic": map_topic}],
        },
        {
            "package": "nav2_lifecycle_manager", "executable": "lifecycle_manager",
            "name": "lifecycle_manager_costmap", "namespace": namespace, "output": "screen",
            "parameters": [{"use_sim_time": use_sim_time, "autostart": autostart,
                            "bond_timeout": 0.0,
                            "node_names": ["global_costmap/global_costmap"]}],
        },
    ]
    return specs


def _nodes(context) -> list[Node]:
    value = {name: LaunchConfiguration(name).perform(context) for name in ARGUMENTS}
    specs = node_specs(
        value["namespace"], value["params_file"], truth(value["use_sim_time"]),
        truth(value["autostart"]), truth(value["autostart_node"]), truth(value["use_costmap"]),
        context.launch_configurations.get("ros_namespace", ""),  # set by PushROSNamespace
    )
    return [Node(**spec) for spec in specs]


def generate_launch_description() -> LaunchDescription:
    """The arguments, then the nodes they choose."""
    share = get_package_share_directory("grid_planner")
    defaults = {"params_file": os.path.join(share, "config", "nav2_params.yaml")}
    return LaunchDescription([
        *(DeclareLaunchArgument(name, default_value=defaults.get(name, default),
                                description=description)
          for name, (default, description) in ARGUMENTS.items()),
        OpaqueFunction(function=_nodes),
    ])
