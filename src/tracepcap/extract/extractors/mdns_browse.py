"""`mdns-query` facts: the DNS-SD service types a host browses for over mDNS (RFC 6763 4:
a PTR question for `_service._proto.local`, or its subtype `_sub._service._proto.local`),
on the asker. MEASURED: the host asked; what it looks for says what it is for (a phone's
Home app browses `_homekit._tcp`, its Continuity `_companion-link._tcp`, a cast sender
`_googlecast._tcp`), though a query asserts nothing about the asker's own services.
`_services._dns-sd._udp` (enumerate every type) names no type and is left out.
A subtype browse (RFC 6763 7.1) is also kept whole, beside its type: the subtype says what
the browser filters for (`_cc32e753._sub._googlecast._tcp`: a Cast sender app discovering
receivers that run its receiver app, by that app's id).
"""

from __future__ import annotations

from ..decoders import dns
from ..extractor import Extractor
from ..kinds import MDNS_QUERY

MDNS_PORT = 5353
BROWSE_TYPES = frozenset((dns.PTR, 255))  # PTR, and ANY (some stacks browse with it)
ENUMERATE = "_services._dns-sd._udp"


def browsed(name: str) -> str:
    """`_ab12._sub._googlecast._tcp.local` and `_googlecast._tcp.local` -> `_googlecast._tcp`;
    "" for a name that is no service type (a host name, an instance)."""
    labels = name.rstrip(".").lower().split(".")
    if len(labels) < 3 or labels[-1] != "local" or labels[-2] not in ("_tcp", "_udp"):
        return ""
    kind = labels[-3]
    rest = labels[:-3]
    if not kind.startswith("_") or (rest and rest[-1] != "_sub"):
        return ""  # "Office._ipp._tcp.local" is an instance, not a type
    found = f"{kind}.{labels[-2]}"
    return "" if found == ENUMERATE else found


def subtype(name: str) -> str:
    """`_ab12._sub._googlecast._tcp.local` -> `_ab12._sub._googlecast._tcp`; "" for a name
    that is no subtype browse."""
    labels = name.rstrip(".").lower().split(".")
    if len(labels) != 5 or labels[1] != "_sub" or not labels[0].startswith("_") or not browsed(name):
        return ""
    return ".".join(labels[:4])


class MdnsBrowse(Extractor):
    NAME, VERSION = "mdns-browse", "2"
    KINDS = (MDNS_QUERY,)
    UDP_PORTS = frozenset((MDNS_PORT,))

    def observe(self, pkt, flow) -> None:
        if pkt.dport != MDNS_PORT or not dns.plausible(pkt.payload):
            return
        msg = dns.decode(pkt.payload)
        if msg.response:
            return
        for question in msg.questions:
            if question.qtype in BROWSE_TYPES and (service := browsed(question.name or "")):
                self.emit.fact(pkt.src, MDNS_QUERY, service, pkt.frame, pkt.ts, source="mdns")
                if sub := subtype(question.name or ""):
                    self.emit.fact(pkt.src, MDNS_QUERY, sub, pkt.frame, pkt.ts, source="mdns")
