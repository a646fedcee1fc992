"""The topology page's JSON, from the read model's `Topology` (present/read/topology.py).

The conversion is `read.shapes.plain` (dataclasses field by field, tuples as lists) with two
changes the page's graph library (cytoscape) asks for: each node and edge is `{"data":
{fields}}`, and a field that is None (a group's `vlan` off a trunk port, `severity` of a host
no finding names) is left out, so an untagged capture's JSON carries no `vlan` key at all."""

from __future__ import annotations

from typing import Any

from ..read.shapes import plain
from ..read.topology import Topology


def _fields(item: object) -> dict[str, Any]:
    return {name: value for name, value in plain(item).items() if value is not None}


def topology_json(graph: Topology) -> dict[str, Any]:
    out = {name: value for name, value in plain(graph).items() if name not in ("nodes", "edges", "groups")}
    out["nodes"] = [{"data": _fields(node)} for node in graph.nodes]
    out["edges"] = [{"data": _fields(edge)} for edge in graph.edges]
    out["groups"] = [_fields(group) for group in graph.groups]
    return out
