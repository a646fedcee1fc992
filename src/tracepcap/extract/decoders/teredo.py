"""Teredo (RFC 4380): IPv6 in UDP through IPv4 NATs, server and relay port 3544. Before
the IPv6 packet a server or relay may put an authentication indicator and an origin
indication, the IPv4 address and port the packet came from, each bit inverted (5.1.1).

Port 3544 is the server's; a client talks to relays and to other clients from the port
its NAT gave it, to whatever port theirs did. On other ports `looks_like` recognises a
bare Teredo datagram: an IPv6 header whose payload length fills the datagram exactly and
one of whose addresses is a Teredo address (2001::/32, 2.1).
"""

from __future__ import annotations

import socket
import struct

from . import need

PORT = 3544
AUTH = struct.Struct("!HBB")  # indicator type 0x0001, client id length, auth value length
AUTH_TAIL = 9  # nonce (8 bytes) and confirmation byte after the id and value
ORIGIN = struct.Struct("!HH4s")  # indicator type 0x0000, port and address, bits inverted
AUTH_TYPE, ORIGIN_TYPE = 0x0001, 0x0000
IPV6_HEADER = 40  # RFC 4380 5.1.1: the IPv6 packet is the rest of the datagram
TEREDO_PREFIX = b"\x20\x01\x00\x00"  # 2001::/32
SRC_AT, DST_AT = 8, 24  # address offsets in the IPv6 header


def decode(buf, at: int, end: int | None = None) -> tuple[str | None, int] | None:
    """Return (origin "address:port" or None, offset of the IPv6 packet), or None when no
    IPv6 packet follows the optional indicators, or when its payload length does not fill
    the datagram to `end` (not Teredo: a datagram from an old ephemeral port 3544)."""
    need("teredo", buf, at, 1)
    if buf[at] == 0 and len(buf) - at >= 2 and buf[at + 1] == AUTH_TYPE:
        need("teredo-auth", buf, at, AUTH.size)
        _type, id_len, value_len = AUTH.unpack_from(buf, at)
        at += AUTH.size + id_len + value_len + AUTH_TAIL
        need("teredo-auth", buf, at, 0)
    origin = None
    need("teredo", buf, at, 1)
    if buf[at] == 0:
        need("teredo-origin", buf, at, ORIGIN.size)
        kind, port, addr = ORIGIN.unpack_from(buf, at)
        if kind != ORIGIN_TYPE:
            return None
        origin = f"{socket.inet_ntoa(bytes(b ^ 0xFF for b in addr))}:{port ^ 0xFFFF}"
        at += ORIGIN.size
        need("teredo", buf, at, 1)
    if buf[at] >> 4 != 6:
        return None
    if end is not None and len(buf) - at >= IPV6_HEADER and end - at - IPV6_HEADER != \
            (buf[at + 4] << 8 | buf[at + 5]):
        return None
    return origin, at


def looks_like(buf, at: int, end: int) -> bool:
    """Is the datagram payload at `at`..`end` a bare Teredo packet (module doc)?"""
    if end - at < IPV6_HEADER or buf[at] >> 4 != 6 \
            or end - at - IPV6_HEADER != (buf[at + 4] << 8 | buf[at + 5]):
        return False
    return buf[at + SRC_AT:at + SRC_AT + 4] == TEREDO_PREFIX \
        or buf[at + DST_AT:at + DST_AT + 4] == TEREDO_PREFIX
