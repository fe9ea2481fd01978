"""The fast wire for big answers: CDR bytes built with NumPy (`cdr`) and handed to rclpy
prebuilt (`prebuilt`), so a 4,000-pose path leaves the node in ~2 ms instead of ~45 ms.

Clients import them at their documented paths, `grid_planner.nodes.cdr` and
`grid_planner.nodes.prebuilt`.
"""
