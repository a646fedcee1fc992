"""Radiotap (LINKTYPE_IEEE802_11_RADIOTAP 127): radio metadata before an 802.11 frame. Only
its length is read, to find the frame (radiotap.org, "Radiotap header")."""

from __future__ import annotations

import struct

from . import Malformed, need

HEADER = struct.Struct("<BBHI")  # version (0), pad, length of the whole header, present bits


def decode(buf, at: int = 0) -> int:
    """Return the offset of the 802.11 frame."""
    need("radiotap", buf, at, HEADER.size)
    version, _pad, length, _present = HEADER.unpack_from(buf, at)
    if version != 0 or length < HEADER.size:
        raise Malformed("radiotap", f"version {version}, header length {length}")
    need("radiotap", buf, at, length)
    return at + length
