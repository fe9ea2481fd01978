"""Launch the sliding-puzzle solver alone.

    ros2 launch grid_planner puzzle.launch.py namespace:=tutor
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import Parameter


def generate_launch_description() -> LaunchDescription:
    """The puzzle_solver node with its parameter file."""
    share = get_package_share_directory("grid_planner")
    return LaunchDescription([
        DeclareLaunchArgument(
            "params_file",
            default_value=os.path.join(share, "config", "puzzle.yaml"),
            description="parameter file for puzzle_solver (wildcard node keys)",
        ),
        DeclareLaunchArgument("namespace", default_value="", description="namespace"),
        DeclareLaunchArgument(
            "use_sim_time", default_value="false", description="use the /clock topic"
        ),
        Node(
            package="grid_planner",
            executable="puzzle_node",
            name="puzzle_solver",
            namespace=LaunchConfiguration("namespace"),
            # use_sim_time as a `-p` rule ahead of the file, which wins if it sets it, as under
            # Nav2's bringup (a global SetParameter).
            parameters=[
                Parameter("use_sim_time", LaunchConfiguration("use_sim_time")),
                LaunchConfiguration("params_file"),
            ],
            output="screen",
        ),
    ])
