"""Launch the map publisher, the grid planner and the puzzle solver (docs/interface.md lists the
arguments).

    ros2 launch grid_planner grid_planner.launch.py map:=/path/to/map.yaml namespace:=robot1
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.conditions import IfCondition
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import Parameter


def generate_launch_description() -> LaunchDescription:
    """Three nodes sharing one namespace, parameter file and clock setting."""
    share = get_package_share_directory("grid_planner")
    map_yaml = LaunchConfiguration("map")
    params_file = LaunchConfiguration("params_file")
    namespace = LaunchConfiguration("namespace")
    use_sim_time = LaunchConfiguration("use_sim_time")
    # A `-p` rule ahead of the parameters file, as Nav2's bringup passes it (a global
    # SetParameter): a file that sets use_sim_time wins, the dicts after the file still win.
    sim_time = Parameter("use_sim_time", use_sim_time)

    return LaunchDescription([
        DeclareLaunchArgument(
            "map",
            default_value=os.path.join(share, "config", "maps", "demo_map.yaml"),
            description="map_server YAML file that map_publisher serves",
        ),
        DeclareLaunchArgument(
            "params_file",
            default_value=os.path.join(share, "config", "planner.yaml"),
            description="parameter file for all nodes (wildcard node keys)",
        ),
        DeclareLaunchArgument(
            "use_map_publisher",
            default_value="true",
            description="false when map_server or slam_toolbox already publishes map",
        ),
        DeclareLaunchArgument("namespace", default_value="", description="robot namespace"),
        DeclareLaunchArgument(
            "use_sim_time", default_value="false", description="use the /clock topic"
        ),
        Node(
            package="grid_planner",
            executable="map_publisher",
            name="map_publisher",
            namespace=namespace,
            parameters=[sim_time, params_file, {"yaml_filename": map_yaml}],
            condition=IfCondition(LaunchConfiguration("use_map_publisher")),
            output="screen",
        ),
        Node(
            package="grid_planner",
            executable="planner_node",
            name="grid_planner",
            namespace=namespace,
            parameters=[sim_time, params_file],
            output="screen",
        ),
        Node(
            package="grid_planner",
            executable="puzzle_node",
            name="puzzle_solver",
            namespace=namespace,
            parameters=[sim_time, os.path.join(share, "config", "puzzle.yaml"), params_file],
            output="screen",
        ),
    ])
