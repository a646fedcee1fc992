"""VXLAN and Geneve headers: the VNI, the inner frame's offset, options skipped."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Truncated, geneve, vxlan
from tracepcap.synth import tunnels as t

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
