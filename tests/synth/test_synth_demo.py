"""The demo office capture: deterministic, well-formed, and true to DEMO_TRUTH."""

from __future__ import annotations

import subprocess
from collections import defaultdict

import dpkt
import pytest
from cryptography import x509
from cryptography.x509.oid import NameOID

from tracepcap.testing.demo import (DEMO_REMOTE_TRUTH, DEMO_TRUTH, DHCP_PROFILE,
                                    build_demo_office, main)

ROUTER = "10.0.0.1"


def _ip(raw: bytes) -> str:
    return dpkt.utils.inet_to_str(raw)


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    return build_demo_office(tmp_path_factory.mktemp("demo") / "office.pcap")


@pytest.fixture(scope="module")
def packets(capture):
    """(timestamp, raw frame, Ethernet) for every frame, decoded by dpkt."""
    with open(capture, "rb") as fh:
        return [(float(ts), bytes(buf), dpkt.ethernet.Ethernet(buf))
                for ts, buf in dpkt.pcap.Reader(fh)]


def _ip_packets(packets):
    return [eth.data for _, _, eth in packets if isinstance(eth.data, dpkt.ip.IP)]


def _udp(packets, port):
    return [ip for ip in _ip_packets(packets)
            if isinstance(ip.data, dpkt.udp.UDP) and port in (ip.data.sport, ip.data.dport)]


def _streams(packets):
    """Payload per TCP direction (src, sport, dst, dport), reassembled by sequence number,
    with the number of segments it took."""
    segs = defaultdict(list)
    for ip in _ip_packets(packets):
        if isinstance(ip.data, dpkt.tcp.TCP) and ip.data.data:
            key = (_ip(ip.src), ip.data.sport, _ip(ip.dst), ip.data.dport)
            segs[key].append((ip.data.seq, ip.data.data))
    return {key: (b"".join(d for _, d in sorted(v)), len(v)) for key, v in segs.items()}


def test_two_builds_are_byte_identical(tmp_path, capture):
    again = build_demo_office(tmp_path / "again.pcap")
    assert again.read_bytes() == capture.read_bytes()
    ng1 = build_demo_office(tmp_path / "a.pcapng", fmt="pcapng")
    ng2 = build_demo_office(tmp_path / "b.pcapng", fmt="pcapng")
    assert ng1.read_bytes() == ng2.read_bytes()
    with open(ng1, "rb") as fh:
        ng_frames = [bytes(buf) for _, buf in dpkt.pcapng.Reader(fh)]
    with open(capture, "rb") as fh:
        assert ng_frames == [bytes(buf) for _, buf in dpkt.pcap.Reader(fh)]
    with pytest.raises(ValueError, match="pcap"):
        build_demo_office(tmp_path / "x", fmt="erf")


def test_size_order_and_checksums(packets, checksums):
    assert 300 <= len(packets) <= 2000
    times = [ts for ts, _, _ in packets]
    assert times == sorted(times)
    assert [checksums(frame) for _, frame, _ in packets if checksums(frame)] == []


def test_dhcp_clients_start_from_zero_with_their_os_options(packets):
    requests = defaultdict(list)
    acks = {}
    for ip in _udp(packets, 67):
        msg = dpkt.dhcp.DHCP(ip.data.data)
        opts, mac = dict(msg.opts), msg.chaddr[:6].hex(":")
        if msg.op == dpkt.dhcp.DHCP_OP_REQUEST:
            assert (_ip(ip.src), _ip(ip.dst)) == ("0.0.0.0", "255.255.255.255")
            assert (ip.data.sport, ip.data.dport) == (68, 67)
            requests[mac].append((opts[53][0], opts))
        elif opts[53][0] == dpkt.dhcp.DHCPACK:
            assert _ip(ip.src) == "10.0.0.3"
            acks[mac] = _ip(msg.yiaddr.to_bytes(4, "big"))
    assert set(acks.values()) == set(DHCP_PROFILE)
    for addr, (params, vendor) in DHCP_PROFILE.items():
        truth = DEMO_TRUTH[addr]
        assert acks[truth["mac"]] == addr
        sent = requests[truth["mac"]]
        assert [kind for kind, _ in sent] == [dpkt.dhcp.DHCPDISCOVER, dpkt.dhcp.DHCPREQUEST]
        for _, opts in sent:
            assert opts[12].decode() == truth["hostname"]
            assert tuple(opts[55]) == params
            assert opts.get(60, b"").decode() == (vendor or "")
    assert DHCP_PROFILE["10.0.0.21"][1] == "MSFT 5.0"
    assert DHCP_PROFILE["10.0.0.31"][1] == "android-dhcp-13"


