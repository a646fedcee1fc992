"""`pfcp-message` facts: the PFCP messages (3GPP TS 29.244, udp/8805) a host sent, named
("association setup request", "session establishment request", ...), on the sender.
Measured: the message type is in the header's second byte. PFCP runs between a mobile core's
control plane (the SMF, which asks for sessions) and its user plane functions (the UPFs,
which answer): node-role reads who asked and who answered.
"""

from __future__ import annotations

from ..extractor import Extractor
from ..kinds import PFCP_MESSAGE

NAME, VERSION = "pfcp", "1"
PORT = 8805
VERSION_1 = 1  # the header's top 3 bits
#: TS 29.244 7.3: the node and session messages
MESSAGES = {
    1: "heartbeat request", 2: "heartbeat response", 3: "pfd management request", 4: "pfd management response",
    5: "association setup request", 6: "association setup response", 7: "association update request",
    8: "association update response", 9: "association release request", 10: "association release response",
    11: "version not supported response", 12: "node report request", 13: "node report response",
    50: "session establishment request", 51: "session establishment response",
    52: "session modification request", 53: "session modification response",
    54: "session deletion request", 55: "session deletion response",
    56: "session report request", 57: "session report response",
}


class Pfcp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (PFCP_MESSAGE,)
    UDP_PORTS = frozenset((PORT,))

    def observe(self, pkt, flow) -> None:
        payload = pkt.payload
        if len(payload) < 8 or payload[0] >> 5 != VERSION_1 or PORT not in (pkt.sport, pkt.dport):
            return
        name = MESSAGES.get(payload[1])
        if name is not None:
            self.emit.fact(pkt.src, PFCP_MESSAGE, name, pkt.frame, pkt.ts)
