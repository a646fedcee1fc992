"""Decapsulation on the hot path: every encapsulation, each nested in another, reaches the
inner hosts; conversations keep tunnels apart; depth is bounded; a broken inner packet
costs nothing of its carrier; every prefix of a tunnelled frame decodes or raises a
DecodeError."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import DecodeError
from tracepcap.extract.flows import FlowTable
from tracepcap.extract.packet import DEPTH_EXCEEDED, MAX_DEPTH, Encap, decode_frame
from tracepcap.testing import frames as f
from tracepcap.testing import tunnels as t

MAC_A, MAC_B = "00:1b:21:0a:0b:0c", "00:00:0c:01:02:03"
VM_A, VM_B = "02:42:ac:11:00:0a", "02:42:ac:11:00:0b"
UE, SERVER = "60.60.0.1", "93.184.216.34"


def ping(src=UE, dst=SERVER, ttl=63):
    return f.ipv4(src, dst, f.PROTO_ICMP, f.icmp_echo(7, 1, b"abcd"), ttl=ttl)


def dns_query(src="192.168.10.5", dst="192.168.10.53", sport=40000):
    return f.ipv4(src, dst, f.PROTO_UDP, f.udp(src, dst, sport, 53, b"\x12\x34" + bytes(10)))


def inner_ethernet(packet=None, vlans=()):
    return f.ethernet(VM_A, VM_B, f.ETH_IPV4, packet or dns_query(), vlans=vlans)


def eth(ethertype, payload):
    return f.ethernet(MAC_A, MAC_B, ethertype, payload)


def decode(frame, linktype=1):
    return decode_frame(linktype, memoryview(frame), 1, 0.0, len(frame))


def chain(pkt):
    return [layer.text() for layer in pkt.tunnel]


def udp_in(src, dst, sport, dport, payload):
    return t.over_udp(src, dst, sport, dport, payload)


def vxlan_in_gre():
    vxlan = udp_in("172.16.0.1", "172.16.0.2", 51000, 4789, t.vxlan(42, inner_ethernet()))
    return eth(f.ETH_IPV4, t.over_ip("10.1.0.1", "10.1.0.2", t.PROTO_GRE, t.gre(f.ETH_IPV4, vxlan, key=7)))


def gtpu_over_mpls():
    gtp = t.gtpu(0x1234, ping(), sequence=3, extensions=[(0x85, b"\x00\x09")])
    return eth(t.ETHERTYPE_MPLS, t.mpls([16, 3001], udp_in("10.200.200.1", "10.200.200.102", 2152, 2152, gtp)))


def gre_in_pppoe():
    gre = t.over_ip("100.64.0.7", "198.51.100.1", t.PROTO_GRE, t.gre(f.ETH_IPV4, ping()))
    return eth(t.ETHERTYPE_PPPOE_SESSION, t.pppoe_session(0x2A, gre))


def ipip_in_vxlan_with_qinq():
    ipip = t.over_ip("192.0.2.1", "192.0.2.2", t.PROTO_IPIP, ping())
    tagged = f.ethernet(VM_A, VM_B, f.ETH_IPV4, ipip, vlans=[100, 200])
    return eth(f.ETH_IPV4, udp_in("10.0.0.1", "10.0.0.2", 50000, 4789, t.vxlan(9, tagged)))


def sixin4_in_geneve():
    v6 = f.ipv6("2002:c000:201::1", "2001:db8::80", f.PROTO_UDP,
                f.udp("2002:c000:201::1", "2001:db8::80", 5000, 443, b"q"))
    sixin4 = t.over_ip("192.0.2.1", "192.88.99.1", t.PROTO_IPV6, v6)
    geneve = t.geneve(77, sixin4, protocol=f.ETH_IPV4, options=t.geneve_option(0x0102, 0x80, b"opt!"))
    return eth(f.ETH_IPV4, udp_in("10.0.0.1", "10.0.0.2", 50000, 6081, geneve))


def vxlan_in_erspan_ii():
    vxlan = udp_in("172.16.0.1", "172.16.0.2", 50001, 4789, t.vxlan(42, inner_ethernet()))
    mirrored = f.ethernet(MAC_B, MAC_A, f.ETH_IPV4, vxlan, vlans=[30])
    return eth(f.ETH_IPV4, t.over_ip("10.9.0.1", "10.9.0.200", t.PROTO_GRE, t.erspan_ii(5, mirrored, sequence=11)))


def teredo_in_erspan_iii():
    bubble = f.ipv6("2001:0:c000:22d::1", "2001:0:c633:6409::2", 59, b"")
    teredo = udp_in("198.51.100.9", "192.0.2.45", 3544, 40001, t.teredo(bubble, origin=("203.0.113.5", 40002)))
    mirrored = f.ethernet(MAC_B, MAC_A, f.ETH_IPV4, teredo)
    return eth(f.ETH_IPV4, t.over_ip("10.9.0.1", "10.9.0.200", t.PROTO_GRE,
                                     t.erspan_iii(6, mirrored, platform=bytes(8))))


def ip6ip6_in_erspan_i():
    v6 = f.ipv6("fd00::1", "fd00::2", f.PROTO_UDP, f.udp("fd00::1", "fd00::2", 1, 2, b"z"))
    mirrored = f.ethernet(MAC_B, MAC_A, f.ETH_IPV6, t.over_ip("2001:db8::1", "2001:db8::2", t.PROTO_IPV6, v6))
    return eth(f.ETH_IPV4, t.over_ip("10.9.0.1", "10.9.0.200", t.PROTO_GRE, t.erspan_i(mirrored)))


def bridging_gre_in_4in6():
    gre = t.over_ip("10.3.0.1", "10.3.0.2", t.PROTO_GRE, t.gre(t.ETHERTYPE_TEB, inner_ethernet(), sequence=1))
    return eth(f.ETH_IPV6, t.over_ip("2001:db8::a", "2001:db8::b", t.PROTO_IPIP, gre))


def pseudowire_over_mpls_in_gre():
    mpls = t.mpls([299776], inner_ethernet(), control_word=True)
    return eth(f.ETH_IPV4, t.over_ip("10.1.0.1", "10.1.0.2", t.PROTO_GRE, t.gre(t.ETHERTYPE_MPLS, mpls)))


DNS = ("192.168.10.5", "192.168.10.53", 17)
# (name, frame, expected layers, inner (src, dst, proto), inner source MAC or None)
NESTED = [
    ("vxlan in gre", vxlan_in_gre(), ["gre key 7", "vxlan vni 42"], DNS, VM_A),
    ("gtp-u over mpls", gtpu_over_mpls(), ["mpls label 3001 labels 16/3001", "gtp-u teid 0x00001234"],
     (UE, SERVER, 1), None),
    ("gre in pppoe", gre_in_pppoe(), ["pppoe session 0x002a", "gre"], (UE, SERVER, 1), None),
    ("ipip in vxlan, qinq inside", ipip_in_vxlan_with_qinq(), ["vxlan vni 9", "ipip"], (UE, SERVER, 1), None),
    ("6in4 in geneve", sixin4_in_geneve(), ["geneve vni 77", "6in4"],
     ("2002:c000:201::1", "2001:db8::80", 17), None),
    ("vxlan in erspan ii", vxlan_in_erspan_ii(), ["erspan-ii session 5", "vxlan vni 42"], DNS, VM_A),
    ("teredo in erspan iii", teredo_in_erspan_iii(), ["erspan-iii session 6", "teredo origin 203.0.113.5:40002"],
     ("2001:0:c000:22d::1", "2001:0:c633:6409::2", 59), None),
    ("ip6ip6 in erspan i", ip6ip6_in_erspan_i(), ["erspan-i", "ip6ip6"], ("fd00::1", "fd00::2", 17), None),
    ("bridging gre in 4in6", bridging_gre_in_4in6(), ["4in6", "gre"], DNS, VM_A),
    ("pseudowire over mpls in gre", pseudowire_over_mpls_in_gre(), ["gre", "mpls label 299776"], DNS, VM_A),
]


@pytest.mark.parametrize("name, frame, layers, inner, mac", NESTED, ids=[n[0] for n in NESTED])
def test_nested_encapsulations_reach_the_inner_packet(name, frame, layers, inner, mac):
    pkt = decode(frame)
    assert chain(pkt) == layers
    assert (pkt.src, pkt.dst, pkt.proto) == inner
    assert pkt.src_mac_text == mac
    assert pkt.inner_error is None and pkt.carries is None


def test_carriers_are_chained_outermost_last():
    pkt = decode(NESTED[0][1])
    vxlan_carrier = pkt.outer
    gre_carrier = vxlan_carrier.outer
    assert (vxlan_carrier.src, vxlan_carrier.dport, vxlan_carrier.carries.text()) == (
        "172.16.0.1", 4789, "vxlan vni 42")
    assert (gre_carrier.src, gre_carrier.proto, gre_carrier.carries.text()) == ("10.1.0.1", 47, "gre key 7")
    assert gre_carrier.outer is None and gre_carrier.tunnel is None
    assert vxlan_carrier.tunnel == (Encap("gre", 7, "10.1.0.1", "10.1.0.2"),)
    assert gre_carrier.src_mac_text == MAC_A and vxlan_carrier.src_mac is None


def test_link_shims_keep_the_frames_macs():
    for frame, kind in ((gtpu_over_mpls(), "mpls"), (gre_in_pppoe(), "pppoe")):
        carrier = decode(frame).outer  # below MPLS and PPPoE sits IP from the same station
        assert carrier.src_mac_text == MAC_A and [layer.kind for layer in carrier.tunnel] == [kind]


def test_free5gc_gtpu_inner_hosts(captures):
    from tracepcap.extract.reader import CaptureReader
    # free5gc.pcap frames 249-250 (Linux cooked): the gNB 10.200.200.1 and the UPF
    # 10.200.200.102 carry a ping between the UE 60.60.0.1 and the data network's 60.60.0.101
    with CaptureReader(captures / "free5gc.pcap") as reader:
        pkts = [decode_frame(lt, data, n, ts, wl) for n, (lt, ts, wl, data) in enumerate(reader.records(), 1)]
    request, reply = pkts[248], pkts[249]
    assert (request.src, request.dst, request.proto, chain(request)) == (
        UE, "60.60.0.101", 1, ["gtp-u teid 0x00000001"])
    assert (reply.src, reply.dst, reply.outer.src, reply.outer.dst) == (
        "60.60.0.101", UE, "10.200.200.102", "10.200.200.1")
    assert sum(p.tunnel is not None for p in pkts) == 2


def test_conversations_key_on_the_tunnel():
    spilled = []
    flows = FlowTable(100, spilled.append)
    same_inner = inner_ethernet()
    for vni in (42, 43, 42):
        flows.update(decode(eth(f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", 50000, 4789,
                                                           t.vxlan(vni, same_inner)))))
    assert len(flows.flows) == 2  # one inner 5-tuple in two VNIs: two conversations
    reply = f.ipv4("192.168.10.53", "192.168.10.5", f.PROTO_UDP,
                   f.udp("192.168.10.53", "192.168.10.5", 53, 40000, b"\x12\x34\x80" + bytes(9)))
    flows.update(decode(eth(f.ETH_IPV4, t.over_udp("10.0.0.2", "10.0.0.1", 50001, 4789, t.vxlan(
        42, f.ethernet(VM_B, VM_A, f.ETH_IPV4, reply))))))
    assert len(flows.flows) == 2  # the answer through the same VNI joins its question


def test_gtpu_directions_with_their_own_teids_are_one_conversation():
    flows = FlowTable(100, lambda flow: None)
    up = decode(eth(f.ETH_IPV4, t.over_udp("10.200.200.1", "10.200.200.102", 2152, 2152, t.gtpu(1, ping()))))
    down = decode(eth(f.ETH_IPV4, t.over_udp("10.200.200.102", "10.200.200.1", 2152, 2152,
                                             t.gtpu(0x99, ping(SERVER, UE)))))
    flow, forward = flows.update(up)
    assert flows.update(down) == (flow, False) and forward


def nested_ipip(depth):
    packet = ping()
    for i in range(depth):
        packet = t.over_ip(f"10.{i}.0.1", f"10.{i}.0.2", t.PROTO_IPIP, packet)
    return eth(f.ETH_IPV4, packet)


def test_depth_is_bounded():
    pkt = decode(nested_ipip(MAX_DEPTH))
    assert (pkt.src, len(pkt.tunnel)) == (UE, MAX_DEPTH)
    deep = decode(nested_ipip(MAX_DEPTH + 2))
    assert deep.inner_error is DEPTH_EXCEEDED and len(deep.tunnel) == MAX_DEPTH
    assert deep.src == "10.1.0.1" and deep.carries.kind == "ipip"  # the 9th layer, unopened


def test_deep_label_stacks_are_bounded_too():
    payload = ping()
    for i in range(5):
        mpls = t.mpls([i + 16], payload)
        payload = t.over_ip(f"10.{i}.0.1", f"10.{i}.0.2", t.PROTO_GRE, t.gre(t.ETHERTYPE_MPLS, mpls))
    pkt = decode(eth(t.ETHERTYPE_MPLS, t.mpls([15], payload)))  # mpls, then 5 x (gre, mpls)
    assert pkt.inner_error is DEPTH_EXCEEDED and len(pkt.tunnel) == MAX_DEPTH
    assert pkt.src is None and pkt.tunnel[-1].kind == "gre"  # the 9th layer, MPLS, unread


def test_a_broken_inner_packet_leaves_its_carrier():
    inner = ping()[:30]  # the inner IPv4 header says 36 bytes, the ICMP header is cut
    frame = eth(f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", 2152, 2152, t.gtpu(5, inner[:19])))
    pkt = decode(frame)
    assert (pkt.src, pkt.dport, pkt.carries.text()) == ("10.0.0.1", 2152, "gtp-u teid 0x00000005")
    assert "ipv4: truncated" in str(pkt.inner_error) and bytes(pkt.payload)[:1] == b"\x30"


def test_a_cut_tunnel_header_leaves_the_datagram():
    frame = eth(f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", 50000, 4789, b"\x08\x00\x00"))
    pkt = decode(frame)
    assert pkt.dport == 4789 and pkt.carries is None and "vxlan: truncated" in str(pkt.inner_error)


@pytest.mark.parametrize("payload", [b"", b"\x00\x01hello", b"\x12\x34" + bytes(30)])
def test_other_traffic_on_tunnel_ports_is_left_alone(payload):
    for port in (4789, 6081, 2152, 3544):
        pkt = decode(eth(f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", port, 53, payload)))
        assert pkt.tunnel is None and pkt.sport == port and bytes(pkt.payload) == payload


def test_gtp_path_management_is_not_a_tunnelled_packet():
    echo = t.gtpu(0, b"", sequence=1, msg_type=t.GTP_ECHO_REQUEST)
    pkt = decode(eth(f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", 2152, 2152, echo)))
    assert pkt.tunnel is None and pkt.carries is None and pkt.inner_error is None


def test_pppoe_control_and_unknown_mpls_payloads_are_not_ip():
    lcp = decode(eth(t.ETHERTYPE_PPPOE_SESSION, t.pppoe_session(3, b"\x01\x01\x00\x04", t.PPP_LCP)))
    assert lcp.src is None and chain(lcp) == ["pppoe session 0x0003"] and bytes(lcp.link) == b"\x01\x01\x00\x04"
    odd = decode(eth(t.ETHERTYPE_MPLS, t.mpls([100], b"\x99" * 20)))
    assert odd.src is None and chain(odd) == ["mpls label 100"]


def test_a_cut_label_stack_keeps_the_ethernet_frame():
    pkt = decode(eth(t.ETHERTYPE_MPLS, t.mpls([16, 17], ping())[:6]))
    assert pkt.src is None and pkt.src_mac_text == MAC_A and "mpls: truncated" in str(pkt.inner_error)


FRAMES = [frame for _, frame, *_ in NESTED] + [nested_ipip(MAX_DEPTH + 1)]


@pytest.mark.parametrize("frame", FRAMES, ids=[n[0] for n in NESTED] + ["too deep"])
def test_every_prefix_decodes_or_raises_a_decode_error(frame):
    for cut in range(len(frame) + 1):
        try:
            decode(frame[:cut])
        except DecodeError:
            pass  # Truncated or Malformed: the outer layers themselves were cut


def test_every_prefix_of_a_real_gtpu_frame(captures):
    from tracepcap.extract.reader import CaptureReader
    with CaptureReader(captures / "free5gc.pcap") as reader:
        frames = [(lt, bytes(data)) for n, (lt, ts, wl, data) in enumerate(reader.records(), 1)
                  if n in (249, 250)]
    for linktype, frame in frames:
        outcomes = set()
        for cut in range(len(frame) + 1):
            try:
                pkt = decode(frame[:cut], linktype)
            except DecodeError:
                outcomes.add("outer cut")
                continue
            outcomes.add("inner read" if pkt.tunnel else "inner cut" if pkt.inner_error else "not a tunnel")
        assert outcomes == {"outer cut", "not a tunnel", "inner cut", "inner read"}
