"""Issue 28: traffic per device is stored by Scan on the entity row, and its numbers agree
with an independent count of the same shared capture read with dpkt (IP packets and IP
payload lengths per address, first and last packet, distinct peers)."""

from __future__ import annotations

import socket
from collections import defaultdict

import dpkt
import pytest
from sqlalchemy import select

from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.scan.traffic import port_order
from tracepcap.store.models import Entity, ObservationRow

#: shared captures without tunnels: every IP packet has one IP layer
CAPTURES = ("http_demo.pcap", "demo_all_rules.pcap")


def independent_count(path) -> dict[str, dict]:
    """Per IP address, read with dpkt: packets and bytes (IP payload: total length less the
    header) each way, first and
    last timestamp, and the set of peers."""
    out: dict[str, dict] = defaultdict(lambda: {"ps": 0, "pr": 0, "bs": 0, "br": 0, "first": None,
                                                "last": None, "peers": set()})
    with open(path, "rb") as fh:
        for ts, buf in dpkt.pcap.Reader(fh):
            eth = dpkt.ethernet.Ethernet(buf)
            ip = eth.data
            while isinstance(ip, dpkt.ethernet.Ethernet):
                ip = ip.data
            if isinstance(ip, dpkt.ip.IP):
                src, dst = socket.inet_ntop(socket.AF_INET, ip.src), socket.inet_ntop(socket.AF_INET, ip.dst)
                size = ip.len - ip.hl * 4
            elif isinstance(ip, dpkt.ip6.IP6):
                src, dst = socket.inet_ntop(socket.AF_INET6, ip.src), socket.inet_ntop(socket.AF_INET6, ip.dst)
                size = ip.plen
            else:
                continue
            a, b = out[src], out[dst]
            a["ps"] += 1
            a["bs"] += size
            b["pr"] += 1
            b["br"] += size
            for side in (a, b):
                side["first"] = ts if side["first"] is None else min(side["first"], ts)
                side["last"] = ts if side["last"] is None else max(side["last"], ts)
            if src != dst:
                a["peers"].add(dst)
                b["peers"].add(src)
    return out


@pytest.mark.parametrize("name", CAPTURES)
def test_traffic_per_device_matches_an_independent_count(db, settings, captures, name):
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, captures / name, uploaded_by="system", max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    counted = independent_count(captures / name)
    with db.session() as s:
        entities = list(s.scalars(select(Entity).where(Entity.capture_id == cid)))
        served, initiated = defaultdict(set), defaultdict(set)
        for entity, kind, value in s.execute(select(ObservationRow.entity, ObservationRow.kind, ObservationRow.value)
                                             .where(ObservationRow.capture_id == cid,
                                                    ObservationRow.kind.in_(("served", "initiated")))):
            (served if kind == "served" else initiated)[entity].add(value)
    assert len(entities) > 3
    total_packets = 0
    for e in entities:
        mine = [counted[a] for a in e.addresses if a in counted]
        assert (e.packets_sent, e.packets_received) == (sum(c["ps"] for c in mine), sum(c["pr"] for c in mine)), e.key
        assert (e.bytes_sent, e.bytes_received) == (sum(c["bs"] for c in mine), sum(c["br"] for c in mine)), e.key
        if mine:
            assert e.first_seen == pytest.approx(min(c["first"] for c in mine), abs=1e-6)
            assert e.last_seen == pytest.approx(max(c["last"] for c in mine), abs=1e-6)
        assert e.peers == len(set().union(*(c["peers"] for c in mine)) - set(e.addresses)), e.key
        # ports served: the measured `served` facts of its addresses, in port order
        assert e.ports_served == sorted(set().union(*(served[a] for a in e.addresses)), key=port_order)
        assert e.ports_used == sorted(set().union(*(initiated[a] for a in e.addresses)), key=port_order)
        total_packets += e.packets_sent
    assert total_packets > 50
    if name == "demo_all_rules.pcap":  # handshakes seen: ports opened and served are measured
        assert any(e.ports_used for e in entities) and any(e.ports_served for e in entities)
    # every sender is some device's (but an unspecified source, which no device holds)
    held = {a for e in entities for a in e.addresses}
    assert {a for a, c in counted.items() if c["ps"] and a not in held} <= {"0.0.0.0", "::"}
    busiest = max(entities, key=lambda e: e.packets_sent + e.packets_received)
    assert busiest.packets_sent and busiest.packets_received and busiest.peers
