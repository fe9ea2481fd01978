"""expanded_cells over DDS shades the cells by expansion order: 1..98, never decreasing."""

from __future__ import annotations

import numpy as np
import pytest
from geometry_msgs.msg import PoseStamped
from grid_planner_interfaces.srv import ComputePath
from nav_msgs.msg import OccupancyGrid
from ros_harness import ros_client, running, wait_until

from grid_planner.grid import PlanningGrid, plan
from grid_planner.grid.occupancy import OccupancyMap
from grid_planner.nodes.conversions import map_to_msg
from grid_planner.nodes.qos import MAP_QOS

START, GOAL = (2, 2), (36, 25)


def room_map() -> OccupancyMap:
    """40 x 30 cells of 0.5 m: two walls with doors and a block of shelves."""
    values = np.zeros((30, 40), dtype=np.int8)
    values[:, 12] = 100
    values[20:23, 12] = 0
    values[10, 12:] = 100
    values[10, 30:33] = 0
    values[14:24, 20:34:3] = 100
    return OccupancyMap.from_rows(values, resolution=0.5, top_row_first=False)


def centre(occupancy: OccupancyMap, cell: tuple[int, int]) -> PoseStamped:
    msg = PoseStamped()
    msg.header.frame_id = "map"
    msg.pose.position.x, msg.pose.position.y = occupancy.cell_to_world(*cell)
    msg.pose.orientation.w = 1.0
    return msg


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A planner_node publishing expanded cells, its client and the expanded grids received."""
    args = ["--ros-args", "-r", "__ns:=/order", "-p", "publish_expanded:=true"]
    with running("planner_node", args, tmp_path_factory.mktemp("order")) as proc, ros_client(
        "order_test"
    ) as client:
        received: list[OccupancyGrid] = []
        node = client.node
        node.create_subscription(OccupancyGrid, "/order/expanded_cells", received.append, MAP_QOS)
        publisher = node.create_publisher(OccupancyGrid, "/order/map", MAP_QOS)
        occupancy = room_map()
        publisher.publish(map_to_msg(occupancy, node.get_clock().now().to_msg()))
        proc.wait_for_output("map received in frame")
        yield client, node.create_client(ComputePath, "/order/compute_path"), received, occupancy


@pytest.mark.parametrize("algorithm", ["bfs", "dfs", "astar"])
def test_expanded_cells_rise_from_1_to_98_along_the_expansion_order(session, algorithm):
    client, compute, received, occupancy = session
    before = len(received)
    request = ComputePath.Request(
        goal=centre(occupancy, GOAL), start=centre(occupancy, START), use_start=True,
        algorithm=algorithm,
    )
    answer = client.call(compute, request)
    assert answer.error_code == ComputePath.Response.NONE, answer.error_msg
    wait_until(lambda: len(received) > before, what="expanded_cells")
    values = np.array(received[-1].data, dtype=np.int64)
    # The order the search expanded the cells in, from the core planner on the same map.
    order = plan(PlanningGrid(occupancy), START, GOAL, algorithm, record_expanded=True).expanded
    assert order.size == answer.nodes_expanded > 50
    along = values[order]
    assert along[0] == 1 and along[-1] == 98
    assert np.all(np.diff(along) >= 0)
    assert np.count_nonzero(values) == order.size
    assert set(np.unique(values).tolist()) <= set(range(99))
