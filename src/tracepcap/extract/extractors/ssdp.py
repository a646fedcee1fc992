"""`ssdp-nt`, `ssdp-usn` and `ssdp-server` facts: what a UPnP device announces about itself
(NOTIFY) or answers to a search (ST in place of NT), on the sender."""

from __future__ import annotations

from ..decoders import ssdp
from ..extractor import Extractor
from ..kinds import SSDP_NT, SSDP_SERVER, SSDP_USN


class Ssdp(Extractor):
    NAME, VERSION = "ssdp", "1"
    KINDS = (SSDP_NT, SSDP_USN, SSDP_SERVER)
    UDP_PORTS = frozenset((1900,))

    def observe(self, pkt, flow) -> None:
        msg = ssdp.decode(pkt.payload)
        if msg.kind == "search":
            return
        kinds = ((SSDP_NT, msg.headers.get("nt") or msg.headers.get("st")),
                 (SSDP_USN, msg.headers.get("usn")), (SSDP_SERVER, msg.headers.get("server")))
        for kind, value in kinds:
            if value:
                self.emit.fact(pkt.src, kind, value, pkt.frame, pkt.ts)
