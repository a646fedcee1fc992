"""Issue 24 mechanism 7: locality outside Ethernet LANs, and a mobile core's roles. Addresses
seen only inside a GTP-U (or another) tunnel are the tunnel's own network, not "public"; a
mobile core's UPF, SMF and gNB are node-role labels with their reasons; loopback is not remote.
On free5gc.pcap and on generated cores."""

from __future__ import annotations

import contextlib
import io
import json
import struct

import pytest

from tracepcap.present.cli import ExitCode, main
from tracepcap.testing import frames as f
from tracepcap.testing import tunnels as t
from tracepcap.testing.scenario import Scenario


def document(path, tmp_path) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}"])
    assert code == ExitCode.OK
    return json.loads(out.getvalue())


def row_of(doc: dict, address: str) -> dict:
    return next(h for h in doc["hosts"] if address in (h["addresses"] or [h["key"]]))


def role(row: dict) -> str | None:
    return row["verdicts"]["node-role"]["primary_label"]


def role_reasons(row: dict, label: str) -> str:
    return " ".join(r for c in row["verdicts"]["node-role"]["candidates"] if c["label"] == label for r in c["reasons"])


def test_free5gc_roles_and_the_user_plane_inside_gtp_u(captures, tmp_path):
    doc = document(captures / "free5gc.pcap", tmp_path)
    for inner in ("60.60.0.1", "60.60.0.101"):  # the UE and its peer, frames 249-250
        row = row_of(doc, inner)
        assert row["locality"] == "tunnel"
        assert "gtp-u between 10.200.200.1 and 10.200.200.102" in row["locality_reason"]
        assert "first in frame 249" in row["locality_reason"]
    smf = row_of(doc, "10.200.200.1")  # LABELS.md: the SMF, PFCP Association Setup Request frame 1
    assert role(smf) == "SMF"
    assert "session establishment request" in role_reasons(smf, "SMF")
    assert "gNB" in {c["label"] for c in smf["verdicts"]["node-role"]["candidates"]}  # its simulated gNB too
    upf = row_of(doc, "10.200.200.101")  # its N4 address; 10.200.200.102, its N3, sends from the same MAC
    assert role(upf) == "UPF" and "answers PFCP on udp/8805" in role_reasons(upf, "UPF")
    n3 = row_of(doc, "10.200.200.102")
    assert role(n3) == "UPF" and "answers GTP-U on udp/2152" in role_reasons(n3, "UPF")
    assert row_of(doc, "127.0.0.1")["locality"] != "remote"
    assert not [h["key"] for h in doc["hosts"] if role(h) == "Default Gateway"]


SMF_MAC, UPF_MAC, GNB_MAC = "00:1b:21:00:50:01", "00:1b:21:00:50:02", "00:1b:21:00:50:03"


def pfcp(msg_type: int, sequence: int, seid: int | None = None) -> bytes:
    """A PFCP header (TS 29.244 7.2.2), with a SEID for session messages, and no IEs."""
    if seid is None:
        return struct.pack("!BBH", 0x20, msg_type, 4) + sequence.to_bytes(3, "big") + b"\0"
    return struct.pack("!BBHQ", 0x21, msg_type, 12, seid) + sequence.to_bytes(3, "big") + b"\0"


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    """An SMF, a UPF and a gNB on a LAN: PFCP association and session setup, then a user's
    ping to 8.8.8.8 through the GTP-U tunnel, and the UPF's answer."""
    tmp = tmp_path_factory.mktemp("core")
    sc = Scenario()
    smf, upf, gnb = sc.host("10.1.0.1", SMF_MAC), sc.host("10.1.0.2", UPF_MAC), sc.host("10.1.0.3", GNB_MAC)
    sc.udp(smf, upf, 8805, 8805, pfcp(5, 1))  # association setup request
    sc.udp(upf, smf, 8805, 8805, pfcp(6, 1))
    sc.udp(smf, upf, 8805, 8805, pfcp(50, 2, seid=0))  # session establishment request
    sc.udp(upf, smf, 8805, 8805, pfcp(51, 2, seid=7))
    uplink = f.ipv4("10.45.0.7", "8.8.8.8", f.PROTO_ICMP, f.icmp_echo(7, 1, b"ping"), ttl=64)
    downlink = f.ipv4("8.8.8.8", "10.45.0.7", f.PROTO_ICMP, f.icmp_echo(7, 1, b"ping", reply=True), ttl=117)
    sc.emit(f.ethernet(GNB_MAC, UPF_MAC, f.ETH_IPV4, t.over_udp(gnb.ip, upf.ip, 2152, 2152, t.gtpu(0x10, uplink))))
    sc.emit(f.ethernet(UPF_MAC, GNB_MAC, f.ETH_IPV4, t.over_udp(upf.ip, gnb.ip, 2152, 2152, t.gtpu(0x20, downlink))))
    return document(sc.write_pcap(tmp / "core.pcap"), tmp)


def test_a_generated_cores_user_plane_is_the_tunnels_network(core):
    for inner in ("10.45.0.7", "8.8.8.8"):
        row = row_of(core, inner)
        assert row["locality"] == "tunnel", row["locality_reason"]
        assert row["locality_reason"].startswith("seen only inside the tunnel gtp-u between 10.1.0.2 and 10.1.0.3")
        assert role(row) != "Default Gateway"
    assert "public-range" in row_of(core, "8.8.8.8")["locality_reason"]


def test_a_generated_cores_functions_are_node_roles(core):
    smf, upf, gnb = (row_of(core, ip) for ip in ("10.1.0.1", "10.1.0.2", "10.1.0.3"))
    assert role(smf) == "SMF" and "session establishment request" in role_reasons(smf, "SMF")
    assert role(upf) == "UPF" and "session establishment response" in role_reasons(upf, "UPF")
    assert role(gnb) == "gNB" and "opened a GTP-U tunnel on udp/2152" in role_reasons(gnb, "gNB")
    assert {h["verdicts"]["host-identity"]["primary_label"] for h in (smf, upf)} == {"Server"}
    assert not [h["key"] for h in core["hosts"] if role(h) == "Default Gateway"]


def test_vxlan_overlay_addresses_are_the_tunnels_network(tmp_path):
    sc = Scenario()
    vtep_a, vtep_b = "00:1b:21:00:60:01", "00:1b:21:00:60:02"
    sc.host("10.2.0.1", vtep_a)
    inner = f.ethernet("02:42:ac:11:00:0a", "02:42:ac:11:00:0b", f.ETH_IPV4,
                       f.ipv4("172.17.0.10", "172.17.0.11", f.PROTO_ICMP, f.icmp_echo(1, 1, b"x")))
    sc.emit(f.ethernet(vtep_a, vtep_b, f.ETH_IPV4, t.over_udp("10.2.0.1", "10.2.0.2", 40000, 4789, t.vxlan(42, inner))))
    doc = document(sc.write_pcap(tmp_path / "vxlan.pcap"), tmp_path)
    for address in ("172.17.0.10", "172.17.0.11"):
        row = row_of(doc, address)
        assert row["locality"] == "tunnel" and "vxlan between 10.2.0.1 and 10.2.0.2" in row["locality_reason"]
