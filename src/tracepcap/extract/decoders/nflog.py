"""Linux netfilter NFLOG captures (LINKTYPE_NFLOG 239): a 4-byte header (address family,
version, resource id) and type-length-value attributes, one of which holds the packet.

The attributes' length and type are in the byte order of the host that captured (the
capture file's, which a link decoder is not told): the first attribute says it, since
every type is below 256.
See the tcpdump.org LINKTYPE_NFLOG page and linux/netfilter/nfnetlink_log.h.
"""

from __future__ import annotations

import struct

from . import Malformed, need

HEADER = struct.Struct("!BBH")  # address family, version (0), resource id
TLV = {"<": struct.Struct("<HH"), ">": struct.Struct(">HH")}  # length (with itself), type
PACKET_HDR = struct.Struct("!HBB")  # hardware protocol (an ethertype), hook, pad
HWADDR = struct.Struct("!HH8s")  # address length, pad, address
NFULA_PACKET_HDR, NFULA_HWADDR, NFULA_PAYLOAD = 1, 8, 9
AF_INET, AF_INET6 = 2, 10
FAMILY_ETHERTYPES = {AF_INET: 0x0800, AF_INET6: 0x86DD}
MAX_TYPE = 0xFF  # attribute types are small: a larger one means the other byte order


def decode(buf, at: int = 0) -> tuple[bytes | None, int, int]:
    """Return (the source hardware address when it is a MAC, the ethertype of the logged
    packet or 0, its offset). A record without a payload attribute (only a prefix, or a
    packet not copied) comes back with ethertype 0 and nothing after it."""
    need("nflog", buf, at, HEADER.size)
    family, version, _resource = HEADER.unpack_from(buf, at)
    if version != 0:
        raise Malformed("nflog", f"version {version}")
    at += HEADER.size
    order = "<"
    if len(buf) - at >= 4 and TLV["<"].unpack_from(buf, at)[1] > MAX_TYPE:
        order = ">"
    tlv = TLV[order]
    mac, ethertype = None, FAMILY_ETHERTYPES.get(family, 0)
    while len(buf) - at >= tlv.size:
        length, kind = tlv.unpack_from(buf, at)
        if length < tlv.size:
            raise Malformed("nflog", f"attribute of length {length}")
        kind &= 0x7FFF  # the top bit flags a nested attribute
        if kind == NFULA_PAYLOAD:  # may be cut short by the snap length: IP clips it
            return mac, ethertype, at + tlv.size
        need("nflog-attribute", buf, at, length)
        if kind == NFULA_HWADDR and length >= tlv.size + HWADDR.size:
            size, _pad, addr = HWADDR.unpack_from(buf, at + tlv.size)
            mac = bytes(addr[:6]) if size == 6 else None
        elif kind == NFULA_PACKET_HDR and not ethertype and length >= tlv.size + PACKET_HDR.size:
            ethertype = PACKET_HDR.unpack_from(buf, at + tlv.size)[0]
        at += (length + 3) & ~3  # attributes are padded to 4 bytes
    if len(buf) > at:
        need("nflog-attribute", buf, at, tlv.size)
    return mac, 0, len(buf)
