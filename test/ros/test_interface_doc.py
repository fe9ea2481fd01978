"""docs/interface.md against the running nodes: endpoints, QoS, parameters and result codes.

Each node of the page is started from its executable with its defaults, and the test reads
from the ROS graph and the parameter services what the node really declares, so a parameter,
topic, service or action added to the code fails here until the page documents it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, suppress

import pytest
import rclpy
from interface_doc import CODES_HEADING, code, node_sections, parameter_value
from rcl_interfaces.msg import ParameterType
from rclpy._rclpy_pybind11 import NodeNameNonExistentError
from rclpy.action import get_action_server_names_and_types_by_node
from rclpy.parameter import parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient
from rclpy.qos import DurabilityPolicy, ReliabilityPolicy
from ros_harness import ClientNode, ros_client, running, wait_until
from shared_data import PROJECT_ROOT

# What rclpy gives every node; the page says so once instead of listing it per node.
STANDARD_PARAMETERS = {"use_sim_time", "start_type_description_service"}
STANDARD_TOPICS = {"/rosout", "/parameter_events"}
STANDARD_SERVICES = {
    "describe_parameters", "get_parameter_types", "get_parameters", "get_type_description",
    "list_parameters", "set_parameters", "set_parameters_atomically",
}
# Arguments a node cannot start without; their parameters' defaults are not compared.
REQUIRED_ARGS = {
    "map_publisher": {
        "yaml_filename": str(PROJECT_ROOT / "config" / "maps" / "tutorial_grid.yaml"),
    },
}
TYPE_NAMES = {
    "bool": ParameterType.PARAMETER_BOOL, "int": ParameterType.PARAMETER_INTEGER,
    "double": ParameterType.PARAMETER_DOUBLE, "string": ParameterType.PARAMETER_STRING,
    "string[]": ParameterType.PARAMETER_STRING_ARRAY,
    "int[]": ParameterType.PARAMETER_INTEGER_ARRAY,
    "double[]": ParameterType.PARAMETER_DOUBLE_ARRAY,
    "bool[]": ParameterType.PARAMETER_BOOL_ARRAY,
}
SECTIONS = node_sections()


@pytest.fixture(scope="module")
def graph(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ClientNode]:
    """Every documented node running from its executable, and a client node to look at them."""
    log_dir = tmp_path_factory.mktemp("interface_doc")
    with ExitStack() as stack:
        for node_name, (executable, _section) in SECTIONS.items():
            overrides = REQUIRED_ARGS.get(node_name, {})
            args = ["--ros-args", *(a for k, v in overrides.items() for a in ("-p", f"{k}:={v}"))]
            stack.enter_context(running(executable, args, log_dir))
        client = stack.enter_context(ros_client("interface_doc"))
        wait_until(
            lambda: set(SECTIONS) <= {n for n, _ in client.node.get_node_names_and_namespaces()},
            what=f"nodes {sorted(SECTIONS)} in the graph",
        )
        yield client


def live_parameters(client: ClientNode, node_name: str) -> dict[str, tuple[int, object, bool]]:
    """name -> (type, value, read_only) of every parameter the node declares."""
    parameters = AsyncParameterClient(client.node, node_name)
    assert parameters.wait_for_services(30.0), f"{node_name}'s parameter services"
    names = _result(parameters.list_parameters()).result.names
    descriptors = _result(parameters.describe_parameters(names)).descriptors
    values = _result(parameters.get_parameters(names)).values
    return {
        d.name: (d.type, parameter_value_to_python(v), d.read_only)
        for d, v in zip(descriptors, values, strict=True)
    }


def _result(future: rclpy.task.Future) -> object:
    wait_until(future.done, timeout=30.0, what="a parameter service answer")
    return future.result()


def node_endpoints(client: ClientNode, node_name: str) -> dict[tuple[str, str], str]:
    """(direction, name) -> type of the node's own topics, services and actions."""
    node = client.node
    found = {}
    try:
        _collect_endpoints(node, node_name, found)
    except NodeNameNonExistentError:
        return {}  # not (or no longer, or not yet) in the graph
    return found


def _collect_endpoints(node: rclpy.node.Node, node_name: str, found: dict) -> None:
    for direction, lookup in (
        ("publishes", node.get_publisher_names_and_types_by_node),
        ("subscribes", node.get_subscriber_names_and_types_by_node),
    ):
        for name, types in lookup(node_name, "/"):
            if name not in STANDARD_TOPICS and "/_action/" not in name:
                found[(direction, name)] = types[0]
    for name, types in node.get_service_names_and_types_by_node(node_name, "/"):
        if name.rsplit("/", 1)[-1] not in STANDARD_SERVICES and "/_action/" not in name:
            found[("service", name)] = types[0]
    for name, types in get_action_server_names_and_types_by_node(node, node_name, "/"):
        found[("action", name)] = types[0]


