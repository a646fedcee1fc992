"""The topology read (present/read/topology.py) on SQLite and PostgreSQL: hosts grouped by
subnet and zone, remote prefixes coarsened, groups opened and closed (every group of several
hosts closed above COLLAPSE_ABOVE hosts), a filter by answer, edges summed between what is
drawn, weighted by bytes; a trunk port's capture grouped by VLAN then subnet; the hosts
findings name flagged (the spoofer of demo_all_rules.pcap apart from its victim); and the
page's JSON (web/graph.py) keeping its keys."""

from __future__ import annotations

import json

from support.campus import build
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.present.read.topology import COLLAPSE_ABOVE, GroupNode, HostNode, Topology, topology
from tracepcap.present.web.graph import topology_json
from tracepcap.store.models import Finding
from tracepcap.testing import crowd, vlans
from tracepcap.testing.campus import CID, GATEWAY


def _by_id(graph: Topology) -> dict:
    return {n.id: n for n in graph.nodes}


def test_a_thousand_hosts_are_grouped_and_open_closed(db):
    build(db)
    registry = get_registry()
    with db.session() as s:
        graph = topology(s, registry, CID, "host-identity")
        opened = topology(s, registry, CID, "host-identity", opened={"local:10.1.0.0/24"})
    nodes = _by_id(graph)
    groups = {g.id: g for g in graph.groups}
    assert graph.hosts == 1000 > COLLAPSE_ABOVE and graph.collapsed and graph.shown == 0  # every group closed
    assert not any(g.open for g in groups.values()) and len(groups) == 21
    ten = groups["local:10.20.0.0/24"]
    assert (ten.name, ten.zone, ten.hosts, ten.open, ten.localities, ten.vlan) == (
        "10.20.0.0/24", "local", 100, False, "100 local-routed", None)
    remote = [g for g in groups.values() if g.zone == "remote"]
    assert len(remote) == 18 and all(g.name.endswith(".0.0/16") for g in remote)  # 70 /24s > 40: by /16
    assert sum(g.hosts for g in remote) == 700
    aggregate = nodes["g:local:10.1.0.0/24"]
    assert isinstance(aggregate, GroupNode) and aggregate.kind == "aggregate" and aggregate.parent == "zone:local"
    assert aggregate.name == "10.1.0.0/24 · 150 hosts"  # one node per subnet, its device count
    assert not any(isinstance(n, HostNode) for n in nodes.values()) and len(nodes) == 2 + len(groups)

    nodes = _by_id(opened)  # one group opened host by host, its edges to the closed ones
    assert opened.shown == 150 and nodes["g:local:10.1.0.0/24"].kind == "group"
    assert nodes[GATEWAY].parent == "g:local:10.1.0.0/24" and nodes[GATEWAY].kind == "host"
    edges = {e.id: e for e in opened.edges}
    routed = edges[f"{GATEWAY}|g:local:10.20.0.0/24"]  # 100 hosts to the gateway: one edge
    assert routed.conversations == 100 and routed.bytes == sum(2 * (1000 + i) for i in range(200, 300))
    assert max(e.width for e in edges.values()) == 8.0 and min(e.width for e in edges.values()) >= 1
    assert all(e.source in nodes and e.target in nodes for e in edges.values())


def test_groups_open_and_close_and_the_filter_keeps_one_answer(db):
    build(db)
    registry = get_registry()
    first_remote = "remote:52.0.0.0/16"
    with db.session() as s:
        graph = topology(s, registry, CID, "host-identity", opened={first_remote, "local:10.1.1.0/24"},
                         closed={"local:10.1.1.0/24"})
        nodes = _by_id(graph)
        assert nodes[f"g:{first_remote}"].kind == "group"
        members = [n for n in nodes.values() if getattr(n, "parent", None) == f"g:{first_remote}"]
        assert len(members) == nodes[f"g:{first_remote}"].hosts == 40
        assert nodes["g:local:10.1.1.0/24"].kind == "aggregate"  # closed wins over opened
        assert graph.shown == 40

        printers = topology(s, registry, CID, "host-identity", label="Printer", opened={"local:10.1.0.0/24"})
        assert printers.matching == sum(1 for i in range(1000) if i % 12 == 1)
        assert {n.answer for n in printers.nodes if isinstance(n, HostNode)} == {"Printer"}
        assert any(lc.label == "Printer" and lc.hosts == printers.matching for lc in printers.labels)
        assert {item.label for item in printers.legend} >= {"Printer", "Router"}  # the legend stays whole


