"""Wire builders, judged by dpkt's decoders and its checksum recomputation."""

from __future__ import annotations

import dpkt
import pytest

from tracepcap.testing import frames as f

MAC_A, MAC_B = "00:1b:21:aa:bb:cc", "00:00:0c:12:34:56"


def _eth(src_ip, dst_ip, proto, l4, **kw):
    if f.is_ipv6(src_ip):
        return f.ethernet(MAC_A, MAC_B, f.ETH_IPV6, f.ipv6(src_ip, dst_ip, proto, l4, **kw))
    return f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, f.ipv4(src_ip, dst_ip, proto, l4, **kw))


def test_ethernet_addresses_type_and_padding():
    frame = f.ethernet(MAC_A, MAC_B, 0x88B5, b"x", pad=True)
    eth = dpkt.ethernet.Ethernet(frame)
    assert (eth.src, eth.dst, eth.type) == (bytes.fromhex("001b21aabbcc"),
                                            bytes.fromhex("00000c123456"), 0x88B5)
    assert len(frame) == 60


@pytest.mark.parametrize("vlans, expected", [
    ([10], [(0x8100, 10)]),
    ([(0x8100, 20)], [(0x8100, 20)]),
    ([100, 200], [(0x88A8, 100), (0x8100, 200)]),  # QinQ: a bare outer vid is an S-tag
])
def test_vlan_tags(vlans, expected):
    payload = f.ipv4("10.0.0.1", "10.0.0.2", f.PROTO_UDP, f.udp("10.0.0.1", "10.0.0.2", 1, 2, b""))
    frame = f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, payload, vlans=vlans)
    eth = dpkt.ethernet.Ethernet(frame)
    assert [tag.id for tag in eth.vlan_tags] == [vid for _, vid in expected]
    tpids = [int.from_bytes(frame[12 + 4 * i:14 + 4 * i], "big") for i in range(len(vlans))]
    assert tpids == [tpid for tpid, _ in expected]
    assert isinstance(eth.data, dpkt.ip.IP)  # dpkt keeps the outer TPID in eth.type


def test_linux_cooked_headers_and_bsd_null():
    packet = f.ipv4("10.0.0.1", "10.0.0.2", f.PROTO_UDP, f.udp("10.0.0.1", "10.0.0.2", 5, 6, b"hi"))
    sll = dpkt.sll.SLL(f.linux_sll(MAC_A, f.ETH_IPV4, packet, pkttype=4))
    assert (sll.type, sll.hrd, sll.hlen, sll.hdr[:6], sll.ethtype) == (
        4, 1, 6, bytes.fromhex("001b21aabbcc"), f.ETH_IPV4)
    assert isinstance(sll.data, dpkt.ip.IP)
    sll2 = dpkt.sll2.SLL2(f.linux_sll2(MAC_A, f.ETH_IPV4, packet, ifindex=3))
    assert (sll2.ethtype, sll2.intindex, sll2.hrd, sll2.hlen) == (f.ETH_IPV4, 3, 1, 6)
    assert isinstance(sll2.data, dpkt.ip.IP)
    loop = dpkt.loopback.Loopback(f.bsd_null(f.AF_INET, packet))
    assert loop.family == f.AF_INET and isinstance(loop.data, dpkt.ip.IP)
    assert f.bsd_null(f.AF_INET6_DARWIN, b"", big_endian=True) == b"\x00\x00\x00\x1e"


def test_ipv4_fields_and_checksums(checksums):
    l4 = f.udp("192.0.2.1", "198.51.100.2", 5353, 53, b"query")
    frame = _eth("192.0.2.1", "198.51.100.2", f.PROTO_UDP, l4, ttl=128, ident=0x1234,
                 options=b"\x01")
    ip = dpkt.ethernet.Ethernet(frame).data
    assert (ip.ttl, ip.id, ip.df, ip.mf, ip.offset, ip.hl) == (128, 0x1234, 1, 0, 0, 6)
    assert (ip.data.sport, ip.data.dport, ip.data.data) == (5353, 53, b"query")
    assert checksums(frame) == []