def test_each_lan_host_uses_its_true_mac_and_initial_ttl(packets):
    seen = defaultdict(set)
    ttls = defaultdict(set)
    for _, _, eth in packets:
        ip = eth.data
        if isinstance(ip, dpkt.ip.IP) and _ip(ip.src) in DEMO_TRUTH:
            seen[_ip(ip.src)].add(eth.src.hex(":"))
            if not (_ip(ip.dst).startswith("224.") or _ip(ip.dst).endswith(".255")):
                ttls[_ip(ip.src)].add(ip.ttl)
    for addr, truth in DEMO_TRUTH.items():
        assert seen[addr] == {truth["mac"]}, addr
        expected = {"Windows": 128, "Network OS": 255}.get(truth["os"], 64)
        assert ttls[addr] == {expected}, addr


def test_router_mac_fronts_the_internet(packets):
    router_mac = DEMO_TRUTH[ROUTER]["mac"]
    behind = {_ip(eth.data.src) for _, _, eth in packets
              if isinstance(eth.data, dpkt.ip.IP) and eth.src.hex(":") == router_mac}
    assert behind == {ROUTER, *DEMO_REMOTE_TRUTH}
    arp_replies = [eth.data for _, _, eth in packets
                   if isinstance(eth.data, dpkt.arp.ARP) and eth.data.op == 2
                   and eth.src.hex(":") == router_mac]
    assert arp_replies and {_ip(a.spa) for a in arp_replies} == {ROUTER}


def test_dns_server_answers_many_clients_including_ptr(packets):
    answers = [(ip, dpkt.dns.DNS(ip.data.data)) for ip in _udp(packets, 53)
               if _ip(ip.src) == "10.0.0.2" and ip.data.sport == 53]
    assert len({_ip(ip.dst) for ip, _ in answers}) >= 6
    ptr = {rr.name: rr.ptrname for _, msg in answers for rr in msg.an
           if rr.type == dpkt.dns.DNS_PTR}
    for addr in ("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.10"):
        reverse = ".".join(reversed(addr.split("."))) + ".in-addr.arpa"
        assert ptr[reverse] == DEMO_TRUTH[addr]["hostname"]
    a_records = {rr.name: _ip(rr.ip) for _, msg in answers for rr in msg.an
                 if rr.type == dpkt.dns.DNS_A}
    for addr, remote in DEMO_REMOTE_TRUTH.items():
        if addr != "198.51.100.53":
            assert a_records[remote["hostname"]] == addr


def test_web_server_shows_server_header_and_a_multi_segment_certificate(packets):
    streams = _streams(packets)
    http = [data for (src, sport, _, _), (data, _) in streams.items()
            if src == "10.0.0.10" and sport == 80]
    assert len(http) == 6
    assert dpkt.http.Response(http[0]).headers["server"] == "nginx/1.24.0 (Ubuntu)"
    flights = [(data, n) for (src, sport, _, _), (data, n) in streams.items()
               if src == "10.0.0.10" and sport == 443]
    assert flights
    data, segments = flights[0]
    records, _ = dpkt.ssl.tls_multi_factory(data)
    handshakes = [dpkt.ssl.TLSHandshake(r.data) for r in records if r.type == 22]
    (cert_msg,) = [h for h in handshakes if h.type == 11]
    assert len(cert_msg) > 1460 and segments >= 2  # the chain cannot fit one segment
    leaf = x509.load_der_x509_certificate(cert_msg.data.certificates[0])
    cn = leaf.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    assert cn == DEMO_TRUTH["10.0.0.10"]["hostname"] == "intranet.corp.example"


