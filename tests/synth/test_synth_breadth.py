"""Builders for tunnels, link discovery and Windows, SNMP and DNS-update messages, judged by
tshark's dissectors."""

from __future__ import annotations

import subprocess

import pytest

from tracepcap.testing import discovery as d
from tracepcap.testing import dns_update as du
from tracepcap.testing import frames as f
from tracepcap.testing import snmp as s
from tracepcap.testing import tunnels as t
from tracepcap.testing import windows as w
from tracepcap.testing.writers import PcapWriter


A, B = "00:1b:21:00:00:01", "00:00:0c:00:00:02"
INNER_ETH = f.ethernet("02:00:00:00:00:0a", "02:00:00:00:00:0b", f.ETH_IPV4,
                       f.ipv4("192.168.0.1", "192.168.0.2", f.PROTO_UDP, f.udp("192.168.0.1", "192.168.0.2", 1000, 2000, b"x")))
PING = f.ipv4("60.60.0.1", "8.8.8.8", f.PROTO_ICMP, f.icmp_echo(1, 1, b"ping"))
V6 = f.ipv6("2001::1", "2001:db8::2", f.PROTO_UDP, f.udp("2001::1", "2001:db8::2", 5000, 6000, b"hi"))


def ip4(payload, proto=f.PROTO_UDP, src="10.0.0.1", dst="10.0.0.2"):
    return f.ethernet(A, B, f.ETH_IPV4, t.over_ip(src, dst, proto, payload))


def udp4(sport, dport, payload, src="10.0.0.1", dst="10.0.0.2"):
    return f.ethernet(A, B, f.ETH_IPV4, t.over_udp(src, dst, sport, dport, payload))


def tcp4(sport, dport, payload):
    return ip4(f.tcp("10.0.0.1", "10.0.0.2", sport, dport, 1, 1, "PA", payload), f.PROTO_TCP)


CHALLENGE = w.ntlm_challenge("FS01", "CORP", "fs01.corp.example", "corp.example")
FRAMES = [
    udp4(55555, 4789, t.vxlan(42, INNER_ETH)),  # 1
    udp4(55555, 6081, t.geneve(7, INNER_ETH, options=t.geneve_option(0x0102, 0x80, b"abcd"))),  # 2
    ip4(t.gre(f.ETH_IPV4, PING, key=9, checksum=True), t.PROTO_GRE),  # 3
    ip4(t.erspan_ii(3, INNER_ETH, sequence=5), t.PROTO_GRE),  # 4
    ip4(t.erspan_iii(4, INNER_ETH, platform=bytes(8)), t.PROTO_GRE),  # 5
    udp4(2152, 2152, t.gtpu(0x1234, PING, sequence=7, extensions=[(0x85, b"\x00\x09")])),  # 6
    udp4(3544, 40000, t.teredo(V6, origin=("198.51.100.7", 40001)), src="192.0.2.1"),  # 7
    f.ethernet(A, B, t.ETHERTYPE_MPLS, t.mpls([16, 3000], PING)),  # 8
    f.ethernet(A, B, t.ETHERTYPE_PPPOE_SESSION, t.pppoe_session(0x12, PING)),  # 9
    d.lldp_frame(A, system_name="sw1.example", description="Cisco IOS Software, C2960",
                 capabilities=["bridge", "router"], enabled=["bridge"], management=["10.0.0.9"]),  # 10
    d.cdp_frame(B, device_id="sw2.example", capabilities=["router", "switch"], platform="cisco WS-C2960",
                addresses=["10.0.0.10"]),  # 11
    d.nd_frame(A, "33:33:00:00:00:01", "fe80::1", "ff02::1",
               d.neighbor_advert("fe80::1", "ff02::1", "fe80::1", A, solicited=False)),  # 12
    d.gratuitous_arp(A, "10.0.0.5"),  # 13
    tcp4(50001, 445, w.smb1_session_setup_request("Windows 5.1", "Windows 2000 LAN Manager",
                                                  blob=w.ntlm_authenticate("alice", "CORP", "WS01"))),  # 14
    tcp4(445, 50002, w.smb1_session_setup_response("Unix", "Samba 4.15.13", "CORP", blob=CHALLENGE)),  # 15
    udp4(50003, 88, w.krb_as_req("alice", "CORP.EXAMPLE")),  # 16
    tcp4(50004, 88, w.krb_tcp(w.krb_tgs_req("cifs/fs01.corp.example", "CORP.EXAMPLE"))),  # 17
    udp4(161, 50005, s.get_response(5, [(s.SYS_DESCR, "Linux sw 5.4"), (s.SYS_NAME, "sw3")])),  # 18
    udp4(50008, 53, du.dns_update(7, "corp.example", [("ws01.corp.example", "A", "10.0.0.5", 1200)],
                                  [("ws01.corp.example", "A")])),  # 19
]
FIELDS = ("vxlan.vni", "geneve.vni", "gre.key", "erspan.spanid", "gtp.teid", "teredo.orig.addr",
          "mpls.label", "pppoe.session_id", "lldp.tlv.system.name", "lldp.mgn.addr.ip4", "cdp.deviceid",
          "icmpv6.nd.na.target_address", "arp.isgratuitous", "smb.native_os", "ntlmssp.auth.hostname",
          "ntlmssp.challenge.target_info.nb_computer_name", "kerberos.CNameString", "kerberos.SNameString",
          "snmp.value.octets", "dns.flags.opcode", "_ws.malformed", "ip.checksum.status", "udp.checksum.status")


