"""PPPoE session stage (RFC 2516, ethertype 0x8864) and the PPP protocol field (RFC 1661)
that says what the session carries. Discovery (0x8863) carries no hosts' traffic."""

from __future__ import annotations

import struct

from . import Malformed, need

PPPOE = struct.Struct("!BBHH")  # version/type (0x11), code (0 in a session), session id, length
ETHERTYPE_SESSION = 0x8864
VERSION_TYPE = 0x11
PPP_IPV4, PPP_IPV6 = 0x0021, 0x0057  # RFC 1332, RFC 5072
PPP_ETHERTYPES = {PPP_IPV4: 0x0800, PPP_IPV6: 0x86DD}


def ppp_protocol(buf, at: int) -> tuple[int, int]:
    """The PPP protocol at `at` (one byte when field compression made it odd, RFC 1661
    6.5; an address/control 0xff03 prefix skipped) and the offset after it."""
    need("ppp", buf, at, 1)
    if buf[at] == 0xFF:
        need("ppp", buf, at, 2)
        at += 2
        need("ppp", buf, at, 1)
    if buf[at] & 1:
        return buf[at], at + 1
    need("ppp", buf, at, 2)
    return buf[at] << 8 | buf[at + 1], at + 2


def decode(buf, at: int) -> tuple[int, int, int, int]:
    """Return (session id, the IP ethertype carried or 0 for PPP control, offset of the
    PPP payload, its end)."""
    need("pppoe", buf, at, PPPOE.size)
    vertype, code, session, length = PPPOE.unpack_from(buf, at)
    if vertype != VERSION_TYPE or code:
        raise Malformed("pppoe", f"version/type {vertype:#04x}, code {code:#04x} in a session")
    at += PPPOE.size
    end = min(len(buf), at + length)
    protocol, at = ppp_protocol(buf, at)
    return session, PPP_ETHERTYPES.get(protocol, 0), at, end
