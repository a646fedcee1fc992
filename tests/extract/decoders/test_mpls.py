"""MPLS label stacks and PPPoE sessions: the shims between a link header and IP."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Malformed, Truncated, mpls, pppoe
from tracepcap.testing import tunnels as t

IPV4, IPV6 = b"\x45" + bytes(19), b"\x60" + bytes(39)


@pytest.mark.parametrize("data, expected", [
    (t.mpls([16], IPV4), ((16,), 0x0800, 4)),
    (t.mpls([16, 3001, 1048575], IPV6), ((16, 3001, 1048575), 0x86DD, 12)),
    (t.mpls([299776], bytes(14), control_word=True), ((299776,), mpls.ETHERNET, 8)),
    (t.mpls([5], b"\xaa" * 14), ((5,), 0, 4)),  # an Ethernet pseudowire without control word
])
def test_label_stacks(data, expected):
    assert mpls.decode(data, 0) == expected


def test_no_bottom_of_stack():
    with pytest.raises(Malformed, match="no bottom of stack"):
        mpls.decode(b"\x00\x01\x00\x40" * 17, 0)
    with pytest.raises(Truncated):
        mpls.decode(b"\x00\x01\x00\x40" * 3, 0)


def test_mpls_sweep(sweep):
    sweep(lambda buf: mpls.decode(buf, 0), t.mpls([16, 17, 18], IPV4))


@pytest.mark.parametrize("protocol, ethertype", [(t.PPP_IPV4, 0x0800), (t.PPP_IPV6, 0x86DD),
                                                 (t.PPP_LCP, 0)])
def test_pppoe_session(protocol, ethertype):
    data = t.pppoe_session(0x1234, IPV4, protocol)
    assert pppoe.decode(data, 0) == (0x1234, ethertype, 8, len(data))


def test_pppoe_ethernet_padding_is_not_payload():
    data = t.pppoe_session(1, IPV4) + bytes(10)
    assert pppoe.decode(data, 0)[3] == 8 + len(IPV4)


def test_pppoe_discovery_code_in_a_session_is_malformed():
    data = bytearray(t.pppoe_session(1, IPV4))
    data[1] = 0x09  # PADI
    with pytest.raises(Malformed, match="code 0x09"):
        pppoe.decode(bytes(data), 0)


def test_pppoe_sweep(sweep):
    sweep(lambda buf: pppoe.decode(buf, 0), t.pppoe_session(7, IPV4))
