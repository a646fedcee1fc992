"""Teredo (RFC 4380): IPv6 in UDP through IPv4 NATs, server and relay port 3544. Before
the IPv6 packet a server or relay may put an authentication indicator and an origin
indication, the IPv4 address and port the packet came from, each bit inverted (5.1.1).
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
