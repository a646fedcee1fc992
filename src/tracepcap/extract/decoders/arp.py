"""ARP (RFC 826) for IPv4 over Ethernet-like links: who has an address, who says it is at
a hardware address. Gratuitous ARP and ARP announcements (RFC 5227 2.3) are requests or
replies whose sender and target address are the same; probes (RFC 5227 2.1.1) come from
0.0.0.0 and claim nothing.
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import need

ARP = struct.Struct("!HHBBH")  # hardware type, protocol type, hardware length, protocol length, op
ETHERTYPE_ARP = 0x0806
PTYPE_IPV4 = 0x0800
REQUEST, REPLY = 1, 2
MAC_LEN, IPV4_LEN = 6, 4


class Arp(NamedTuple):
    op: int
    sender_mac: bytes
    sender_ip: str
    target_mac: bytes
    target_ip: str

    @property
    def gratuitous(self) -> bool:
        """An announcement of the sender's own address (sender = target, not 0.0.0.0)."""
        return self.sender_ip == self.target_ip and self.sender_ip != "0.0.0.0"


def decode(buf) -> Arp | None:
    """The ARP message at the start of `buf`, or None when it is not IPv4 over 6-byte
    hardware addresses (ARP for other protocols or links)."""
    need("arp", buf, 0, ARP.size)
    _htype, ptype, hlen, plen, op = ARP.unpack_from(buf, 0)
    if ptype != PTYPE_IPV4 or hlen != MAC_LEN or plen != IPV4_LEN:
        return None
    need("arp", buf, ARP.size, 2 * (MAC_LEN + IPV4_LEN))
    at = ARP.size
    sha, spa = bytes(buf[at:at + 6]), socket.inet_ntoa(buf[at + 6:at + 10])
    tha, tpa = bytes(buf[at + 10:at + 16]), socket.inet_ntoa(buf[at + 16:at + 20])
    return Arp(op, sha, spa, tha, tpa)
