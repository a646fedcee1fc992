"""The topology read (present/read/topology.py) on SQLite and PostgreSQL: hosts grouped by
subnet and zone, remote prefixes coarsened, groups opened and closed, a filter by answer, and
edges summed between what is drawn, weighted by bytes; a trunk port's capture grouped by VLAN
then subnet."""

from __future__ import annotations

from support.campus import build
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.present.read.topology import topology
from tracepcap.testing import vlans
from tracepcap.testing.campus import CID, GATEWAY


def _by_id(graph: dict) -> dict:
    return {n["data"]["id"]: n["data"] for n in graph["nodes"]}


def test_a_thousand_hosts_are_grouped_and_the_remote_ones_aggregated(db):
    build(db)
    registry = get_registry()
    with db.session() as s:
        graph = topology(s, registry, CID, "host-identity")
    nodes = _by_id(graph)
    groups = {g["id"]: g for g in graph["groups"]}
    assert graph["hosts"] == 1000 and graph["shown"] == 200  # the two on-link /24s, host by host
    assert {g for g, v in groups.items() if v["open"]} == {"local:10.1.0.0/24", "local:10.1.1.0/24"}
    assert groups["local:10.20.0.0/24"] == {"id": "local:10.20.0.0/24", "name": "10.20.0.0/24", "zone": "local",
                                            "hosts": 100, "open": False, "bytes": groups["local:10.20.0.0/24"]["bytes"],
                                            "localities": "100 local-routed"}
    remote = [g for g in groups.values() if g["zone"] == "remote"]
    assert len(remote) == 18 and all(g["name"].endswith(".0.0/16") for g in remote)  # 70 /24s > 40: by /16
    assert sum(g["hosts"] for g in remote) == 700
    assert nodes["g:local:10.20.0.0/24"]["kind"] == "aggregate" and nodes["g:local:10.20.0.0/24"]["parent"] == "zone:local"
    assert nodes[GATEWAY]["parent"] == "g:local:10.1.0.0/24" and nodes[GATEWAY]["kind"] == "host"
    assert sum(1 for n in nodes.values() if n["kind"] == "host") == 200 and len(nodes) == 2 + len(groups) + 200
    edges = {e["data"]["id"]: e["data"] for e in graph["edges"]}
    routed = edges[f"{GATEWAY}|g:local:10.20.0.0/24"]  # 100 hosts to the gateway: one edge
    assert routed["conversations"] == 100 and routed["bytes"] == sum(2 * (1000 + i) for i in range(200, 300))
    assert max(e["width"] for e in edges.values()) == 8.0 and min(e["width"] for e in edges.values()) >= 1
    assert all(e["source"] in nodes and e["target"] in nodes for e in edges.values())


def test_groups_open_and_close_and_the_filter_keeps_one_answer(db):
    build(db)
    registry = get_registry()
    first_remote = "remote:52.0.0.0/16"
    with db.session() as s:
        graph = topology(s, registry, CID, "host-identity", opened={first_remote}, closed={"local:10.1.1.0/24"})
        nodes = _by_id(graph)
        assert nodes[f"g:{first_remote}"]["kind"] == "group"
        members = [n for n in nodes.values() if n.get("parent") == f"g:{first_remote}"]
        assert len(members) == nodes[f"g:{first_remote}"]["hosts"] == 40
        assert nodes["g:local:10.1.1.0/24"]["kind"] == "aggregate"
        assert graph["shown"] == 150 + 40

        printers = topology(s, registry, CID, "host-identity", label="Printer")
        assert printers["matching"] == sum(1 for i in range(1000) if i % 12 == 1)
        assert {n["data"]["answer"] for n in printers["nodes"] if n["data"]["kind"] == "host"} == {"Printer"}
        assert {"label": "Printer", "hosts": printers["matching"]} in printers["labels"]
        assert {item["label"] for item in printers["legend"]} >= {"Printer", "Router"}  # the legend stays whole


def test_a_trunk_ports_capture_groups_local_hosts_by_vlan_then_subnet(db, settings, tmp_path):
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, vlans.build(tmp_path / "trunk.pcap"),
                                uploaded_by=SYSTEM_ACTOR.name, max_bytes=settings.max_capture_bytes)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    with db.session() as s:
        graph = topology(s, get_registry(), cid, "host-identity")
    groups = {g["id"]: g for g in graph["groups"]}
    nodes = _by_id(graph)
    ten = groups["local:vlan-10:10.0.10.0/24"]
    assert (ten["name"], ten["vlan"], ten["hosts"]) == ("VLAN 10 · 10.0.10.0/24", "10", 3)
    twenty = groups["local:vlan-20:10.0.20.0/24"]
    assert (twenty["name"], twenty["vlan"], twenty["hosts"]) == ("VLAN 20 · 10.0.20.0/24", "20", 3)
    assert groups["local:vlan-100.30:10.0.30.0/24"]["name"] == "VLAN 100.30 · 10.0.30.0/24"
    assert [g["vlan"] for g in graph["groups"] if g["zone"] == "local"] == ["10", "20", "100.30"]  # by VLAN
    for ip in vlans.VLAN20:
        assert nodes[ip]["parent"] == "g:local:vlan-20:10.0.20.0/24"
    assert nodes["g:local:vlan-10:10.0.10.0/24"]["vlan"] == "10"
    remote = [g for g in groups.values() if g["zone"] == "remote"]
    assert [g["name"] for g in remote] == ["203.0.113.0/24"] and "vlan" not in remote[0]  # remote: by prefix only


def test_without_vlan_facts_groups_carry_no_vlan(db):
    build(db)
    with db.session() as s:
        graph = topology(s, get_registry(), CID, "host-identity")
    assert not any("vlan" in g for g in graph["groups"])
    assert not any("vlan" in n["data"] for n in graph["nodes"])