def test_checksums_catch_a_flipped_bit(checksums):
    frame = bytearray(_eth("10.0.0.1", "10.0.0.2", f.PROTO_UDP,
                           f.udp("10.0.0.1", "10.0.0.2", 1, 2, b"abc")))
    frame[-1] ^= 1
    assert checksums(bytes(frame)) != []


def test_ipv4_fragments_reassemble_to_the_datagram():
    l4 = f.udp("10.0.0.5", "10.0.0.6", 4000, 4001, bytes(range(256)) * 6)
    pieces = f.ipv4_fragments("10.0.0.5", "10.0.0.6", f.PROTO_UDP, l4, 500, ident=77)
    parsed = [dpkt.ip.IP(p) for p in pieces]
    assert [(ip.offset * 8, ip.mf, ip.df, ip.id) for ip in parsed] == [
        (0, 1, 0, 77), (496, 1, 0, 77), (992, 1, 0, 77), (1488, 0, 0, 77)]
    for ip in parsed:
        raw = bytes(ip)
        assert dpkt.in_cksum(raw[:ip.hl * 4]) == 0
    data = b"".join(bytes(p)[20:] for p in pieces)
    assert data == l4
    assert dpkt.udp.UDP(data).ulen == len(l4)
    with pytest.raises(ValueError, match="at least 8"):
        f.ipv4_fragments("10.0.0.5", "10.0.0.6", f.PROTO_UDP, l4, 7)


def test_ipv6_with_extension_headers_chains_next_header():
    l4 = f.udp("2001:db8::1", "2001:db8::2", 546, 547, b"x" * 10)
    packet = f.ipv6("2001:db8::1", "2001:db8::2", f.PROTO_UDP, l4, hop_limit=1,
                    ext_headers=[f.hop_by_hop(f.router_alert()), f.destination_options(),
                                 f.routing(["2001:db8::2"], segments_left=0),
                                 f.fragment(0, False, 0xABCD)])
    ip6 = dpkt.ip6.IP6(packet)
    assert ip6.nxt == f.EXT_HOP_BY_HOP and ip6.hlim == 1
    present = {h for h, hdr in ip6.extension_hdrs.items() if hdr is not None}
    assert present == {0, 43, 44, 60}
    chain, at, nh = [], 40, ip6.nxt  # walk the chain: each header names the next
    while nh in (0, 43, 44, 60):
        chain.append(nh)
        nh, at = packet[at], at + (8 if nh == 44 else 8 * (packet[at + 1] + 1))
    assert chain == [0, 60, 43, 44] and nh == f.PROTO_UDP
    assert ip6.extension_hdrs[44].id == 0xABCD and ip6.extension_hdrs[43].type == 2
    assert ip6.p == f.PROTO_UDP and ip6.data.data == b"x" * 10
    assert ip6.plen == len(packet) - 40
    assert packet[40 + 2:40 + 6] == b"\x05\x02\x00\x00"  # router alert right after the header


@pytest.mark.parametrize("src, dst", [("10.0.0.1", "10.0.0.2"), ("fe80::1", "fe80::2")])
def test_tcp_udp_icmp_checksums_over_v4_and_v6(src, dst, checksums):
    segment = f.tcp(src, dst, 49152, 443, 1000, 2000, "PA", b"hello", window=1024)
    datagram = f.udp(src, dst, 53000, 53, b"\x00" * 13)
    proto = f.PROTO_ICMPV6 if f.is_ipv6(src) else f.PROTO_ICMP
    echo = f.icmp_echo(7, 1, b"ping", src_ip=src, dst_ip=dst)
    for p, l4 in ((f.PROTO_TCP, segment), (f.PROTO_UDP, datagram), (proto, echo)):
        assert checksums(_eth(src, dst, p, l4)) == [], p
    tcp = dpkt.tcp.TCP(segment)
    assert (tcp.seq, tcp.ack, tcp.flags, tcp.win, tcp.data) == (
        1000, 2000, dpkt.tcp.TH_PUSH | dpkt.tcp.TH_ACK, 1024, b"hello")


