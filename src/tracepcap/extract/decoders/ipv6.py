"""IPv6 (RFC 8200) and its extension headers, walked to find the transport protocol."""

from __future__ import annotations

import struct

from . import Malformed, need

IPV6 = struct.Struct("!IHBB16s16s")  # ver/class/flow, payload length, next header, hop limit, src, dst
EXT = struct.Struct("!BB")  # next header, header extension length (units of 8 octets, excl. first 8)
FRAG = struct.Struct("!BBHI")  # next header, reserved, offset/flags, identification
HOP_BY_HOP, ROUTING, FRAGMENT, DEST_OPTS, AUTH, MOBILITY = 0, 43, 44, 60, 51, 135
SKIPPABLE = frozenset((HOP_BY_HOP, ROUTING, DEST_OPTS, MOBILITY))
MAX_EXT_HEADERS = 16  # RFC 8200 allows any number; more than this is an attack, not traffic


def decode(buf: memoryview, at: int = 0) -> tuple[bytes, bytes, int, int, int, int, bool]:
    """Return (src, dst, hop_limit, transport proto, payload_offset, payload_end, first_fragment)."""
    need("ipv6", buf, at, IPV6.size)
    vcf, plen, nxt, hlim, src, dst = IPV6.unpack_from(buf, at)
    if vcf >> 28 != 6:
        raise Malformed("ipv6", f"version {vcf >> 28}")
    at += IPV6.size
    end = min(len(buf), at + plen) if plen else len(buf)  # jumbograms carry length 0
    first = True
    for _ in range(MAX_EXT_HEADERS):
        if nxt in SKIPPABLE:
            need("ipv6-ext", buf, at, EXT.size)
            nxt, hlen = EXT.unpack_from(buf, at)
            at += (hlen + 1) * 8
        elif nxt == AUTH:  # RFC 4302: length in 4-octet units, minus 2
            need("ipv6-ah", buf, at, EXT.size)
            nxt, hlen = EXT.unpack_from(buf, at)
            at += (hlen + 2) * 4
        elif nxt == FRAGMENT:
            need("ipv6-frag", buf, at, FRAG.size)
            nxt, _res, offflags, _ident = FRAG.unpack_from(buf, at)
            first = (offflags >> 3) == 0
            at += FRAG.size
        else:
            if at > end:
                raise Malformed("ipv6", "extension headers run past the payload")
            return src, dst, hlim, nxt, at, end, first
    raise Malformed("ipv6", f"more than {MAX_EXT_HEADERS} extension headers")