def _analyzed(db, settings, path) -> str:
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name,
                                max_bytes=settings.max_capture_bytes)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    return cid


def test_a_generated_capture_above_the_threshold_opens_collapsed_and_one_below_it_whole(db, settings, tmp_path):
    big = _analyzed(db, settings, crowd.build_crowd(tmp_path / "big.pcap", 150))
    small = _analyzed(db, settings, crowd.build_crowd(tmp_path / "small.pcap", 60))
    with db.session() as s:
        wide = topology(s, get_registry(), big, "host-identity")
        narrow = topology(s, get_registry(), small, "host-identity")
    assert wide.hosts > COLLAPSE_ABOVE and wide.collapsed
    several = [g for g in wide.groups if g.hosts > 1]
    assert len(several) >= 2 and not any(g.open for g in several)  # every subnet group of several hosts closed
    assert all(n.kind == "aggregate" for n in wide.nodes if isinstance(n, GroupNode) and n.hosts > 1)
    assert wide.shown == sum(g.hosts for g in wide.groups if g.hosts == 1)  # groups of one: that host
    assert narrow.hosts <= COLLAPSE_ABOVE and not narrow.collapsed
    assert all(g.open for g in narrow.groups) and narrow.shown == narrow.hosts  # drawn whole
    assert sum(isinstance(n, HostNode) for n in narrow.nodes) == narrow.hosts


def test_the_spoofer_of_demo_all_rules_is_flagged_apart_from_its_victim(db, settings, captures):
    cid = _analyzed(db, settings, captures / "demo_all_rules.pcap")
    with db.session() as s:
        graph = topology(s, get_registry(), cid, "host-identity")
    nodes = _by_id(graph)
    spoofer = nodes["mac-00-80-8f-9a-ae-bd"]  # the Pi that answered DNS as 192.168.1.1 (LABELS.md)
    assert isinstance(spoofer, HostNode) and spoofer.spoofer and spoofer.severity == "high"
    assert set(spoofer.findings) == {"dns-spoofing", "ip-mac-conflict"}
    assert "⚑ dns-spoofing (high, sent as another host)" in spoofer.title
    assert "⚑ dns-spoofing" in spoofer.name or "⚑ ip-mac-conflict" in spoofer.name
    victim = nodes["192.168.1.1"]  # named by the same findings, as the one impersonated
    assert victim.findings and victim.severity == "high" and not victim.spoofer
    assert "(high, named)" in victim.title
    assert [n.id for n in graph.nodes if isinstance(n, HostNode) and n.spoofer] == ["mac-00-80-8f-9a-ae-bd"]
    quiet = nodes["91.108.8.1"]
    assert quiet.findings == () and quiet.severity is None and "⚑" not in quiet.title
    assert graph.flagged == sum(1 for n in graph.nodes if isinstance(n, HostNode) and n.findings)


def test_a_closed_group_says_how_many_of_its_hosts_findings_name(db):
    build(db)
    with db.session() as s:
        s.add(Finding(capture_id=CID, kind="ip-mac-conflict", severity="high", summary="10.20.0.7 was claimed by 2 MACs",
                      entities=["10.20.0.7", "10.20.0.9"], frames=[1]))
    with db.session() as s:
        graph = topology(s, get_registry(), CID, "host-identity")
        opened = topology(s, get_registry(), CID, "host-identity", opened={"local:10.20.0.0/24"})
    group = _by_id(graph)["g:local:10.20.0.0/24"]
    assert (group.flagged, group.findings, group.severity, group.spoofer) == (2, ("ip-mac-conflict",), "high", True)
    assert group.name == "10.20.0.0/24 · 100 hosts\n⚑ 2 with findings: ip-mac-conflict"
    assert "10.20.0.9 sent as another host" in group.title
    assert not _by_id(graph)["g:local:10.1.0.0/24"].flagged
    nodes = _by_id(opened)
    assert nodes["10.20.0.9"].spoofer and not nodes["10.20.0.7"].spoofer and nodes["10.20.0.7"].severity == "high"
    assert nodes["10.20.0.8"].findings == ()


