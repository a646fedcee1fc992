"""Scenario stories, read back packet by packet with dpkt."""

from __future__ import annotations

import dpkt
import pytest

from tracepcap.testing import app
from tracepcap.testing.scenario import LINUX_SYN, MACOS_SYN, WINDOWS_SYN, Scenario

ROUTER_MAC, PC_MAC, SRV_MAC = "00:00:0c:12:34:56", "00:1b:21:aa:bb:cc", "00:25:90:00:00:10"


@pytest.fixture
def net():
    return Scenario(start=1_700_000_000.0)


def _tcp_packets(net):
    """(eth, ip, tcp) for every TCP frame."""
    out = []
    for _, frame in net.frames():
        eth = dpkt.ethernet.Ethernet(frame)
        if isinstance(eth.data, (dpkt.ip.IP, dpkt.ip6.IP6)) and isinstance(eth.data.data,
                                                                           dpkt.tcp.TCP):
            out.append((eth, eth.data, eth.data.data))
    return out


def _flags(tcp) -> str:
    return "".join(letter for bit, letter in ((0x02, "S"), (0x10, "A"), (0x08, "P"),
                                              (0x01, "F"), (0x04, "R")) if tcp.flags & bit)


def _stream(packets, sport) -> bytes:
    """One direction's payload, reassembled by sequence number as an analyser must."""
    segs = sorted((tcp.seq, tcp.data) for _, _, tcp in packets if tcp.sport == sport and tcp.data)
    data, expected = b"", segs[0][0] if segs else 0
    for seq, chunk in segs:
        assert seq == expected, "gap or overlap in the stream"
        data, expected = data + chunk, seq + len(chunk)
    return data


def test_tcp_session_handshake_segments_and_close(net, checksums):
    router = net.host("10.0.0.1", ROUTER_MAC, ttl=255)
    pc = net.host("10.0.0.23", PC_MAC, ttl=128, syn=WINDOWS_SYN)
    web = net.host("203.0.113.10", via=router, ttl=52, syn=LINUX_SYN)
    hello, flight = app.tls_client_hello("www.example.com"), bytes(range(256)) * 12
    net.tcp_session(pc, web, 49152, 443, client=[hello], server=[flight], segment=1400)
    packets = _tcp_packets(net)
    assert [_flags(t) for _, _, t in packets] == [
        "S", "SA", "A", "AP", "A", "A", "A", "AP", "A", "AF", "AF", "A"]
    syn, synack = packets[0][2], packets[1][2]
    assert (syn.win, syn.ack) == (64240, 0)
    assert [k for k, _ in dpkt.tcp.parse_opts(syn.opts)] == [2, 1, 3, 1, 1, 4]
    assert synack.ack == syn.seq + 1
    synack_kinds = [k for k, _ in dpkt.tcp.parse_opts(synack.opts) if k]  # drop EOL padding
    assert synack_kinds == [2, 4, 1, 3]  # no timestamps: the client did not offer them
    assert max(len(t.data) for _, _, t in packets) == 1400
    assert _stream(packets, 49152) == hello and _stream(packets, 443) == flight
    assert {ip.ttl for _, ip, t in packets if t.sport == 443} == {52}
    assert {ip.ttl for _, ip, t in packets if t.sport == 49152} == {128}
    # the internet server's frames carry the router's MAC, both ways
    assert {eth.src for eth, _, t in packets if t.sport == 443} == {bytes.fromhex("00000c123456")}
    assert {eth.dst for eth, _, t in packets if t.sport == 49152} == {bytes.fromhex("00000c123456")}
    fin_c, fin_s, last = (t for _, _, t in packets[-3:])
    assert fin_s.ack == fin_c.seq + 1 and last.ack == fin_s.seq + 1
    assert all(checksums(frame) == [] for _, frame in net.frames())
    times = [ts for ts, _ in net.frames()]
    assert times == sorted(times) and times[0] == 1_700_000_000.0


def test_segment_defaults_to_the_smaller_mss(net):
    a = net.host("10.0.0.2", PC_MAC, syn=MACOS_SYN)
    b = net.host("10.0.0.3", SRV_MAC, syn=LINUX_SYN)
    net.tcp_session(a, b, 50000, 22, server=[b"x" * 3000])
    assert [len(t.data) for _, _, t in _tcp_packets(net) if t.data] == [1460, 1460, 80]


def test_reorder_swaps_two_data_segments(net):
    a = net.host("10.0.0.2", PC_MAC)
    b = net.host("10.0.0.3", SRV_MAC)
    payload = bytes(range(200)) * 20
    net.tcp_session(a, b, 50000, 80, client=[payload], segment=1000, reorder=True)
    packets = _tcp_packets(net)
    seqs = [t.seq for _, _, t in packets if t.data]
    assert seqs[0] > seqs[1] and sorted(seqs) != seqs
    assert _stream(packets, 50000) == payload


def test_mid_stream_capture_has_no_syn(net):
    a = net.host("10.0.0.2", PC_MAC)
    b = net.host("10.0.0.3", SRV_MAC)
    net.tcp_session(a, b, 50000, 80, client=[b"GET"], server=[b"200"], handshake=False,
                    close=False)
    flags = [_flags(t) for _, _, t in _tcp_packets(net)]
    assert flags == ["AP", "A", "AP", "A"]


