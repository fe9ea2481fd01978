"""The QoS profiles of the node interfaces, in one place so publishers and subscribers agree."""

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

# REP 2003: maps are latched (map_server, slam_toolbox), so a late subscriber still gets one.
MAP_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)

# A map's partial updates: reliable and latched as the map, but the last 10 kept, as Nav2's
# costmap subscriber keeps them, so a burst of patches published back to back is applied in
# full, not only its last.
MAP_UPDATES_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=10,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)

# RViz "2D Goal Pose" / "2D Pose Estimate" publish reliable + volatile.
COMMAND_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=10,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

# AMCL latches amcl_pose; slam_toolbox's pose is volatile (parameter start_pose_transient_local).
LATCHED_POSE_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
VOLATILE_POSE_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

# Nav2 publishes its plan reliable + volatile, depth 1.
PLAN_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

# Services keep every request until the node takes it (never overwritten by a burst); the
# node takes them at once and answers the ones beyond its limits with a busy failure.
SERVICE_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_ALL,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)
