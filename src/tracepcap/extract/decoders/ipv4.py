"""IPv4 (RFC 791), with enough fragment handling (RFC 815) not to misattribute ports."""

from __future__ import annotations

import struct

from . import Malformed, need

IPV4 = struct.Struct("!BBHHHBBH4s4s")  # ver/ihl, tos, total length, id, flags/frag, ttl, proto, csum, src, dst
MF = 0x2000
OFFSET_MASK = 0x1FFF


def decode(buf: memoryview, at: int = 0) -> tuple[bytes, bytes, int, int, int, int, int, bool, bool]:
    """Return (src, dst, ttl, proto, payload_offset, payload_end, ident, first_fragment, more_fragments).

    A non-first fragment (offset > 0) carries no transport header; callers must not read ports
    from it. The payload end honours the total length field, so Ethernet padding is not payload;
    a total length beyond the captured bytes is clipped (snaplen), not an error.
    """
    need("ipv4", buf, at, IPV4.size)
    vihl, _tos, total, ident, frag, ttl, proto, _csum, src, dst = IPV4.unpack_from(buf, at)
    if vihl >> 4 != 4:
        raise Malformed("ipv4", f"version {vihl >> 4}")
    ihl = (vihl & 0x0F) * 4
    if ihl < 20:
        raise Malformed("ipv4", f"header length {ihl}")
    need("ipv4", buf, at, ihl)
    end = at + total if total >= ihl else len(buf)  # TSO captures write total length 0
    if end > len(buf):
        end = len(buf)
    return src, dst, ttl, proto, at + ihl, end, ident, (frag & OFFSET_MASK) == 0, bool(frag & MF)
