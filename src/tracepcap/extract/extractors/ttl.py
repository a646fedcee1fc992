"""`ttl` facts: the IPv4 TTL / IPv6 hop limit of unicast packets each host sent, as observed.

Multicast and broadcast packets are left out: their TTL is set by the protocol, not the
host's stack (mDNS always 255 by RFC 6762, LLMNR 1 by RFC 4795)."""

from __future__ import annotations

from ..extractor import Extractor
from ..kinds import TTL
from ..packet import is_group


TEXT = tuple(str(n) for n in range(256))  # a TTL or hop limit is one byte; str() per packet showed


class Ttl(Extractor):
    NAME, VERSION = "ttl", "1"
    KINDS = (TTL,)
    EVERY_IP = True

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        # (host, ttl) -> [repeats, last frame, last time]: a fact on nearly every packet is
        # emitted once and its repeats counted here (bounded like the fact table; past the
        # bound a new key is emitted on every packet, as before)
        self._repeats: dict[tuple[str, int], list] = {}

    def observe(self, pkt, flow) -> None:
        dst_mac = pkt.dst_mac
        if dst_mac is not None:  # `is_group` for a frame with a link layer, without the call
            if dst_mac[0] & 0x01:
                return
        elif is_group(pkt):
            return
        repeats = self._repeats.get((pkt.src, pkt.ttl))
        if repeats is not None:
            repeats[0] += 1
            repeats[1], repeats[2] = pkt.frame, pkt.ts
            return
        if len(self._repeats) < self.limits.max_facts:
            self._repeats[(pkt.src, pkt.ttl)] = [0, 0, 0.0]
        self.emit.fact(pkt.src, TTL, TEXT[pkt.ttl], pkt.frame, pkt.ts)

    def finish(self) -> None:
        for (src, ttl), (times, frame, ts) in self._repeats.items():
            if times:
                self.emit.again(src, TTL, TEXT[ttl], times, frame, ts)
