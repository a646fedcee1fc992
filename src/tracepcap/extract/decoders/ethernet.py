"""Ethernet II (IEEE 802.3) with 802.1Q / 802.1ad (QinQ) VLAN tags."""

from __future__ import annotations

import struct

from . import need

ETH = struct.Struct("!6s6sH")  # destination MAC, source MAC, ethertype (or 802.3 length)
TAG = struct.Struct("!HH")  # tag control (PCP, DEI, VID), inner ethertype
VLAN_TPIDS = frozenset((0x8100, 0x88A8, 0x9100))  # 802.1Q, 802.1ad, pre-standard QinQ
MAX_TAGS = 8  # a frame with more stacked tags than this is not a VLAN frame we trust


def decode(buf: memoryview, at: int = 0) -> tuple[bytes, bytes, int, int, tuple[int, ...]]:
    """Return (dst_mac, src_mac, ethertype, payload_offset, vlan_ids outermost first).

    An 802.3 length field (ethertype < 0x0600) is returned as is; callers treat it as
    "not IP" (LLC/SNAP frames carry STP, CDP, LLDP-like protocols, not hosts' IP traffic).
    """
    need("ethernet", buf, at, ETH.size)
    dst, src, ethertype = ETH.unpack_from(buf, at)
    at += ETH.size
    vlans: tuple[int, ...] = ()
    while ethertype in VLAN_TPIDS and len(vlans) < MAX_TAGS:
        need("vlan", buf, at, TAG.size)
        tci, ethertype = TAG.unpack_from(buf, at)
        vlans += (tci & 0x0FFF,)
        at += TAG.size
    return dst, src, ethertype, at, vlans