def test_icmp_echo_types():
    assert dpkt.icmp.ICMP(f.icmp_echo(1, 2)).type == 8
    assert dpkt.icmp.ICMP(f.icmp_echo(1, 2, reply=True)).type == 0
    v6 = dpkt.icmp6.ICMP6(f.icmp_echo(1, 2, reply=True, src_ip="::1", dst_ip="::2"))
    assert v6.type == 129


@pytest.mark.parametrize("flags, bits", [("S", 0x02), ("SA", 0x12), ("FA", 0x11), ("R", 0x04),
                                         ("RA", 0x14), ("PA", 0x18)])
def test_tcp_flag_letters(flags, bits):
    assert dpkt.tcp.TCP(f.tcp("10.0.0.1", "10.0.0.2", 1, 2, 0, 0, flags)).flags == bits


def test_tcp_rejects_unknown_flag_letters():
    with pytest.raises(ValueError, match="FSRPAUEC"):
        f.tcp("10.0.0.1", "10.0.0.2", 1, 2, 0, 0, "SX")


def _option_kinds(options: bytes) -> list[int]:
    return [kind for kind, _ in dpkt.tcp.parse_opts(options)]


def test_tcp_options_in_os_fingerprint_orders():
    windows = f.tcp_options(mss=1460, wscale=8, sack_ok=True,
                            order=["MSS", "NOP", "WS", "NOP", "NOP", "SACK_PERM"])
    assert _option_kinds(windows) == [2, 1, 3, 1, 1, 4]
    linux = f.tcp_options(mss=1460, wscale=7, sack_ok=True, timestamps=(12345, 0))
    assert _option_kinds(linux) == [2, 4, 8, 1, 3]
    mac = f.tcp_options(mss=1460, wscale=6, sack_ok=True, timestamps=(1, 0),
                        order=["MSS", "NOP", "WS", "NOP", "NOP", "TS", "SACK", "EOL"])
    assert len(mac) == 24 and mac[-2:] == b"\x00\x00"  # EOL, then zero padding to 4n
    segment = dpkt.tcp.TCP(f.tcp("10.0.0.1", "10.0.0.2", 1, 2, 0, 0, "S", options=linux))
    opts = dict(dpkt.tcp.parse_opts(segment.opts))
    assert int.from_bytes(opts[2], "big") == 1460 and opts[3] == b"\x07"
    assert int.from_bytes(opts[8][:4], "big") == 12345
    with pytest.raises(ValueError, match="no value"):
        f.tcp_options(order=["MSS"])


def test_arp_request_and_reply():
    req = dpkt.arp.ARP(f.arp(f.ARP_REQUEST, MAC_A, "10.0.0.23", "00:00:00:00:00:00", "10.0.0.1"))
    assert (req.op, req.spa, req.tpa) == (1, bytes([10, 0, 0, 23]), bytes([10, 0, 0, 1]))
    rep = dpkt.arp.ARP(f.arp(f.ARP_REPLY, MAC_B, "10.0.0.1", MAC_A, "10.0.0.23"))
    assert (rep.op, rep.sha) == (2, bytes.fromhex("00000c123456"))


def test_multicast_macs():
    assert f.multicast_mac("224.0.0.251") == "01:00:5e:00:00:fb"
    assert f.multicast_mac("239.255.255.250") == "01:00:5e:7f:ff:fa"
    assert f.multicast_mac("ff02::1:3") == "33:33:00:01:00:03"
    assert f.multicast_mac("255.255.255.255") == f.BROADCAST_MAC
