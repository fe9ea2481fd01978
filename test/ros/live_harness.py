"""The live-map test harness: PlannerHarness plus map_updates patches and amcl_pose."""

from __future__ import annotations

import array

import numpy as np
import pytest
from geometry_msgs.msg import PoseWithCovarianceStamped
from planner_harness import PlannerHarness, pose
from ros_harness import wait_until

from grid_planner.nodes.qos import LATCHED_POSE_QOS, MAP_QOS

map_msgs = pytest.importorskip("map_msgs.msg")


class LiveHarness(PlannerHarness):
    """PlannerHarness plus the map_updates and amcl_pose publishers."""

    def __init__(self, client, proc, namespace: str) -> None:
        super().__init__(client, proc, namespace)
        node = client.node
        self.update_pub = node.create_publisher(
            map_msgs.OccupancyGridUpdate, f"{namespace}/map_updates", MAP_QOS
        )
        self.amcl_pub = node.create_publisher(
            PoseWithCovarianceStamped, f"{namespace}/amcl_pose", LATCHED_POSE_QOS
        )
        wait_until(lambda: self.update_pub.get_subscription_count() > 0,
                   what="the planner to subscribe to map_updates")

    def publish_patch(self, x: int, y: int, width: int, height: int, values, *,
                      frame: str = "map", stamp=None) -> None:
        msg = map_msgs.OccupancyGridUpdate()
        msg.header.frame_id = frame
        msg.header.stamp = stamp or self.client.node.get_clock().now().to_msg()
        msg.x, msg.y, msg.width, msg.height = x, y, width, height
        data = array.array("b")
        data.frombytes(np.asarray(values, dtype=np.int8).tobytes())
        msg.data = data
        self.update_pub.publish(msg)

    def set_amcl(self, x: float, y: float) -> None:
        msg = PoseWithCovarianceStamped()
        msg.header.frame_id = "map"
        msg.pose.pose = pose(x, y).pose
        self.amcl_pub.publish(msg)

    def count(self, text: str) -> int:
        return self.proc.output().count(text)
