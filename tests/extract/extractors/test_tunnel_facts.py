"""Facts through tunnels: the inner hosts get their facts, the tunnel endpoints get a
`tunnel-endpoint` fact and stay hosts, and the manifest counts what was decapsulated."""

from __future__ import annotations

from tracepcap.extract.extractors.dns import Dns
from tracepcap.extract.extractors.link_identity import LinkIdentity
from tracepcap.extract.extractors.services import Services
from tracepcap.extract.extractors.ttl import Ttl
from tracepcap.extract.extractors.tunnels import Tunnels
from tracepcap.extract.packet import MAX_DEPTH
from tracepcap.extract.pipeline import ManifestRow
from tracepcap.testing import app
from tracepcap.testing import frames as f
from tracepcap.testing import tunnels as t
from tracepcap.testing.scenario import Scenario

VTEP_A, VTEP_B = "172.16.0.1", "172.16.0.2"
MAC_A, MAC_B = "00:1b:21:00:00:01", "00:1b:21:00:00:02"
VM_1, VM_2 = "02:42:ac:11:00:0a", "02:42:ac:11:00:0b"


def vxlan_frame(src_vtep, dst_vtep, vni, inner_frame, ttl=64):
    outer = t.over_udp(src_vtep, dst_vtep, 50000, 4789, t.vxlan(vni, inner_frame), ttl=ttl)
    return f.ethernet(MAC_A if src_vtep == VTEP_A else MAC_B, MAC_B if src_vtep == VTEP_A else MAC_A,
                      f.ETH_IPV4, outer)


def inner_udp(src_mac, dst_mac, src, dst, sport, dport, payload, ttl=128):
    return f.ethernet(src_mac, dst_mac, f.ETH_IPV4, f.ipv4(src, dst, f.PROTO_UDP,
                                                           f.udp(src, dst, sport, dport, payload), ttl=ttl))


def test_vxlan_inner_hosts_and_endpoints(run, rows, manifest):
    net = Scenario()
    query = app.dns_query(9, "intranet.corp.example")
    answer = app.dns_response(9, "intranet.corp.example", [("intranet.corp.example", "A", "10.20.0.80", 60)])
    net.emit(vxlan_frame(VTEP_A, VTEP_B, 42, inner_udp(VM_1, VM_2, "10.20.0.5", "10.20.0.53", 40000, 53, query)))
    net.emit(vxlan_frame(VTEP_B, VTEP_A, 42, inner_udp(VM_2, VM_1, "10.20.0.53", "10.20.0.5", 53, 40000, answer,
                                                       ttl=64)))
    result = run(net, Tunnels, LinkIdentity, Ttl, Dns, Services)
    facts = rows(result)
    assert {r for r in facts if r[1] == "tunnel-endpoint"} == {
        (VTEP_A, "tunnel-endpoint", "vxlan vni 42", "tunnels", 1, 2, 2),
        (VTEP_B, "tunnel-endpoint", "vxlan vni 42", "tunnels", 1, 2, 2)}
    by_kind = lambda kind: {(e, v) for e, k, v, *_ in facts if k == kind}  # noqa: E731
    assert by_kind("mac") == {("10.20.0.5", VM_1), ("10.20.0.53", VM_2), (VTEP_A, MAC_A), (VTEP_B, MAC_B)}
    assert by_kind("ttl") == {("10.20.0.5", "128"), ("10.20.0.53", "64"), (VTEP_A, "64"), (VTEP_B, "64")}
    assert by_kind("dns-query") == {("10.20.0.5", "intranet.corp.example")}
    assert by_kind("hostname-claim") == {("10.20.0.80", "intranet.corp.example")}
    assert by_kind("served") == {("10.20.0.53", "udp/53")}
    assert result.hosts == ["10.20.0.5", "10.20.0.53", VTEP_A, VTEP_B]
    assert manifest(result, "decapsulation") == ManifestRow("decapsulation", "1", "completed", 2, None)


