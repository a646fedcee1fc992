"""`served` and `initiated` facts: which ports a host answered on, and which it opened.

Measured, never guessed from port numbers: TCP from the handshake (a SYN without ACK
initiates; the SYN-ACK answering it serves), UDP from a reply in a conversation the other
side started. Each answered or opened conversation counts once.
"""

from __future__ import annotations

from ..decoders.tcp import ACK, SYN
from ..extractor import Extractor
from ..kinds import INITIATED, SERVED
from ..packet import PROTO_TCP, PROTO_UDP


class Services(Extractor):
    NAME = "services"
    VERSION = "1"
    KINDS = (SERVED, INITIATED)
    TCP_SYNS = True
    UDP_REPLIES = True

    def observe(self, pkt, flow) -> None:
        if pkt.fragment:
            return
        if pkt.proto == PROTO_TCP:
            syn_ack = pkt.flags & (SYN | ACK)
            if syn_ack == SYN:
                self.emit.fact(pkt.src, INITIATED, f"tcp/{pkt.dport}", pkt.frame, pkt.ts)
            elif syn_ack == SYN | ACK:
                self.emit.fact(pkt.src, SERVED, f"tcp/{pkt.sport}", pkt.frame, pkt.ts)
        elif pkt.proto == PROTO_UDP and flow.pkts_ba == 1 and pkt.src == flow.b and pkt.sport == flow.bport:
            self.emit.fact(pkt.src, SERVED, f"udp/{pkt.sport}", pkt.frame, pkt.ts)
            self.emit.fact(pkt.dst, INITIATED, f"udp/{pkt.sport}", pkt.frame, pkt.ts)
