"""`ssdp-nt`, `ssdp-usn` and `ssdp-server` facts: what a UPnP device announces about itself
(NOTIFY) or answers to a search (ST in place of NT), on the sender; and `user-agent` facts
(source ssdp) from the USER-AGENT header a control point sends in its searches (UPnP Device
Architecture 2.0 1.3.2: "OS/version UPnP/2.0 product/version", e.g. "Google Chrome/83.0.4103.34
Mac OS X"), on the searcher."""

from __future__ import annotations

from ..decoders import ssdp
from ..extractor import Extractor
from ..kinds import SSDP_NT, SSDP_SERVER, SSDP_USN, USER_AGENT

SSDP_PORT = 1900


class Ssdp(Extractor):
    NAME, VERSION = "ssdp", "2"
    KINDS = (SSDP_NT, SSDP_USN, SSDP_SERVER, USER_AGENT)
    UDP_PORTS = frozenset((SSDP_PORT,))

    def observe(self, pkt, flow) -> None:
        msg = ssdp.decode(pkt.payload)
        if agent := msg.headers.get("user-agent"):
            self.emit.fact(pkt.src, USER_AGENT, agent, pkt.frame, pkt.ts)
        if msg.kind == "search":
            return
        kinds = ((SSDP_NT, msg.headers.get("nt") or msg.headers.get("st")),
                 (SSDP_USN, msg.headers.get("usn")), (SSDP_SERVER, msg.headers.get("server")))
        for kind, value in kinds:
            if value:
                self.emit.fact(pkt.src, kind, value, pkt.frame, pkt.ts)
