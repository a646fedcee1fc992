"""`ttl` facts: the IPv4 TTL / IPv6 hop limit of packets each host sent, as observed."""

from __future__ import annotations

from ..extractor import Extractor
from ..facts import FactKind, Grade

TTL = FactKind("ttl", Grade.MEASURED)


class Ttl(Extractor):
    NAME, VERSION = "ttl", "1"
    KINDS = (TTL,)
    EVERY_IP = True

    def observe(self, pkt, flow) -> None:
        self.emit.fact(pkt.src, TTL, str(pkt.ttl), pkt.frame, pkt.ts)
