"""Captures built to stress the shard boundaries of a sharded walk (extract/shard.py), and
`analyze --json` in process, for tests/extract/test_parallel.py and test_dask.py."""

from __future__ import annotations

from pathlib import Path

from support.cli import run_cli, sqlite_store
from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing import tunnels as t
from tracepcap.testing.discovery import cdp_frame, lldp_frame
from tracepcap.testing.scenario import Scenario
from tracepcap.testing.writers import PcapWriter

VTEP_A, VTEP_B = "172.16.0.1", "172.16.0.2"
VM_A, VM_B = "02:42:ac:11:00:0a", "02:42:ac:11:00:0b"
ROUTER_MAC = "00:00:0c:9f:f0:01"


def interleave(*parts: list[tuple[float, bytes]]) -> list[bytes]:
    """Round-robin over the parts' frames, so every part's flows span the whole capture."""
    out, cursors = [], [0] * len(parts)
    while any(c < len(p) for c, p in zip(cursors, parts)):
        for i, part in enumerate(parts):
            if cursors[i] < len(part):
                out.append(part[cursors[i]][1])
                cursors[i] += 1
    return out


def write_frames(path: Path, frames: list[bytes], start: float = 1_700_000_000.0) -> Path:
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for i, frame in enumerate(frames):
            writer.write(start + i * 0.001, frame)
    return path


def lan_traffic(sc: Scenario) -> None:
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


def tunnels() -> list[bytes]:
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


def fragments() -> list[bytes]:
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




def build_stress_capture(path: Path) -> Path:
    """LAN traffic, tunnels and fragments interleaved (every flow spans the capture), and a
    frame that does not decode."""
    lan = Scenario()
    lan_traffic(lan)
    frames = interleave(lan.frames(), [(0, fr) for fr in tunnels()], [(0, fr) for fr in fragments()])
    frames.append(b"\x00\x01")
    return write_frames(path, frames)


def analyze_json(path: Path, directory: Path, workers: int) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    code, out, err = run_cli("analyze", path, "--json", "--workers", workers,
                             db=sqlite_store(directory), data_dir=directory)
    assert code in (0, 3), err
    return out


