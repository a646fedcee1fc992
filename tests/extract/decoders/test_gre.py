"""GRE headers (checksum, key, sequence; PPTP's enhanced GRE) and the ERSPAN headers of
types I, II and III inside them."""

from __future__ import annotations

import struct

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, gre
from tracepcap.testing import tunnels as t

FRAME = bytes(range(40))


@pytest.mark.parametrize("data, expected", [
    (t.gre(0x0800, FRAME), ("gre", None, 0x0800, 4)),
    (t.gre(0x86DD, FRAME, key=9), ("gre", 9, 0x86DD, 8)),
    (t.gre(0x6558, FRAME, key=1, sequence=2, checksum=True), ("gre", 1, 0x6558, 16)),
    (t.erspan_i(FRAME), ("erspan-i", None, 0x6558, 4)),
    (t.erspan_ii(1023, FRAME, vlan=30, sequence=5), ("erspan-ii", 1023, 0x6558, 16)),
    (t.erspan_iii(6, FRAME), ("erspan-iii", 6, 0x6558, 20)),
    (t.erspan_iii(6, FRAME, platform=bytes(8)), ("erspan-iii", 6, 0x6558, 28)),
    (t.erspan_iii(6, b"\x45" + FRAME, ip_packet=True), ("erspan-iii", 6, 0x0800, 20)),
])
def test_headers(data, expected):
    assert gre.decode(data, 0) == expected


def test_pptp_enhanced_gre_carries_ppp():
    # RFC 2637 4.1: version 1, key present (payload length, call id), sequence, PPP
    header = struct.pack("!HHHHI", 0x3001, 0x880B, 24, 0x1234, 7)
    assert gre.decode(header + b"\xff\x03\x00\x21" + FRAME, 0) == ("gre", 0x1234, 0x0800, 16)
    assert gre.decode(header + b"\x21" + FRAME, 0) == ("gre", 0x1234, 0x0800, 13)  # compressed
    assert gre.decode(header + b"\x00\xfd" + FRAME, 0)[2] == 0  # MPPE: encrypted, unreadable


@pytest.mark.parametrize("data, message", [
    (struct.pack("!HH", 0x0002, 0x0800), "version 2"),
    (struct.pack("!HH", 0x4000, 0x0800), "source routing"),
    (t.gre(0x88BE, struct.pack("!HHI", 2 << 12, 1, 0) + FRAME, sequence=1), "version 2 in a type 2"),
])
def test_malformed(data, message):
    with pytest.raises(Malformed, match=message):
        gre.decode(data, 0)


@pytest.mark.parametrize("data", [t.gre(0x0800, b"", key=1, sequence=1)[:-1],
                                  t.erspan_ii(1, b"")[:-1], t.erspan_iii(1, b"", platform=bytes(8))[:-1]])
def test_truncated(data):
    with pytest.raises(Truncated):
        gre.decode(data, 0)


@pytest.mark.parametrize("data", [t.gre(0x0800, FRAME, key=1, sequence=2, checksum=True),
                                  t.erspan_ii(3, FRAME), t.erspan_iii(3, FRAME, platform=bytes(8))])
def test_truncation_sweep(data, sweep):
    sweep(lambda buf: gre.decode(buf, 0), data)
