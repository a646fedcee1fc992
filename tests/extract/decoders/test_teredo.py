"""Teredo: IPv6 in UDP, after an optional authentication indicator and origin indication."""

from __future__ import annotations

from tracepcap.extract.decoders import teredo
from tracepcap.testing import tunnels as t

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


def ipv6(src: bytes, dst: bytes, payload: bytes = b"") -> bytes:
    return b"\x60" + bytes(3) + len(payload).to_bytes(2, "big") + b"\x3b\x40" + src + dst + payload


TEREDO_ADDR = bytes.fromhex("20010000c000022d0000bfff3fffd2fe")
NATIVE = bytes.fromhex("20010db8000000000000000000000080")


def test_looks_like_a_teredo_packet_on_any_port():
    for data in (ipv6(TEREDO_ADDR, NATIVE, b"x" * 20), ipv6(NATIVE, TEREDO_ADDR)):
        assert teredo.looks_like(data, 0, len(data))


def test_does_not_look_like_teredo():
    native = ipv6(NATIVE, NATIVE, b"x")
    assert not teredo.looks_like(native, 0, len(native))  # 6in4-like, but no Teredo address
    short = ipv6(TEREDO_ADDR, NATIVE, b"xy")
    assert not teredo.looks_like(short + b"z", 0, len(short) + 1)  # the datagram is longer
    assert not teredo.looks_like(short[:39], 0, 39)
    assert not teredo.looks_like(b"\x45" + short[1:], 0, len(short))
