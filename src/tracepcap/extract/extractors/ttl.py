"""`ttl` facts: the IPv4 TTL / IPv6 hop limit of unicast packets each host sent, as observed.

Multicast and broadcast packets are left out: their TTL is set by the protocol, not the
host's stack (mDNS always 255 by RFC 6762, LLMNR 1 by RFC 4795)."""

from __future__ import annotations

from ..extractor import Extractor
from ..kinds import TTL
from ..packet import is_group

TEXT = tuple(str(n) for n in range(256))  # a TTL or hop limit is one byte; str() per packet showed


class Ttl(Extractor):
    NAME = "ttl"
    VERSION = "1"
    KINDS = (TTL,)
    SENDERS = True  # the pipeline tallies (src, MAC, TTL, VLANs, to a group) and counts repeats

    def sighted(self, pkt) -> None:
        if not is_group(pkt):
            self.emit.fact(pkt.src, TTL, TEXT[pkt.ttl], pkt.frame, pkt.ts)

    def repeated(self, tallies) -> None:
        for (src, _mac, ttl, _vlans, group), (times, frame, ts) in tallies.items():
            if times and not group:
                self.emit.again(src, TTL, TEXT[ttl], times, frame, ts)
