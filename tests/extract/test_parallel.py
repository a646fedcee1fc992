"""Sharding one capture's walk: N shards merge into exactly one walk's result, and
`analyze --json` is byte-identical for --workers 1, 2 and 3, on every shared capture and on
captures built to stress the shard boundaries (fragments, tunnels, flows spanning the whole
capture, non-IP frames, DHCP, link announcements landing through ARP)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest

from support.cli import run_cli, sqlite_store
from tracepcap.extract import parallel
from tracepcap.extract.parallel import Fallback, in_process, merge, run_extract
from tracepcap.extract.pipeline import extract
from tracepcap.extract.settings import Limits
from tracepcap.extract.shard import GLOBAL, Shard, flow_key, shard_of
from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing import tunnels as t
from tracepcap.testing.discovery import cdp_frame, lldp_frame
from tracepcap.testing.scenario import Scenario
from tracepcap.testing.writers import PcapWriter

SHARED = sorted(p.name for p in (Path(__file__).resolve().parents[3] / "shared" / "captures").glob("*.pcap*"))
VTEP_A, VTEP_B = "172.16.0.1", "172.16.0.2"
VM_A, VM_B = "02:42:ac:11:00:0a", "02:42:ac:11:00:0b"
ROUTER_MAC = "00:00:0c:9f:f0:01"


def _interleave(*parts: list[tuple[float, bytes]]) -> list[bytes]:
    """Round-robin over the parts' frames, so every part's flows span the whole capture."""
    out, cursors = [], [0] * len(parts)
    while any(c < len(p) for c, p in zip(cursors, parts)):
        for i, part in enumerate(parts):
            if cursors[i] < len(part):
                out.append(part[cursors[i]][1])
                cursors[i] += 1
    return out


def _write(path: Path, frames: list[bytes], start: float = 1_700_000_000.0) -> Path:
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for i, frame in enumerate(frames):
            writer.write(start + i * 0.001, frame)
    return path


def _lan(sc: Scenario) -> None:
    """DHCP (from 0.0.0.0, landed at the end on the ACKed address), ARP, DNS, HTTP with
    segments out of order, TLS, pings, LLDP and CDP whose senders claim addresses in ARP."""
    server = sc.host("192.168.1.1", "00:11:22:33:44:01", ttl=64)
    router = sc.host("192.168.1.254", ROUTER_MAC, ttl=255)
    web = sc.host("93.184.216.34", via=router, ttl=52)
    laptop = sc.dhcp_exchange("3c:22:fb:00:00:01", server, "192.168.1.20", hostname="laptop-7",
                              vendor_class="MSFT 5.0", param_list=[1, 3, 6, 15])
    phone = sc.dhcp_exchange("f0:99:bf:00:00:02", server, "192.168.1.21", hostname="phone")
    sc.arp_exchange(laptop, router)
    sc.arp_exchange(phone, server)
    switch = sc.host("192.168.1.250", "00:1b:54:00:00:03")
    sc.emit(f.ethernet(switch.mac, f.BROADCAST_MAC, f.ETH_ARP,
                       f.arp(f.ARP_REPLY, switch.mac, switch.ip, switch.mac, switch.ip), pad=True))
    sc.emit(lldp_frame(switch.mac, system_name="sw-core-1", description="Cisco IOS 15.2",
                       capabilities=["bridge"]))
    sc.emit(cdp_frame(switch.mac, device_id="sw-core-1.example", platform="cisco WS-C2960"))
    for i in range(3):
        sc.dns_lookup(laptop, server, f"host{i}.example.com", [f"10.0.0.{i + 1}"], sport=53000 + i)
        sc.tcp_session(laptop, web, 50000 + i, 80, segment=40, reorder=True,
                       client=[app.http_request("GET", f"/{i}", "www.example.com", user_agent="curl/8")],
                       server=[app.http_response(200, server="nginx")])
        sc.ping(phone, server)
    sc.tcp_session(phone, web, 51000, 443, client=[b"\x16\x03\x01" + bytes(60)], server=[bytes(30)])


def _tunnels() -> list[bytes]:
    """A TCP conversation between two VMs inside VXLAN, each direction from its own VTEP
    source port; a GRE-keyed ping; MPLS and PPPoE carrying DNS; a datagram on the VXLAN
    port that is not VXLAN (the carrier's flow holds plain packets too)."""
    inner = Scenario()
    a, b = inner.host("10.244.0.5", VM_A), inner.host("10.244.1.7", VM_B)
    inner.tcp_session(a, b, 40000, 8080, client=[b"GET / HTTP/1.1\r\nHost: svc\r\n\r\n"],
                      server=[b"HTTP/1.1 200 OK\r\nServer: envoy\r\n\r\n"])
    out = []
    for _, frame in inner.frames():
        from_a = frame[6:12] == f.mac_bytes(VM_A)
        src, dst, sport = (VTEP_A, VTEP_B, 51000) if from_a else (VTEP_B, VTEP_A, 62000)
        out.append(f.ethernet("00:1b:21:0a:0b:0c", "00:1b:21:0a:0b:0d", f.ETH_IPV4,
                              t.over_udp(src, dst, sport, 4789, t.vxlan(42, frame))))
    out.append(f.ethernet("00:1b:21:0a:0b:0c", "00:1b:21:0a:0b:0d", f.ETH_IPV4,
                          t.over_udp(VTEP_A, VTEP_B, 51000, 4789, b"not vxlan at all")))
    for seq in range(3):
        ping = f.ipv4("60.60.0.1", "93.184.216.34", f.PROTO_ICMP, f.icmp_echo(7, seq, b"abcd"))
        out.append(f.ethernet("00:1b:21:0a:0b:0c", "00:00:0c:01:02:03", f.ETH_IPV4,
                              t.over_ip("10.1.0.1", "10.1.0.2", t.PROTO_GRE, t.gre(f.ETH_IPV4, ping, key=7))))
        dns = f.ipv4("10.9.0.5", "10.9.0.53", f.PROTO_UDP,
                     f.udp("10.9.0.5", "10.9.0.53", 40000 + seq, 53, app.dns_query(seq, "mpls.example")))
        out.append(f.ethernet("00:1b:21:0a:0b:0c", "00:00:0c:01:02:03", t.ETHERTYPE_MPLS,
                              t.mpls([16, 3001], dns)))
        out.append(f.ethernet("00:1b:21:0a:0b:0e", "00:00:0c:01:02:03", 0x8864,
                              t.pppoe_session(0x11, dns)))
    return out


def _fragments() -> list[bytes]:
    """A UDP datagram and a TCP segment cut into IPv4 fragments (no ports past the first)."""
    out = []
    payload = app.dns_query(9, "fragmented.example") + bytes(3000)
    for packet in f.ipv4_fragments("192.168.1.20", "192.168.1.1", f.PROTO_UDP,
                                   f.udp("192.168.1.20", "192.168.1.1", 5353, 5353, payload), 600, ident=5):
        out.append(f.ethernet("3c:22:fb:00:00:01", "00:11:22:33:44:01", f.ETH_IPV4, packet))
    segment = f.tcp("192.168.1.21", "192.168.1.1", 51001, 445, 1, 1, "PA", payload=bytes(2000))
    for packet in f.ipv4_fragments("192.168.1.21", "192.168.1.1", f.PROTO_TCP, segment, 800, ident=6):
        out.append(f.ethernet("f0:99:bf:00:00:02", "00:11:22:33:44:01", f.ETH_IPV4, packet))
    return out


@pytest.fixture(scope="module")
def stress(tmp_path_factory) -> Path:
    lan = Scenario()
    _lan(lan)
    frames = _interleave(lan.frames(), [(0, fr) for fr in _tunnels()], [(0, fr) for fr in _fragments()])
    frames.append(b"\x00\x01")  # a frame that does not decode
    return _write(tmp_path_factory.mktemp("stress") / "stress.pcap", frames)


def _one_walk(path: Path):
    rows: list[dict] = []
    return extract(path, "ab", on_conversation=rows.append), rows


def _assert_exact(path: Path, counts=(2, 3)) -> None:
    expected, rows = _one_walk(path)
    for count in counts:
        result, merged_rows = merge(in_process(str(path), "ab", Limits(), count, None), "ab", Limits())
        assert result == expected, f"{count} shards"
        assert merged_rows == sorted(rows, key=lambda row: row["first_frame"]), f"{count} shards"


@pytest.mark.parametrize("name", SHARED)
def test_every_shared_capture_merges_exactly(captures, name):
    _assert_exact(captures / name)


def test_the_stress_capture_merges_exactly_for_any_shard_count(stress):
    expected, _ = _one_walk(stress)
    kinds = {o.kind for o in expected.observations}
    # it exercises what crosses flows: DHCP landing, LLDP/CDP through ARP, vendors per MAC
    assert {"hostname-claim", "lldp-platform", "oui-vendor", "ip-mac-binding", "http-server"} <= kinds
    assert any(row.extractor == "decapsulation" for row in expected.manifest)
    assert expected.notice_counts
    _assert_exact(stress, counts=(2, 3, 4, 5, 8))


def test_each_shard_keeps_what_it_should(stress):
    """Every frame is in exactly one shard; cross-flow traffic is all in the global one."""
    shards = in_process(str(stress), "ab", Limits(), 3, None)
    expected, _ = _one_walk(stress)
    assert sum(out.result.conversations for out in shards) == expected.conversations
    dhcp = [o for out in shards for o in out.result.observations if o.source == "dhcp"]
    assert dhcp and all(o in shards[GLOBAL].result.observations for o in dhcp)
    assert all(len(out.conversations) for out in shards)  # the work is spread


def test_a_flow_key_is_the_same_both_ways_and_the_hash_is_stable():
    fwd = f.ethernet(VM_A, VM_B, f.ETH_IPV4, f.ipv4("10.0.0.1", "10.0.0.2", f.PROTO_TCP,
                                                    f.tcp("10.0.0.1", "10.0.0.2", 1234, 80, 1, 0, "S")))
    rev = f.ethernet(VM_B, VM_A, f.ETH_IPV4, f.ipv4("10.0.0.2", "10.0.0.1", f.PROTO_TCP,
                                                    f.tcp("10.0.0.2", "10.0.0.1", 80, 1234, 1, 2, "SA")))
    from tracepcap.extract.packet import decode_frame
    a, b = (decode_frame(1, memoryview(fr), 1, 0.0, len(fr)) for fr in (fwd, rev))
    assert flow_key(a) == flow_key(b) == "6 10.0.0.1 1234 10.0.0.2 80"
    key = flow_key(a)  # CRC-32, not Python's hash(), which is salted per process
    assert shard_of(key, 7) == zlib.crc32(key.encode()) % 7
    assert [Shard(i, 7).keep(a) for i in range(7)].count(True) == 1
    assert Shard(shard_of(key, 7), 7).keep(b)


def test_dhcp_inside_a_tunnel_is_walked_once_and_still_exact(tmp_path):
    """What routing cannot keep in one shard falls back to one walk: same answer."""
    sc = Scenario()
    server = sc.host("192.168.1.1", "00:11:22:33:44:01")
    sc.dhcp_exchange("3c:22:fb:00:00:01", server, "192.168.1.20", hostname="inside")
    frames = [f.ethernet("00:1b:21:0a:0b:0c", "00:1b:21:0a:0b:0d", f.ETH_IPV4,
                         t.over_udp(VTEP_A, VTEP_B, 51000, 4789, t.vxlan(9, fr))) for _, fr in sc.frames()]
    path = _write(tmp_path / "dhcp-in-vxlan.pcap", frames)
    with pytest.raises(Fallback, match="DHCP inside a tunnel"):
        merge(in_process(str(path), "ab", Limits(), 2, None), "ab", Limits())
    expected, rows = _one_walk(path)
    got: list[dict] = []
    assert run_extract(path, "ab", workers=2, runner=in_process, on_conversation=got.append) == expected
    assert got == rows


def test_past_a_bounded_table_it_falls_back(stress):
    limits = Limits(max_flows=5)
    with pytest.raises(Fallback):
        merge(in_process(str(stress), "ab", limits, 2, None), "ab", limits)


def _analyze_json(path: Path, directory: Path, workers: int) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    code, out, err = run_cli("analyze", path, "--json", "--workers", workers,
                             db=sqlite_store(directory), data_dir=directory)
    assert code in (0, 3), err
    return out


@pytest.mark.parametrize("name", SHARED)
def test_analyze_json_is_byte_identical_for_1_2_and_3_workers(captures, name, tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setattr(parallel, "on_processes", in_process)  # the merge, without spawning
    one = _analyze_json(captures / name, tmp_path / "1", 1)
    assert json.loads(one)
    assert _analyze_json(captures / name, tmp_path / "2", 2) == one
    assert _analyze_json(captures / name, tmp_path / "3", 3) == one


def test_analyze_on_spawned_processes_is_byte_identical(stress, tmp_path, monkeypatch):
    """The real thing: 1, 2 and 3 spawned processes, through the CLI, on the stress capture."""
    monkeypatch.setenv("TRACEPCAP_PARALLEL_MIN_BYTES", "0")
    used: list[int] = []
    real = parallel.on_processes

    def counted(*args):
        outputs = real(*args)
        used.append(len(outputs))
        merge(outputs, args[1], args[2])  # mergeable: not a fallback
        return outputs
    monkeypatch.setattr(parallel, "on_processes", counted)
    one = _analyze_json(stress, tmp_path / "1", 1)
    assert _analyze_json(stress, tmp_path / "2", 2) == one
    assert _analyze_json(stress, tmp_path / "3", 3) == one
    assert used == [2, 3]
