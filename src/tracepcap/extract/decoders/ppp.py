"""PPP as a capture's link layer (LINKTYPE_PPP 9: RFC 1661, with or without the RFC 1662
address and control bytes) and HDLC-framed links (LINKTYPE_PPP_HDLC 50: RFC 1662 PPP, or
Cisco HDLC, whose first byte is 0x0f or 0x8f and whose protocol is an ethertype; the same
Cisco framing is LINKTYPE_C_HDLC 104)."""

from __future__ import annotations

import struct

from . import need
from .pppoe import PPP_ETHERTYPES, ppp_protocol

CISCO_HDLC = struct.Struct("!BBH")  # address (0x0f unicast, 0x8f broadcast), control (0), protocol
CISCO_ADDRESSES = frozenset((0x0F, 0x8F))


def decode_ppp(buf, at: int = 0) -> tuple[int, int]:
    """Return (the IP ethertype carried, or 0 for PPP control protocols, its offset)."""
    protocol, at = ppp_protocol(buf, at)
    return PPP_ETHERTYPES.get(protocol, 0), at


def decode_hdlc(buf, at: int = 0) -> tuple[int, int]:
    """PPP in HDLC-like framing or Cisco HDLC: (ethertype or 0, offset of what follows)."""
    need("hdlc", buf, at, 1)
    if buf[at] in CISCO_ADDRESSES:
        return decode_cisco_hdlc(buf, at)
    return decode_ppp(buf, at)


def decode_cisco_hdlc(buf, at: int = 0) -> tuple[int, int]:
    need("cisco-hdlc", buf, at, CISCO_HDLC.size)
    _address, _control, protocol = CISCO_HDLC.unpack_from(buf, at)
    return protocol, at + CISCO_HDLC.size
