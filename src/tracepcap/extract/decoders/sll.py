"""Linux "cooked" capture headers: SLL (LINKTYPE_LINUX_SLL 113) and SLL2 (276).

See the tcpdump.org link-layer header pages for both layouts. libpcap puts a VLAN tag the
kernel took off back after the header (protocol 0x8100, then the tag and the real
protocol), so tags are read here as Ethernet's are.
"""

from __future__ import annotations

import struct

from . import need
from .ethernet import MAX_TAGS, TAG, VLAN_TPIDS

# SLL: packet type, ARPHRD type, link-layer address length, address (8 bytes), protocol
SLL = struct.Struct("!HHH8sH")
# SLL2: protocol, reserved, interface index, ARPHRD type, packet type, address length, address
SLL2 = struct.Struct("!HHIHBB8s")
ARPHRD_ETHER = 1
PACKET_OUTGOING = 4  # "sent by us": the address field is then our own source address


def decode_sll(buf: memoryview, at: int = 0) -> tuple[bytes | None, int, int, tuple[int, ...]]:
    """Return (source MAC or None, protocol/ethertype, payload offset, VLAN ids)."""
    need("sll", buf, at, SLL.size)
    _pkttype, hatype, halen, addr, proto = SLL.unpack_from(buf, at)
    mac = bytes(addr[:6]) if hatype == ARPHRD_ETHER and halen == 6 else None
    return (mac, *_vlans(buf, proto, at + SLL.size))


def decode_sll2(buf: memoryview, at: int = 0) -> tuple[bytes | None, int, int, tuple[int, ...]]:
    """Return (source MAC or None, protocol/ethertype, payload offset, VLAN ids)."""
    need("sll2", buf, at, SLL2.size)
    proto, _res, _ifindex, hatype, _pkttype, halen, addr = SLL2.unpack_from(buf, at)
    mac = bytes(addr[:6]) if hatype == ARPHRD_ETHER and halen == 6 else None
    return (mac, *_vlans(buf, proto, at + SLL2.size))


def _vlans(buf, proto: int, at: int) -> tuple[int, int, tuple[int, ...]]:
    vlans: tuple[int, ...] = ()
    while proto in VLAN_TPIDS and len(vlans) < MAX_TAGS:
        need("vlan", buf, at, TAG.size)
        tci, proto = TAG.unpack_from(buf, at)
        vlans += (tci & 0x0FFF,)
        at += TAG.size
    return proto, at, vlans
