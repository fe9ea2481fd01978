"""The QoS profiles of the node interfaces, in one place so publishers and subscribers agree."""

from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy

# REP 2003: maps are latched (map_server, slam_toolbox), so a late subscriber still gets one.
MAP_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
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

# Nav2 publishes its plan reliable + volatile, depth 1.
PLAN_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

# Requests wait in the service's history while every solver slot is busy: keep a deep one so
# a burst of requests is queued rather than overwritten.
QUEUED_SERVICE_QOS = QoSProfile(
    history=HistoryPolicy.KEEP_LAST,
    depth=1000,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)
