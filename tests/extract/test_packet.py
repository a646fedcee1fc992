"""Link, network and transport decoding of the hot path."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import DecodeError
from tracepcap.extract.decoders.tcp import SYN
from tracepcap.extract.packet import decode_frame
from tracepcap.testing import frames

A, B = "10.1.2.3", "10.9.8.7"
A6, B6 = "2001:db8::1", "2001:db8::2"
MAC = "00:1b:21:0a:0b:0c"


def tcp_ip(src=A, dst=B, **kw):
    seg = frames.tcp(src, dst, 51000, 443, 1000, 0, "S",
                     options=frames.tcp_options(mss=1460, wscale=8, sack_ok=True), **kw)
    return frames.ipv4(src, dst, 6, seg, ttl=128)


def decode(linktype, frame):
    return decode_frame(linktype, memoryview(frame), 1, 0.0, len(frame))


@pytest.mark.parametrize("linktype, frame", [
    (1, frames.ethernet(MAC, "00:00:0c:01:02:03", 0x0800, tcp_ip())),
    (1, frames.ethernet(MAC, "00:00:0c:01:02:03", 0x0800, tcp_ip(), vlans=[100])),
    (1, frames.ethernet(MAC, "00:00:0c:01:02:03", 0x0800, tcp_ip(), vlans=[200, 100])),
    (113, frames.linux_sll(MAC, 0x0800, tcp_ip())),
    (276, frames.linux_sll2(MAC, 0x0800, tcp_ip())),
    (101, tcp_ip()),
    (228, tcp_ip()),
    (0, frames.bsd_null(2, tcp_ip())),
    (0, frames.bsd_null(2, tcp_ip(), big_endian=True)),
    (108, frames.bsd_null(2, tcp_ip(), big_endian=True)),
])
def test_link_types_reach_tcp(linktype, frame):
    pkt = decode(linktype, frame)
    assert (pkt.src, pkt.dst, pkt.proto, pkt.sport, pkt.dport, pkt.ttl) == (A, B, 6, 51000, 443, 128)
    assert pkt.flags & SYN and pkt.tcp_options


def test_vlan_ids_outermost_first():
    pkt = decode(1, frames.ethernet(MAC, "00:00:0c:01:02:03", 0x0800, tcp_ip(), vlans=[200, 100]))
    assert pkt.vlans == (200, 100) and pkt.src_mac.hex(":") == MAC


def test_ipv6_over_null_and_raw():
    seg = frames.udp(A6, B6, 5353, 5353, b"q")
    packet = frames.ipv6(A6, B6, 17, seg, hop_limit=255)
    for linktype, frame in [(101, packet), (229, packet), (0, frames.bsd_null(30, packet))]:
        pkt = decode(linktype, frame)
        assert (pkt.src, pkt.dst, pkt.sport, pkt.dport, pkt.ttl) == (A6, B6, 5353, 5353, 255)


def test_ipv6_extension_headers_do_not_misattribute_ports():
    seg = frames.udp(A6, B6, 547, 546, b"dhcpv6")
    exts = [frames.hop_by_hop(frames.router_alert()), frames.destination_options(),
            frames.routing([B6])]
    pkt = decode(101, frames.ipv6(A6, B6, 17, seg, ext_headers=exts))
    assert (pkt.proto, pkt.sport, pkt.dport, bytes(pkt.payload)) == (17, 547, 546, b"dhcpv6")


def test_ipv6_non_first_fragment_has_no_ports():
    seg = frames.udp(A6, B6, 53, 40000, b"x" * 64)
    first = frames.ipv6(A6, B6, 17, seg[:32], ext_headers=[frames.fragment(0, True, 7)])
    rest = frames.ipv6(A6, B6, 17, seg[32:], ext_headers=[frames.fragment(32, False, 7)])
    assert decode(101, first).sport == 53
    later = decode(101, rest)
    assert later.fragment and later.sport == 0 and later.dport == 0


def test_ipv4_fragments_only_the_first_has_ports():
    seg = frames.udp(A, B, 53, 40000, bytes(range(256)) * 8)
    parts = frames.ipv4_fragments(A, B, 17, seg, 1480)
    assert len(parts) >= 2
    pkts = [decode(101, p) for p in parts]
    assert (pkts[0].sport, pkts[0].dport, pkts[0].fragment) == (53, 40000, False)
    assert all(p.fragment and p.sport == 0 for p in pkts[1:])


def test_ethernet_padding_is_not_payload():
    seg = frames.udp(A, B, 1000, 2000, b"ab")
    pkt = decode(1, frames.ethernet(MAC, "00:00:0c:01:02:03", 0x0800, frames.ipv4(A, B, 17, seg), pad=True))
    assert bytes(pkt.payload) == b"ab"


def test_arp_is_not_ip():
    pkt = decode(1, frames.ethernet(MAC, "ff:ff:ff:ff:ff:ff", 0x0806, frames.arp(1, MAC, A, "00:00:00:00:00:00", B)))
    assert pkt.src is None and pkt.ethertype == 0x0806 and len(pkt.link) == 28


@pytest.mark.parametrize("linktype, frame", [
    (1, frames.ethernet(MAC, "00:00:0c:01:02:03", 0x0800, tcp_ip(), vlans=[200, 100])),
    (276, frames.linux_sll2(MAC, 0x86DD, frames.ipv6(A6, B6, 17, frames.udp(A6, B6, 1, 2, b"z"),
                                                     ext_headers=[frames.hop_by_hop()]))),
])
def test_every_prefix_decodes_or_raises_decode_error(linktype, frame):
    for cut in range(len(frame) + 1):
        try:
            decode(linktype, frame[:cut])
        except DecodeError:
            pass  # Truncated or Malformed: the only failures a decoder may raise


def test_unsupported_link_type_is_a_decode_error():
    with pytest.raises(DecodeError, match="unsupported link type 147"):
        decode(147, b"\x00" * 40)


def test_flow_table_evicts_the_least_recently_active():
    from tracepcap.extract.flows import FlowTable
    spilled = []
    table = FlowTable(2, lambda flow: spilled.append((flow.aport, flow.pkts_ab)))

    def packet(sport):
        return decode(101, frames.ipv4(A, B, 17, frames.udp(A, B, sport, 53, b"q")))
    table.update(packet(1000))
    table.update(packet(2000))
    table.update(packet(1000))  # 1000 is active again: 2000 is now the idle one
    table.update(packet(3000))
    assert spilled == [(2000, 1)] and table.evicted == 1
    table.drain()
    assert sorted(spilled) == [(1000, 2), (2000, 1), (3000, 1)]