def test_free5gc_shows_its_ue_behind_gtpu(run, rows, manifest, captures):
    # Checked in Wireshark: frames 249/250 are the only GTP-U packets, an ICMP echo from the
    # UE 60.60.0.1 to 60.60.0.101 and its reply, between the gNB 10.200.200.1 and the UPF
    # 10.200.200.102, TEID 1 both ways, IP TTL 64 inside and out
    result = run(captures / "free5gc.pcap", Tunnels, Ttl)
    facts = rows(result)
    assert {r for r in facts if r[1] == "tunnel-endpoint"} == {
        ("10.200.200.1", "tunnel-endpoint", "gtp-u teid 0x00000001", "tunnels", 249, 250, 2),
        ("10.200.200.102", "tunnel-endpoint", "gtp-u teid 0x00000001", "tunnels", 249, 250, 2)}
    assert ("60.60.0.1", "ttl", "64", "ttl", 249, 249, 1) in facts
    assert ("60.60.0.101", "ttl", "64", "ttl", 250, 250, 1) in facts
    assert {"60.60.0.1", "60.60.0.101", "10.200.200.1", "10.200.200.102"} <= set(result.hosts)
    assert manifest(result, "decapsulation").facts == 2


def test_depth_and_broken_inner_packets_are_counted(run, manifest):
    net = Scenario()
    packet = f.ipv4("10.9.9.1", "10.9.9.2", f.PROTO_ICMP, f.icmp_echo(1, 1))
    for i in range(MAX_DEPTH + 1):
        packet = t.over_ip(f"10.{i}.0.1", f"10.{i}.0.2", t.PROTO_IPIP, packet)
    net.emit(f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, packet))  # frame 1: one layer too many
    cut = t.gtpu(7, f.ipv4("10.9.9.1", "10.9.9.2", f.PROTO_ICMP, f.icmp_echo(1, 1))[:12])
    net.emit(f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, t.over_udp(VTEP_A, VTEP_B, 2152, 2152, cut)))  # 2
    result = run(net, Tunnels)
    row = manifest(result, "decapsulation")
    assert (row.status, row.facts) == ("completed", 2)  # odd traffic, not a damaged file
    assert row.error == (f"1 frames nested deeper than {MAX_DEPTH} encapsulations (inner layers not "
                         "read); 1 tunnelled frames whose inner packet did not decode (their carrier was kept)")
    assert [(n.kind, n.frame, n.text) for n in result.notices] == [
        ("decapsulation-too-deep", 1, f"tunnel: malformed, nested deeper than {MAX_DEPTH} encapsulations"),
        ("decapsulation-truncated", 2, "ipv4: truncated, need 20 bytes, have 12")]
    endpoints = {(o.entity, o.value) for o in result.observations}
    assert (VTEP_A, "gtp-u teid 0x00000007") in endpoints  # the carrier still names its tunnel
    assert ("10.1.0.1", "ipip") in endpoints and ("10.0.0.2", "ipip") in endpoints


def test_without_tunnels_there_is_no_decapsulation_row(run, captures):
    result = run(captures / "dns_demo.pcap", Tunnels)
    assert [row.extractor for row in result.manifest] == ["reader", "decoder", "tunnels"]


def test_inner_addresses_name_the_tunnel_they_were_in_unless_it_carries_copies(run, rows):
    net = Scenario()
    query = app.dns_query(9, "intranet.corp.example")
    net.emit(vxlan_frame(VTEP_A, VTEP_B, 42, inner_udp(VM_1, VM_2, "10.20.0.5", "10.20.0.53", 40000, 53, query)))
    net.emit(vxlan_frame(VTEP_B, VTEP_A, 42, inner_udp(VM_2, VM_1, "10.20.0.53", "10.20.0.5", 53, 40000, query)))
    # an ERSPAN mirror carries copies of the capture's own network: its inner hosts are no tunnel's
    mirrored = inner_udp(VM_1, VM_2, "192.168.5.5", "192.168.5.53", 40001, 53, query)
    net.emit(f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, t.over_ip(VTEP_A, VTEP_B, 47, t.erspan_ii(3, mirrored))))
    facts = rows(run(net, Tunnels))
    inside = {(e, v, count) for e, k, v, _, _, _, count in facts if k == "tunnelled"}
    # both ends sorted: the two directions name one tunnel; each inner packet counts on both addresses
    assert inside == {("10.20.0.5", "vxlan between 172.16.0.1 and 172.16.0.2", 2),
                      ("10.20.0.53", "vxlan between 172.16.0.1 and 172.16.0.2", 2)}
