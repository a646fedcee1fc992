"""`hostname-claim` facts (source nbns) from NetBIOS name registrations, refreshes and
positive query responses: each unique workstation (0x00) or server (0x20) name, on the
address its NB record maps it to. Group names are shared by many hosts and name none."""

from __future__ import annotations

from ..decoders import nbns
from ..extractor import Extractor
from ..kinds import HOSTNAME_CLAIM

NAME, VERSION = "nbns", "1"
NBNS_PORT = 137
HOST_SUFFIXES = frozenset((0x00, 0x20))  # workstation service, file server service
REGISTERING = frozenset((nbns.REGISTRATION, nbns.REFRESH, nbns.REFRESH_ALT, nbns.MULTIHOMED))


class Nbns(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM,)
    UDP_PORTS = frozenset((NBNS_PORT,))

    def observe(self, pkt, flow) -> None:
        msg = nbns.decode(pkt.payload)
        if not msg.response and msg.opcode in REGISTERING:
            entries = msg.additional  # RFC 1002 4.2.2: the NB record rides in ADDITIONAL
        elif msg.response and msg.opcode == nbns.QUERY and msg.rcode == 0:
            entries = msg.answers
        else:
            return
        for entry in entries:
            if not entry.group and entry.suffix in HOST_SUFFIXES and entry.name \
                    and entry.address != "0.0.0.0":
                self.emit.fact(entry.address, HOSTNAME_CLAIM, entry.name, pkt.frame, pkt.ts,
                               source="nbns")
