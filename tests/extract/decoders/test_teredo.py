"""Teredo: IPv6 in UDP, after an optional authentication indicator and origin indication."""

from __future__ import annotations

from tracepcap.extract.decoders import teredo
from tracepcap.synth import tunnels as t

IPV6 = b"\x60" + bytes(39)


def test_bare():
    assert teredo.decode(t.teredo(IPV6), 0) == (None, 0)


def test_origin_indication_is_unobfuscated():
    data = t.teredo(IPV6, origin=("192.0.2.45", 40000))
    assert data[2:4] == bytes((0x63, 0xBF))  # 40000 with every bit inverted, as on the wire
    assert teredo.decode(data, 0) == ("192.0.2.45:40000", 8)


def test_authentication_then_origin():
    data = t.teredo(IPV6, origin=("198.51.100.7", 3544), auth=(b"client", b"\x01\x02", b"N" * 8))
    assert teredo.decode(data, 0) == ("198.51.100.7:3544", 4 + 6 + 2 + 9 + 8)


def test_not_teredo():
    assert teredo.decode(b"\x45" + bytes(39), 0) is None  # IPv4 is not what Teredo carries
    assert teredo.decode(b"\x00\x02" + bytes(10), 0) is None  # no such indicator


def test_truncation_sweep(sweep):
    sweep(lambda buf: teredo.decode(buf, 0),
          t.teredo(IPV6, origin=("198.51.100.7", 3544), auth=(b"c", b"v", b"N" * 8)))


def test_an_ipv6_header_must_fill_the_datagram():
    data = t.teredo(IPV6)  # payload length 0, 40 bytes: it fills the datagram
    assert teredo.decode(data, 0, len(data)) == (None, 0)
    assert teredo.decode(data + b"x", 0, len(data) + 1) is None  # one byte too many: not Teredo
    dns_answer = b"\x61\x23\x81\x80" + bytes(60)  # a DNS answer whose id starts with nibble 6
    assert teredo.decode(dns_answer, 0, len(dns_answer)) is None