def test_the_pages_json_keeps_its_keys(db):
    build(db)
    with db.session() as s:
        data = topology_json(topology(s, get_registry(), CID, "host-identity", opened={"local:10.1.0.0/24"}))
    assert set(data) >= {"question", "title", "nodes", "edges", "legend", "labels", "label", "groups", "hosts",
                         "matching", "shown", "pairs", "edges_shown"}
    json.dumps(data)  # JSON-ready
    kinds = {}
    for node in data["nodes"]:
        kinds.setdefault(node["data"]["kind"], set(node["data"]))
    assert kinds["zone"] == {"id", "kind", "name", "zone"}
    assert kinds["aggregate"] >= {"id", "group", "kind", "parent", "zone", "hosts", "shown", "bytes", "name", "answer",
                                  "tone", "mix", "localities"} and "vlan" not in kinds["aggregate"]
    assert kinds["host"] >= {"id", "kind", "parent", "name", "answer", "tone", "contested", "human", "bytes"}
    assert set(data["edges"][0]["data"]) == {"id", "source", "target", "conversations", "bytes", "width"}
    assert set(data["groups"][0]) >= {"id", "name", "zone", "hosts", "open", "bytes", "localities"}
    assert set(data["legend"][0]) == {"label", "tone"} and set(data["labels"][0]) == {"label", "hosts"}
    mix = next(n["data"]["mix"] for n in data["nodes"] if n["data"]["kind"] == "aggregate")
    assert set(mix[0]) == {"label", "tone", "hosts"}


def test_a_trunk_ports_capture_groups_local_hosts_by_vlan_then_subnet(db, settings, tmp_path):
    cid = _analyzed(db, settings, vlans.build(tmp_path / "trunk.pcap"))
    with db.session() as s:
        graph = topology(s, get_registry(), cid, "host-identity")
    groups = {g.id: g for g in graph.groups}
    nodes = _by_id(graph)
    ten = groups["local:vlan-10:10.0.10.0/24"]
    assert (ten.name, ten.vlan, ten.hosts) == ("VLAN 10 · 10.0.10.0/24", "10", 3)
    twenty = groups["local:vlan-20:10.0.20.0/24"]
    assert (twenty.name, twenty.vlan, twenty.hosts) == ("VLAN 20 · 10.0.20.0/24", "20", 3)
    assert groups["local:vlan-100.30:10.0.30.0/24"].name == "VLAN 100.30 · 10.0.30.0/24"
    assert [g.vlan for g in graph.groups if g.zone == "local"] == ["10", "20", "100.30"]  # by VLAN
    for ip in vlans.VLAN20:
        assert nodes[ip].parent == "g:local:vlan-20:10.0.20.0/24"
    assert nodes["g:local:vlan-10:10.0.10.0/24"].vlan == "10"
    remote = [g for g in groups.values() if g.zone == "remote"]
    assert [g.name for g in remote] == ["203.0.113.0/24"] and remote[0].vlan is None  # remote: by prefix only
    data = topology_json(graph)
    assert [g["vlan"] for g in data["groups"] if g["zone"] == "local"] == ["10", "20", "100.30"]
    assert "vlan" not in next(g for g in data["groups"] if g["zone"] == "remote")


def test_without_vlan_facts_groups_carry_no_vlan(db):
    build(db)
    with db.session() as s:
        data = topology_json(topology(s, get_registry(), CID, "host-identity"))
    assert not any("vlan" in g for g in data["groups"])
    assert not any("vlan" in n["data"] for n in data["nodes"])
