"""MPLS label stacks (RFC 3032), ethertypes 0x8847/0x8848. What follows the bottom of the
stack is not named anywhere: an IPv4 or IPv6 packet by its version nibble, or, after a
pseudowire control word whose first nibble is 0 (RFC 4385), an Ethernet frame.
"""

from __future__ import annotations

import struct

from . import Malformed, need

ENTRY = struct.Struct("!I")  # label (20 bits), traffic class (3), bottom of stack (1), TTL (8)
ETHERTYPES = frozenset((0x8847, 0x8848))  # unicast, multicast
BOTTOM = 0x100
MAX_LABELS = 16  # real stacks hold a handful; a longer one is noise, not a packet
CONTROL_WORD = 4
ETHERTYPE_IPV4, ETHERTYPE_IPV6, ETHERNET = 0x0800, 0x86DD, 0x6558


def decode(buf, at: int) -> tuple[tuple[int, ...], int, int]:
    """Return (labels outermost first, what follows: an IP ethertype, ETHERNET, or 0 when
    it cannot be told, offset of what follows)."""
    labels: list[int] = []
    for _ in range(MAX_LABELS):
        need("mpls", buf, at, ENTRY.size)
        entry = ENTRY.unpack_from(buf, at)[0]
        labels.append(entry >> 12)
        at += ENTRY.size
        if entry & BOTTOM:
            break
    else:
        raise Malformed("mpls", f"no bottom of stack in {MAX_LABELS} labels")
    need("mpls-payload", buf, at, 1)
    nibble = buf[at] >> 4
    if nibble == 4:
        return tuple(labels), ETHERTYPE_IPV4, at
    if nibble == 6:
        return tuple(labels), ETHERTYPE_IPV6, at
    if nibble == 0:
        need("mpls-control-word", buf, at, CONTROL_WORD)
        return tuple(labels), ETHERNET, at + CONTROL_WORD
    return tuple(labels), 0, at
