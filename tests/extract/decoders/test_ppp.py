"""PPP and HDLC link layers: the IP ethertype from the PPP protocol (with or without the
address and control bytes, field-compressed or not) or the Cisco HDLC ethertype."""

from __future__ import annotations

import pytest

from tracepcap.extract.decoders import Truncated, ppp
from tracepcap.testing import links


def test_ppp_framings():
    assert ppp.decode_ppp(links.ppp(links.PPP_IPV4, b"ip")) == (0x0800, 4)
    assert ppp.decode_ppp(links.ppp(links.PPP_IPV6, b"ip", address_control=False)) == (0x86DD, 2)
    assert ppp.decode_ppp(b"\x21ip") == (0x0800, 1)  # protocol field compression
    assert ppp.decode_ppp(links.ppp(links.PPP_LCP, b"lcp")) == (0, 4)


def test_hdlc_is_ppp_or_cisco():
    assert ppp.decode_hdlc(links.ppp(links.PPP_IPV4, b"ip")) == (0x0800, 4)
    assert ppp.decode_hdlc(links.cisco_hdlc(0x86DD, b"ip")) == (0x86DD, 4)
    assert ppp.decode_hdlc(links.cisco_hdlc(0x8035, b"slarp", broadcast=True)) == (0x8035, 4)


def test_cut_short(sweep):
    with pytest.raises(Truncated):
        ppp.decode_hdlc(b"\x0f\x00")
    sweep(ppp.decode_ppp, links.ppp(links.PPP_IPV4, b""))
    sweep(ppp.decode_hdlc, links.cisco_hdlc(0x0800, b""))