def test_user_agents_and_sni(packets):
    streams = _streams(packets)
    agents = {src: dpkt.http.Request(data).headers.get("user-agent")
              for (src, _, _, dport), (data, _) in streams.items() if dport == 80}
    assert "Windows NT 10.0" in agents["10.0.0.21"] and "Android 13" in agents["10.0.0.31"]
    assert "Macintosh" in agents["10.0.0.30"] and "iPhone" in agents["10.0.0.32"]
    sni = set()
    for (_, _, dst, dport), (data, _) in streams.items():
        if dport == 443 and dst in DEMO_REMOTE_TRUTH:
            hello = dpkt.ssl.TLSHandshake(dpkt.ssl.tls_multi_factory(data)[0][0].data).data
            sni.add(dict(hello.extensions)[0][5:].decode())
    assert sni == {t["hostname"] for a, t in DEMO_REMOTE_TRUTH.items()
                   if a not in ("198.51.100.53", "198.51.100.90")}


def test_windows_hosts_send_windows_syns_and_nbns(packets):
    syns = {}
    for ip in _ip_packets(packets):
        tcp = ip.data
        if isinstance(tcp, dpkt.tcp.TCP) and tcp.flags == dpkt.tcp.TH_SYN:
            syns[_ip(ip.src)] = [k for k, _ in dpkt.tcp.parse_opts(tcp.opts) if k]
    assert syns["10.0.0.21"] == syns["10.0.0.22"] == [2, 1, 3, 1, 1, 4]
    assert syns["10.0.0.23"] == [2, 4, 8, 1, 3]
    assert syns["10.0.0.30"] == [2, 1, 3, 1, 1, 8, 4]
    names = set()
    for ip in _udp(packets, 137):
        ns = dpkt.netbios.NS(ip.data.data)
        if ns.op >> 11 & 0xF == 5:
            names.add((_ip(ip.src), dpkt.netbios.decode_name(ns.qd[0].name).rstrip()))
    assert {("10.0.0.21", "WS-ACCT-01"), ("10.0.0.22", "WS-SALES-02")} <= names
    llmnr = [dpkt.dns.DNS(ip.data.data) for ip in _udp(packets, 5355)]
    assert [m.qr for m in llmnr] == [0, 1] and llmnr[1].an[0].name == "WS-SALES-02"


def test_mdns_announces_apple_names_and_the_printer(packets):
    owners = defaultdict(set)
    for ip in _udp(packets, 5353):
        assert _ip(ip.dst) == "224.0.0.251" and ip.ttl == 255
        for rr in dpkt.dns.DNS(ip.data.data).an:
            owners[_ip(ip.src)].add((rr.name, rr.type))
    assert ("Alices-MacBook.local", dpkt.dns.DNS_A) in owners["10.0.0.30"]
    assert ("Bobs-iPhone.local", dpkt.dns.DNS_A) in owners["10.0.0.32"]
    assert ("_ipp._tcp.local", dpkt.dns.DNS_PTR) in owners["10.0.0.40"]


def test_printer_answers_on_its_ports_and_ssh_banners(packets):
    synacks = {(_ip(ip.src), ip.data.sport) for ip in _ip_packets(packets)
               if isinstance(ip.data, dpkt.tcp.TCP)
               and ip.data.flags == dpkt.tcp.TH_SYN | dpkt.tcp.TH_ACK}
    assert {("10.0.0.40", p) for p in (9100, 631, 515)} <= synacks
    assert ("10.0.0.40", 22) not in synacks  # closed: answered with RST
    streams = _streams(packets)
    ssh = {src: data.split(b"\r\n")[0] for (src, sport, _, dport), (data, _) in streams.items()
           if 22 in (sport, dport)}
    assert ssh == {"10.0.0.30": b"SSH-2.0-OpenSSH_9.4",
                   "10.0.0.23": b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13"}


def test_main_writes_the_capture(tmp_path, capsys, capture):
    assert main([str(tmp_path / "cli.pcapng")]) == 0
    assert (tmp_path / "cli.pcapng").read_bytes()[:4] == b"\x0a\x0d\x0d\x0a"
    assert main([str(tmp_path / "cli.pcap")]) == 0
    assert (tmp_path / "cli.pcap").read_bytes() == capture.read_bytes()


def test_tshark_finds_nothing_malformed(capture):
    result = subprocess.run(
        ["tshark", "-r", str(capture), "-o", "ip.check_checksum:TRUE", "-o",
         "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-Y",
         "_ws.malformed || _ws.expert.severity >= error || ip.checksum.status == 0"
         " || tcp.checksum.status == 0 || udp.checksum.status == 0 || icmp.checksum.status == 0",
         "-T", "fields", "-e", "frame.number"], capture_output=True, text=True, check=True)
    assert result.stdout.split() == []