def test_closed_port_answers_syn_with_rst(net):
    a = net.host("10.0.0.2", PC_MAC)
    b = net.host("10.0.0.3", SRV_MAC)
    net.tcp_session(a, b, 50001, 23, client=[b"never sent"], rst_instead_of_synack=True)
    (_, _, syn), (_, _, rst) = _tcp_packets(net)
    assert _flags(syn) == "S" and _flags(rst) == "AR" and rst.ack == syn.seq + 1


def test_vlan_and_ipv6_hosts(net, checksums):
    a = net.host("2001:db8::2", PC_MAC, vlan=30, syn=MACOS_SYN)
    b = net.host("2001:db8::3", SRV_MAC, ttl=64)
    net.tcp_session(a, b, 50000, 443, client=[b"hi"], server=[b"there"])
    net.udp(a, "ff02::fb", 5353, 5353, app.mdns_announcement(
        app.mdns_host_records("Alices-MacBook", "2001:db8::2")), ttl=255)
    for _, frame in net.frames():
        eth = dpkt.ethernet.Ethernet(frame)
        assert eth.vlan_tags[0].id == 30 and isinstance(eth.data, dpkt.ip6.IP6)
        assert checksums(frame) == []
    last = dpkt.ethernet.Ethernet(net.frames()[-1][1])
    assert last.dst == bytes.fromhex("3333000000fb") and last.data.hlim == 255
    assert dpkt.dns.DNS(last.data.data.data).an[0].type == dpkt.dns.DNS_AAAA


def test_dhcp_exchange_starts_from_unspecified_address(net, checksums):
    server = net.host("10.0.0.3", SRV_MAC)
    client = net.dhcp_exchange(PC_MAC, server, "10.0.0.50", router="10.0.0.1",
                               hostname="WS-ACCT-01", vendor_class="MSFT 5.0",
                               param_list=[1, 3, 6, 15])
    assert client.ip == "10.0.0.50" and client.mac == PC_MAC
    rows = []
    for _, frame in net.frames():
        eth = dpkt.ethernet.Ethernet(frame)
        ip, udp = eth.data, eth.data.data
        msg = dpkt.dhcp.DHCP(udp.data)
        rows.append((dpkt.utils.inet_to_str(ip.src), dpkt.utils.inet_to_str(ip.dst),
                     udp.sport, udp.dport, dict(msg.opts)[53][0]))
        assert checksums(frame) == []
    assert rows == [("0.0.0.0", "255.255.255.255", 68, 67, 1), ("10.0.0.3", "10.0.0.50", 67, 68, 2),
                    ("0.0.0.0", "255.255.255.255", 68, 67, 3), ("10.0.0.3", "10.0.0.50", 67, 68, 5)]
    request = dpkt.dhcp.DHCP(dpkt.ethernet.Ethernet(net.frames()[2][1]).data.data.data)
    opts = dict(request.opts)
    assert opts[12] == b"WS-ACCT-01" and opts[50] == bytes([10, 0, 0, 50])
    assert opts[54] == bytes([10, 0, 0, 3]) and opts[60] == b"MSFT 5.0"
    first = dpkt.ethernet.Ethernet(net.frames()[0][1])
    assert first.dst == b"\xff" * 6 and first.src == bytes.fromhex("001b21aabbcc")


def test_arp_ping_and_dns_lookup(net, checksums):
    router = net.host("10.0.0.1", ROUTER_MAC, ttl=255)
    pc = net.host("10.0.0.23", PC_MAC, ttl=128)
    dns = net.host("10.0.0.2", SRV_MAC)
    net.arp_exchange(pc, router)
    net.ping(pc, router)
    net.dns_lookup(pc, dns, "www.example.com", ["203.0.113.10"])
    net.dns_lookup(pc, dns, "nope.example", [])
    decoded = [dpkt.ethernet.Ethernet(frame) for _, frame in net.frames()]
    assert [e.data.op for e in decoded[:2]] == [1, 2]
    assert decoded[3].data.ttl == 255 and decoded[3].data.data.type == 0  # echo reply
    answer = dpkt.dns.DNS(decoded[5].data.data.data)
    assert answer.an[0].ip == bytes([203, 0, 113, 10])
    assert dpkt.dns.DNS(decoded[7].data.data.data).rcode == 3
    assert all(checksums(frame) == [] for _, frame in net.frames())


def test_pcap_and_pcapng_outputs_hold_the_same_frames(net, tmp_path):
    a = net.host("10.0.0.2", PC_MAC)
    b = net.host("10.0.0.3", SRV_MAC)
    net.tcp_session(a, b, 50000, 80, client=[b"GET / HTTP/1.1\r\n\r\n"])
    with open(net.write_pcap(tmp_path / "s.pcap"), "rb") as fh:
        from_pcap = [(round(float(ts), 6), bytes(buf)) for ts, buf in dpkt.pcap.Reader(fh)]
    with open(net.write_pcapng(tmp_path / "s.pcapng"), "rb") as fh:
        from_ng = [(round(float(ts), 6), bytes(buf)) for ts, buf in dpkt.pcapng.Reader(fh)]
    assert from_pcap == from_ng == [(round(ts, 6), frame) for ts, frame in net.frames()]


def test_host_needs_a_mac_or_a_router(net):
    with pytest.raises(ValueError, match="needs a MAC"):
        net.host("10.0.0.9")