def documented_endpoints(node_name: str) -> dict[tuple[str, str], str]:
    """(direction, absolute name) -> type, from the node's Topics, Services, Actions tables."""
    section = SECTIONS[node_name][1]
    found = {}
    for row in section.table("Topics"):
        found[(row["direction"], "/" + code(row["topic"]))] = code(row["type"])
    for row in section.table("Services"):
        found[("service", "/" + code(row["service"]))] = code(row["type"])
    for row in section.table("Actions"):
        found[("action", "/" + code(row["action"]))] = code(row["type"])
    return found


@pytest.mark.parametrize("node_name", sorted(SECTIONS))
def test_documented_endpoints_are_the_nodes_endpoints(graph: ClientNode, node_name: str) -> None:
    expected = documented_endpoints(node_name)
    # Endpoints travel apart from node names: give discovery time before comparing.
    with suppress(AssertionError):
        wait_until(lambda: node_endpoints(graph, node_name) == expected, timeout=30.0)
    assert node_endpoints(graph, node_name) == expected


def _topic_endpoints(lookup: Callable, topic: str, node_name: str) -> list:
    """The node's endpoints on `topic`, once discovery shows exactly one (or after 30 s)."""

    def mine() -> list:
        return [e for e in lookup(topic) if e.node_name == node_name]

    with suppress(AssertionError):
        wait_until(lambda: len(mine()) == 1, timeout=30.0)
    return mine()


@pytest.mark.parametrize("node_name", sorted(SECTIONS))
def test_documented_qos_is_what_the_graph_shows(graph: ClientNode, node_name: str) -> None:
    rows = SECTIONS[node_name][1].table("Topics")
    for row in rows:
        topic = "/" + code(row["topic"])
        reliability, durability, _depth = (part.strip() for part in row["QoS"].split(","))
        lookup = (graph.node.get_publishers_info_by_topic if row["direction"] == "publishes"
                  else graph.node.get_subscriptions_info_by_topic)
        endpoints = _topic_endpoints(lookup, topic, node_name)
        assert len(endpoints) == 1, (topic, endpoints)
        qos = endpoints[0].qos_profile
        assert qos.reliability == ReliabilityPolicy[reliability.upper()], topic
        assert qos.durability == DurabilityPolicy[durability.upper()], topic


@pytest.mark.parametrize("node_name", sorted(SECTIONS))
def test_documented_parameters_are_the_declared_ones(graph: ClientNode, node_name: str) -> None:
    live = live_parameters(graph, node_name)
    rows = SECTIONS[node_name][1].table("Parameters")
    documented = {code(row["parameter"]): row for row in rows}
    assert set(documented) == set(live) - STANDARD_PARAMETERS
    overridden = REQUIRED_ARGS.get(node_name, {})
    for name, row in documented.items():
        kind, value, read_only = live[name]
        assert TYPE_NAMES[row["type"]] == kind, (name, row["type"], kind)
        assert row["read-only"] == ("yes" if read_only else "no"), name
        if name not in overridden:
            default = parameter_value(row["default"])
            assert default == value and type(default) is type(value), (name, default, value)


def documented_code_tables() -> list[tuple[str, str, str, list[dict[str, str]]]]:
    """(package, kind, type, rows) of every result-code table of the page."""
    tables = []
    for _executable, section in SECTIONS.values():
        for heading, rows in section.tables.items():
            match = CODES_HEADING.search(heading)
            if match:
                tables.append((match.group(1), match.group(2), match.group(3), rows))
    return tables


def constants(package: str, kind: str, type_name: str) -> dict[str, int]:
    """The integer constants of a service's response, an action's result or a message."""
    interface = getattr(importlib.import_module(f"{package}.{kind}"), type_name)
    holder = {"srv": lambda: interface.Response, "action": lambda: interface.Result,
              "msg": lambda: interface}[kind]()
    return {
        name: getattr(holder, name) for name in dir(type(holder))
        if name.isupper() and isinstance(getattr(holder, name), int)
    }


def test_the_page_documents_result_codes() -> None:
    assert {t[2] for t in documented_code_tables()} >= {"ComputePath", "SolvePuzzle"}


@pytest.mark.parametrize(
    ("package", "kind", "type_name", "rows"), documented_code_tables(),
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_documented_codes_are_the_interface_constants(
    package: str, kind: str, type_name: str, rows: list[dict[str, str]]
) -> None:
    documented = {code(row["name"]): int(row["code"]) for row in rows}
    assert documented == constants(package, kind, type_name)


def test_every_node_heading_names_an_installed_executable() -> None:
    setup = (PROJECT_ROOT / "setup.py").read_text()
    for executable, _section in SECTIONS.values():
        assert f'"{executable} = ' in setup, executable
    assert set(SECTIONS) == {"grid_planner", "puzzle_solver", "map_publisher"}


def test_page_is_linked_from_readme() -> None:
    assert "(docs/interface.md)" in (PROJECT_ROOT / "README.md").read_text()
