"""VXLAN (RFC 7348): an Ethernet frame carried in UDP to port 4789, tagged with a 24-bit
VXLAN Network Identifier (VNI)."""

from __future__ import annotations

import struct

from . import need

VXLAN = struct.Struct("!B3xI")  # flags, 24 reserved bits, VNI (24 bits) + 8 reserved bits
PORT = 4789  # IANA; RFC 7348 5: the destination port, the source port is flow entropy
FLAG_VNI = 0x08  # the I flag: the VNI is valid (RFC 7348 5: must be set)


def decode(buf, at: int) -> tuple[int, int] | None:
    """Return (VNI, offset of the inner Ethernet frame), or None when the header is not
    VXLAN's (I flag clear): another protocol on the same port, not a broken tunnel."""
    need("vxlan", buf, at, VXLAN.size)
    flags, word = VXLAN.unpack_from(buf, at)
    if not flags & FLAG_VNI:
        return None
    return word >> 8, at + VXLAN.size
