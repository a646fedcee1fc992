"""`ip-mac-binding` facts (REPORTED: the MAC an ARP reply or gratuitous announcement says
an IPv4 address is at, on that address; value the MAC, source "arp") and
`gratuitous-announcement` facts (MEASURED: a frame announcing the address was sent; value
the Ethernet source MAC of that frame, source "arp").

A binding is what the sender asserts; hosts lie (ARP spoofing is exactly that), so it is
REPORTED, and a conflict between bindings, or with the `mac` facts measured from IP
frames, is for Scan to find. Requests that are not announcements bind nothing here, and
probes from 0.0.0.0 (RFC 5227 2.1.1) claim nothing.
"""

from __future__ import annotations

from ..decoders import arp
from ..extractor import Extractor
from ..kinds import GRATUITOUS_ANNOUNCEMENT, IP_MAC_BINDING

NAME, VERSION = "arp", "1"
UNSPECIFIED = "0.0.0.0"


class Arp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (IP_MAC_BINDING, GRATUITOUS_ANNOUNCEMENT)
    NON_IP = True

    def observe(self, pkt, flow) -> None:
        if pkt.ethertype != arp.ETHERTYPE_ARP:
            return
        msg = arp.decode(pkt.link)
        if msg is None or msg.sender_ip == UNSPECIFIED or msg.sender_mac[0] & 0x01:
            return
        gratuitous = msg.gratuitous
        if msg.op != arp.REPLY and not gratuitous:
            return
        self.emit.fact(msg.sender_ip, IP_MAC_BINDING, msg.sender_mac.hex(":"), pkt.frame, pkt.ts,
                       source="arp")
        if gratuitous:
            sent_by = (pkt.src_mac or msg.sender_mac).hex(":")
            self.emit.fact(msg.sender_ip, GRATUITOUS_ANNOUNCEMENT, sent_by, pkt.frame, pkt.ts,
                           source="arp")