@pytest.fixture(scope="module")
def dissected(tmp_path_factory):
    path = tmp_path_factory.mktemp("breadth") / "breadth.pcap"
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for i, frame in enumerate(FRAMES):
            writer.write(1_700_000_000 + i, frame)
    args = ["tshark", "-n", "-r", str(path), "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
            "-T", "fields", *(arg for name in FIELDS for arg in ("-e", name))]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [dict(zip(FIELDS, line.split("\t"))) for line in out.splitlines()]


@pytest.mark.parametrize("frame, field, value", [
    (1, "vxlan.vni", "42"), (2, "geneve.vni", "0x000007"), (3, "gre.key", "0x00000009"),
    (4, "erspan.spanid", "3"), (5, "erspan.spanid", "4"), (6, "gtp.teid", "0x00001234"),
    (7, "teredo.orig.addr", "198.51.100.7"), (8, "mpls.label", "16,3000"), (9, "pppoe.session_id", "0x0012"),
    (10, "lldp.tlv.system.name", "sw1.example"), (10, "lldp.mgn.addr.ip4", "10.0.0.9"),
    (11, "cdp.deviceid", "sw2.example"), (12, "icmpv6.nd.na.target_address", "fe80::1"),
    (13, "arp.isgratuitous", "1"), (14, "smb.native_os", "Windows 5.1"), (14, "ntlmssp.auth.hostname", "WS01"),
    (15, "smb.native_os", "Unix"), (15, "ntlmssp.challenge.target_info.nb_computer_name", "FS01"),
    (16, "kerberos.CNameString", "alice"), (17, "kerberos.SNameString", "cifs,fs01.corp.example"),
    (18, "snmp.value.octets", b"Linux sw 5.4".hex() + "," + b"sw3".hex()), (19, "dns.flags.opcode", "5"),
])
def test_tshark_reads_what_was_built(dissected, frame, field, value):
    assert dissected[frame - 1][field] == value


def test_nothing_is_malformed_and_checksums_hold(dissected):
    for n, row in enumerate(dissected, 1):
        assert row["_ws.malformed"] == "", n
        assert set(filter(None, row["ip.checksum.status"].split(","))) <= {"1"}, n  # 1: good
        assert set(filter(None, row["udp.checksum.status"].split(","))) <= {"1"}, n
