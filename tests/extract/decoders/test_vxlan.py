"""VXLAN and Geneve headers: the VNI, the inner frame's offset, options skipped."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Truncated, geneve, vxlan
from tracepcap.testing import tunnels as t

FRAME = bytes(range(20))


def test_vxlan():
    data = t.vxlan(0xABCDEF, FRAME)
    assert vxlan.decode(data, 0) == (0xABCDEF, 8)
    assert data[8:] == FRAME


def test_vxlan_without_the_i_flag_is_not_vxlan():
    assert vxlan.decode(b"\x00" * 8 + FRAME, 0) is None


def test_vxlan_cut_short(sweep):
    with pytest.raises(Truncated):
        vxlan.decode(t.vxlan(1, b"")[:7], 0)
    sweep(lambda buf: vxlan.decode(buf, 0), t.vxlan(5, FRAME))


def test_geneve_with_options():
    options = t.geneve_option(0x0102, 0x80, b"12345678") + t.geneve_option(0xFFFF, 1, b"x")
    data = t.geneve(77, FRAME, options=options)
    assert geneve.decode(data, 0) == (77, geneve.ETHERTYPE_TEB, 8 + len(options))
    assert geneve.decode(t.geneve(3, FRAME, protocol=0x0800), 0) == (3, 0x0800, 8)


def test_geneve_of_an_unknown_version_is_not_geneve():
    data = bytearray(t.geneve(1, FRAME))
    data[0] |= 0x40
    assert geneve.decode(bytes(data), 0) is None


def test_geneve_options_cut_short(sweep):
    data = t.geneve(1, b"", options=t.geneve_option(1, 1, b"12345678"))
    with pytest.raises(Truncated):
        geneve.decode(data[:-1], 0)
    sweep(lambda buf: geneve.decode(buf, 0), t.geneve(9, FRAME, options=t.geneve_option(1, 2, b"ab")))


def ip_frame(src_mac=b"\x02" + bytes(5), ethertype=b"\x08\x00", first=b"\x45", tags=b""):
    return bytes(6) + src_mac + tags + ethertype + first + bytes(39)


@pytest.mark.parametrize("frame", [ip_frame(), ip_frame(ethertype=b"\x86\xdd", first=b"\x60"),
                                   ip_frame(tags=b"\x81\x00\x00\x64")])
def test_looks_like_vxlan_carrying_ip(frame):
    data = t.vxlan(5001, frame)
    assert vxlan.looks_like(data, 0, len(data))


@pytest.mark.parametrize("data", [
    b"\x0c" + bytes(7) + ip_frame(),  # a VXLAN-GPE flag
    b"\x08\x00\x00\x01" + bytes(4) + ip_frame(),  # reserved bits set
    b"\x08" + bytes(6) + b"\x01" + ip_frame(),  # the reserved last byte set
    t.vxlan(1, ip_frame(src_mac=b"\x01" + bytes(5))),  # a multicast source
    t.vxlan(1, ip_frame(ethertype=b"\x08\x06")),  # ARP: no IP packet to read
    t.vxlan(1, ip_frame(first=b"\x65")),  # the wrong IP version
    t.vxlan(1, ip_frame(first=b"\x44")),  # an IPv4 header shorter than 20 bytes
    t.vxlan(1, ip_frame())[:41],
])
def test_does_not_look_like_vxlan(data):
    assert not vxlan.looks_like(data, 0, len(data))
