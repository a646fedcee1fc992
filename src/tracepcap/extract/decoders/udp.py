"""UDP (RFC 768)."""

from __future__ import annotations

import struct

from . import need

UDP = struct.Struct("!HHHH")  # sport, dport, length, checksum


def decode(buf: memoryview, at: int, end: int) -> tuple[int, int, int, int]:
    """Return (sport, dport, payload_offset, payload_end); the length field bounds the payload."""
    need("udp", buf, at, UDP.size)
    sport, dport, length, _csum = UDP.unpack_from(buf, at)
    stop = at + length if length >= UDP.size else end  # length 0: jumbo or TSO, use IP's end
    return sport, dport, at + UDP.size, min(stop, end)
