"""IPv6 Neighbor Discovery (RFC 4861 4): router solicitations and advertisements,
neighbor solicitations and advertisements, carried in ICMPv6, and their link-layer
address options (source 1, target 2). Other ICMPv6 messages are not ND (None)."""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import Malformed, need

ICMP6 = struct.Struct("!BBH")  # type, code, checksum
ROUTER_SOLICIT, ROUTER_ADVERT, NEIGHBOR_SOLICIT, NEIGHBOR_ADVERT = 133, 134, 135, 136
BODY = {ROUTER_SOLICIT: 4, ROUTER_ADVERT: 12, NEIGHBOR_SOLICIT: 20, NEIGHBOR_ADVERT: 20}
OPT_SOURCE_LLA, OPT_TARGET_LLA = 1, 2
NA_ROUTER, NA_SOLICITED, NA_OVERRIDE = 0x80, 0x40, 0x20  # first byte of an NA's flags word
MAX_OPTIONS = 64


class Nd(NamedTuple):
    msg_type: int
    flags: int  # an NA's R/S/O bits (first byte after the checksum), else 0
    target: str | None  # NS and NA: the address asked about or advertised
    source_lla: bytes | None
    target_lla: bytes | None


def decode(buf) -> Nd | None:
    need("icmpv6", buf, 0, ICMP6.size)
    msg_type = buf[0]
    body = BODY.get(msg_type)
    if body is None:
        return None
    need("ndp", buf, ICMP6.size, body)
    flags = buf[ICMP6.size] if msg_type == NEIGHBOR_ADVERT else 0
    target = None
    if msg_type in (NEIGHBOR_SOLICIT, NEIGHBOR_ADVERT):
        target = socket.inet_ntop(socket.AF_INET6, bytes(buf[8:24]))
    at, lla = ICMP6.size + body, {}
    for _ in range(MAX_OPTIONS):
        if at >= len(buf):
            break
        need("ndp-option", buf, at, 2)
        kind, units = buf[at], buf[at + 1]
        if not units:
            raise Malformed("ndp-option", f"option {kind} of length 0")  # RFC 4861 4.6
        need("ndp-option", buf, at, units * 8)
        if kind in (OPT_SOURCE_LLA, OPT_TARGET_LLA):
            lla.setdefault(kind, bytes(buf[at + 2:at + units * 8]))  # 6 bytes on Ethernet
        at += units * 8
    return Nd(msg_type, flags, target, lla.get(OPT_SOURCE_LLA), lla.get(OPT_TARGET_LLA))
