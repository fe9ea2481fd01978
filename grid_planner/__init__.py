"""grid_planner: BFS, DFS and A* path planning on occupancy grids, and sliding-puzzle solving.

The packages `search`, `grid` and `puzzle` are plain Python + NumPy and import no ROS code;
`nodes` holds the thin rclpy adapters.
"""

__version__ = "0.1.0"
