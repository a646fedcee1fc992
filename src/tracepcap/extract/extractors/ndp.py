"""`ip-mac-binding` facts (REPORTED, source "ndp": the link-layer address an IPv6 neighbor
advertisement gives for its target, or a router advertisement or a neighbor solicitation
from an assigned address for its sender, RFC 4861 4.3 and 7.2.3) and
`gratuitous-announcement` facts (MEASURED, source "ndp": an unsolicited neighbor
advertisement was sent, RFC 4861 7.2.6; value the Ethernet source MAC of the frame).

Only messages with hop limit 255 count: RFC 4861 7.1.2 and 6.1.2 make receivers drop any
other, since only those cannot have been forwarded from off the link.
"""

from __future__ import annotations

from ..decoders import ndp
from ..extractor import Extractor
from ..kinds import GRATUITOUS_ANNOUNCEMENT, IP_MAC_BINDING
from ..packet import ETHERTYPE_IPV6

NAME, VERSION = "ndp", "2"
PROTO_ICMPV6 = 58
ND_HOP_LIMIT = 255
UNSPECIFIED = "::"


class Ndp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (IP_MAC_BINDING, GRATUITOUS_ANNOUNCEMENT)
    IP_PROTOS = frozenset((PROTO_ICMPV6,))

    def observe(self, pkt, flow) -> None:
        if pkt.ethertype != ETHERTYPE_IPV6 or pkt.ttl != ND_HOP_LIMIT:
            return
        msg = ndp.decode(pkt.payload)
        if msg is None:
            return
        if msg.msg_type == ndp.NEIGHBOR_ADVERT and msg.target_lla and msg.target != UNSPECIFIED:
            self.emit.fact(msg.target, IP_MAC_BINDING, msg.target_lla.hex(":"), pkt.frame, pkt.ts,
                           source="ndp")
            if not msg.flags & ndp.NA_SOLICITED:
                sent_by = (pkt.src_mac or msg.target_lla).hex(":")
                self.emit.fact(msg.target, GRATUITOUS_ANNOUNCEMENT, sent_by, pkt.frame, pkt.ts,
                               source="ndp")
        elif (msg.msg_type in (ndp.ROUTER_ADVERT, ndp.NEIGHBOR_SOLICIT) and msg.source_lla
              and pkt.src != UNSPECIFIED):  # a DAD probe (from ::) carries no source option
            self.emit.fact(pkt.src, IP_MAC_BINDING, msg.source_lla.hex(":"), pkt.frame, pkt.ts,
                           source="ndp")
