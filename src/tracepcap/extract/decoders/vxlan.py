"""VXLAN (RFC 7348): an Ethernet frame carried in UDP to port 4789 (Linux's default is
8472, from before the IANA assignment), tagged with a 24-bit VXLAN Network Identifier.

On other ports `looks_like` recognises it only when everything fits: the header's
reserved bits zero, then an Ethernet header from a unicast MAC whose ethertype is IPv4 or
IPv6 (VLAN tags allowed) and an IP header of that version. A datagram of another protocol
passes all of these by chance about once in 2**60."""

from __future__ import annotations

import struct

from . import need

VXLAN = struct.Struct("!B3xI")  # flags, 24 reserved bits, VNI (24 bits) + 8 reserved bits
PORT = 4789  # IANA; RFC 7348 5: the destination port, the source port is flow entropy
LINUX_PORT = 8472  # the Linux kernel's default, still used by flannel and others
ETHERNET = 14
IP_VERSIONS = {0x0800: 4, 0x86DD: 6}
VLAN_TPIDS = (0x8100, 0x88A8)
MIN_IP = 20
FLAG_VNI = 0x08  # the I flag: the VNI is valid (RFC 7348 5: must be set)


def decode(buf, at: int) -> tuple[int, int] | None:
    """Return (VNI, offset of the inner Ethernet frame), or None when the header is not
    VXLAN's (I flag clear): another protocol on the same port, not a broken tunnel."""
    need("vxlan", buf, at, VXLAN.size)
    flags, word = VXLAN.unpack_from(buf, at)
    if not flags & FLAG_VNI:
        return None
    return word >> 8, at + VXLAN.size


def looks_like(buf, at: int, end: int) -> bool:
    """Is the datagram payload at `at`..`end` a VXLAN frame carrying IP (module doc)?"""
    if end - at < VXLAN.size + ETHERNET + MIN_IP:
        return False
    flags, word = VXLAN.unpack_from(buf, at)
    if flags != FLAG_VNI or buf[at + 1] or buf[at + 2] or buf[at + 3] or word & 0xFF:
        return False
    eth = at + VXLAN.size
    if buf[eth + 6] & 0x01:  # a group address as the source: no frame a host sent
        return False
    type_at = eth + 12
    ethertype = buf[type_at] << 8 | buf[type_at + 1]
    while ethertype in VLAN_TPIDS and end - type_at >= 6 + MIN_IP:
        type_at += 4
        ethertype = buf[type_at] << 8 | buf[type_at + 1]
    version = IP_VERSIONS.get(ethertype)
    if version is None or end - type_at - 2 < MIN_IP:
        return False
    first = buf[type_at + 2]
    return first >> 4 == version and (version == 6 or first & 0x0F >= 5)
