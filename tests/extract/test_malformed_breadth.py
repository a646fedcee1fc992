"""Malformed input for every decoder this breadth added: frames through the hot path, then
their payloads through the identity decoders, cut at every length and mutated at random.
A DecodeError (Truncated or Malformed) is the only failure allowed."""

from __future__ import annotations

import random

import pytest

from tracepcap.extract.decoders import DecodeError, arp, cdp, dns, kerberos, lldp, ndp, ntlmssp, smb, snmp, tls
from tracepcap.extract.extractors.tls_fingerprint import ja3, ja4
from tracepcap.extract.packet import decode_frame
from tracepcap.testing import app
from tracepcap.testing import discovery as d
from tracepcap.testing import dns_update as du
from tracepcap.testing import frames as f
from tracepcap.testing import snmp as s
from tracepcap.testing import tunnels as t
from tracepcap.testing import windows as w

A, B = "00:1b:21:00:00:01", "00:00:0c:00:00:02"
INNER = f.ethernet("02:00:00:00:00:0a", "02:00:00:00:00:0b", f.ETH_IPV4,
                   f.ipv4("192.168.0.1", "192.168.0.2", f.PROTO_UDP, f.udp("192.168.0.1", "192.168.0.2", 9, 53,
                                                                            app.dns_query(1, "a.example"))))
PING = f.ipv4("60.60.0.1", "8.8.8.8", f.PROTO_ICMP, f.icmp_echo(1, 1, b"ping"))


def udp(sport, dport, payload):
    return f.ethernet(A, B, f.ETH_IPV4, t.over_udp("10.0.0.1", "10.0.0.2", sport, dport, payload))


def gre(payload):
    return f.ethernet(A, B, f.ETH_IPV4, t.over_ip("10.0.0.1", "10.0.0.2", t.PROTO_GRE, payload))


def tcp(sport, dport, payload):
    return f.ethernet(A, B, f.ETH_IPV4, f.ipv4("10.0.0.1", "10.0.0.2", f.PROTO_TCP,
                                              f.tcp("10.0.0.1", "10.0.0.2", sport, dport, 1, 1, "PA", payload)))


FRAMES = {
    "vxlan": udp(50000, 4789, t.vxlan(42, INNER)),
    "geneve": udp(50000, 6081, t.geneve(7, INNER, options=t.geneve_option(1, 2, b"abcd"))),
    "gtp-u": udp(2152, 2152, t.gtpu(0x1234, PING, sequence=1, extensions=[(0x85, b"\x00\x09")])),
    "teredo": udp(3544, 40000, t.teredo(f.ipv6("2001::1", "2001::2", 59, b""), origin=("192.0.2.1", 1),
                                        auth=(b"id", b"v", b"N" * 8))),
    "gre": gre(t.gre(t.ETHERTYPE_TEB, INNER, key=1, sequence=2, checksum=True)),
    "erspan-ii": gre(t.erspan_ii(3, INNER)),
    "erspan-iii": gre(t.erspan_iii(4, INNER, platform=bytes(8))),
    "ipip": f.ethernet(A, B, f.ETH_IPV4, t.over_ip("10.0.0.1", "10.0.0.2", t.PROTO_IPIP, PING)),
    "mpls": f.ethernet(A, B, t.ETHERTYPE_MPLS, t.mpls([16, 17], PING)),
    "pppoe": f.ethernet(A, B, t.ETHERTYPE_PPPOE_SESSION, t.pppoe_session(5, PING)),
    "arp": d.gratuitous_arp(A, "10.0.0.5"),
    "ndp": d.nd_frame(A, "33:33:00:00:00:01", "fe80::1", "ff02::1", d.neighbor_advert("fe80::1", "ff02::1",
                                                                                      "fe80::1", A)),
    "lldp": d.lldp_frame(A, system_name="sw", description="IOS", capabilities=["bridge"], management=["10.0.0.9"],
                         med={10: "model"}),
    "cdp": d.cdp_frame(B, device_id="sw2", capabilities=["switch"], software="IOS", platform="cisco",
                       addresses=["10.0.0.10", "2001:db8::1"]),
    "snmp": udp(161, 50000, s.get_response(5, [(s.SYS_DESCR, "Linux"), (s.SYS_NAME, "sw3")])),
    "kerberos": udp(88, 50000, w.krb_rep(11, "alice", "CORP.EXAMPLE", "krbtgt/CORP.EXAMPLE")),
    "ntlmssp": tcp(445, 50000, w.smb2_session_setup(w.spnego(w.ntlm_challenge("FS", "CORP", "fs.corp"), True), True)),
    "smb": tcp(50000, 445, w.smb1_session_setup_request("Windows 5.1", "LAN Manager", blob=w.ntlm_authenticate(
        "alice", "CORP", "WS01"))),
    "dns-update": udp(50000, 53, du.dns_update(1, "corp.example", [("ws.corp.example", "A", "10.0.0.1", 60)],
                                               [("ws.corp.example", "A")])),
    "tls": tcp(50000, 443, app.tls_client_hello("a.example", alpn=["h2"], supported_versions=[0x0304])),
}


def quietly(decode, *args):
    """Run one decoder; a DecodeError is an allowed answer, anything else fails the test."""
    try:
        return decode(*args)
    except DecodeError:
        return None


def read_everything(pkt) -> None:
    """What the extractors would ask of this packet's payloads, each decoder on its own."""
    if pkt.link is not None:
        link = bytes(pkt.link)
        quietly(arp.decode, link)
        quietly(lldp.decode, link)
        quietly(cdp.decode, link)
    if pkt.payload is None:
        return
    data = bytes(pkt.payload)
    for decoder in (ndp.decode, snmp.decode, kerberos.decode, dns.decode):
        quietly(decoder, data)
    for at in ntlmssp.find(data):
        quietly(ntlmssp.decode, data[at:])
    for message in smb.messages(data):
        quietly(smb.session_setup, message)
    for msg in quietly(tls.handshake_messages, data) or ():
        if msg.msg_type == tls.CLIENT_HELLO and msg.complete:
            hello = quietly(tls.client_hello, msg.body)
            if hello is not None:
                quietly(ja3, hello), quietly(ja4, hello)


def attempt(frame: bytes) -> None:
    try:
        pkt = decode_frame(1, memoryview(frame), 1, 0.0, len(frame))
        read_everything(pkt)
    except DecodeError:
        pass


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_every_prefix(name):
    frame = FRAMES[name]
    for cut in range(len(frame) + 1):
        attempt(frame[:cut])


@pytest.mark.parametrize("name", sorted(FRAMES))
def test_mutations(name):
    rng = random.Random(name)
    base = FRAMES[name]
    for _ in range(400):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(14, len(data))] = rng.randrange(256)  # the Ethernet header stays
        attempt(bytes(data))
