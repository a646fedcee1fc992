"""GTP-U (3GPP TS 29.281): user-plane packets of a mobile core in UDP port 2152, each
tunnel named at its receiving end by a 32-bit TEID. Only G-PDUs (message type 255) carry
a user packet; echo, error indication and end marker are path management.
"""

from __future__ import annotations

import struct

from . import Malformed, need

GTP = struct.Struct("!BBHI")  # flags, message type, length (after these 8 bytes), TEID
OPTIONAL = struct.Struct("!HBB")  # sequence number, N-PDU number, next extension header type
PORT = 2152
VERSION_1, PROTOCOL_TYPE = 1, 0x10  # flags: version in the top 3 bits, PT 1 = GTP (not GTP')
HAS_OPTIONAL = 0x07  # E, S or PN: the 4 optional bytes are present
G_PDU = 0xFF
MAX_EXTENSIONS = 16  # TS 29.281 5.2 chains extension headers; more than this is not traffic


def decode(buf, at: int) -> tuple[int, int, int, int] | None:
    """Return (TEID, message type, offset of the inner packet, end of the message), or None
    when the header is not GTPv1-U."""
    need("gtp-u", buf, at, GTP.size)
    flags, msg_type, length, teid = GTP.unpack_from(buf, at)
    if flags >> 5 != VERSION_1 or not flags & PROTOCOL_TYPE:
        return None
    end = min(len(buf), at + GTP.size + length)
    at += GTP.size
    if flags & HAS_OPTIONAL:
        need("gtp-u", buf, at, OPTIONAL.size)
        next_type = OPTIONAL.unpack_from(buf, at)[2]
        at += OPTIONAL.size
        for _ in range(MAX_EXTENSIONS):
            if not next_type:
                break
            need("gtp-u-extension", buf, at, 1)
            size = buf[at] * 4  # TS 29.281 5.2.1: length in 4-octet units, incl. itself
            if not size:
                raise Malformed("gtp-u-extension", "length 0")
            need("gtp-u-extension", buf, at, size)
            next_type = buf[at + size - 1]
            at += size
        else:
            raise Malformed("gtp-u", f"more than {MAX_EXTENSIONS} extension headers")
    return teid, msg_type, at, end
