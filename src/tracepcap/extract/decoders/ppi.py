"""Per-Packet Information (LINKTYPE_PPI 192): a header with the link type of the frame it
precedes (in practice 802.11 or Ethernet), then fields we skip (the PPI specification,
CACE Technologies, 2007)."""

from __future__ import annotations

import struct

from . import Malformed, need

HEADER = struct.Struct("<BBHI")  # version (0), flags, length of the whole header, link type


def decode(buf, at: int = 0) -> tuple[int, int]:
    """Return (the link type of the frame that follows, its offset)."""
    need("ppi", buf, at, HEADER.size)
    version, _flags, length, linktype = HEADER.unpack_from(buf, at)
    if version != 0 or length < HEADER.size:
        raise Malformed("ppi", f"version {version}, header length {length}")
    need("ppi", buf, at, length)
    return linktype, at + length
