"""TCP (RFC 9293) header and the options a SYN signature is made of."""

from __future__ import annotations

import struct

from . import Malformed, need

TCP = struct.Struct("!HHIIBBHHH")  # sport, dport, seq, ack, data offset, flags, window, csum, urgent
FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10
# Option kinds (IANA "TCP Option Kind Numbers") and the short names p0f made customary.
OPTION_NAMES = {0: "eol", 1: "nop", 2: "mss", 3: "ws", 4: "sok", 5: "sack", 8: "ts"}


def decode(buf: memoryview, at: int) -> tuple[int, int, int, int, int, int, int, int]:
    """Return (sport, dport, seq, ack, flags, window, options_offset, payload_offset)."""
    need("tcp", buf, at, TCP.size)
    sport, dport, seq, ack, off, flags, window, _csum, _urg = TCP.unpack_from(buf, at)
    hlen = (off >> 4) * 4
    if hlen < 20:
        raise Malformed("tcp", f"data offset {hlen}")
    need("tcp", buf, at, hlen)
    return sport, dport, seq, ack, flags, window, at + TCP.size, at + hlen


def options(buf: memoryview, at: int, end: int) -> tuple[list[str], int | None, int | None]:
    """Walk TCP options; return (option names in order, MSS or None, window scale or None)."""
    names: list[str] = []
    mss = wscale = None
    while at < end:
        kind = buf[at]
        if kind == 0:
            names.append("eol")
            break
        if kind == 1:
            names.append("nop")
            at += 1
            continue
        if at + 1 >= end:
            raise Malformed("tcp-options", f"option {kind} has no length byte")
        length = buf[at + 1]
        if length < 2 or at + length > end:
            raise Malformed("tcp-options", f"option {kind} length {length}")
        if kind == 2 and length == 4:
            mss = (buf[at + 2] << 8) | buf[at + 3]
        elif kind == 3 and length == 3:
            wscale = buf[at + 2]
        names.append(OPTION_NAMES.get(kind, f"opt{kind}"))
        at += length
    return names, mss, wscale
