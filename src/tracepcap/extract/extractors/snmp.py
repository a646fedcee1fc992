"""What an SNMP agent says about itself in answers and notifications: `hostname-claim`
(source snmp: sysName.0), `snmp-sysdescr` (sysDescr.0, e.g. "Cisco IOS Software, C2960
Software ..., Version 15.0(2)SE11" or "HP ETHERNET MULTI-ENVIRONMENT") and
`snmp-sysobjectid` (sysObjectID.0, the vendor's OID for the product), on the agent: the
sender of a GetResponse from udp/161, or of a trap or inform. REPORTED. Requests name no
values; an encrypted SNMPv3 PDU cannot be read.
"""

from __future__ import annotations

from ..decoders import ber, snmp
from ..extractor import Extractor
from ..kinds import HOSTNAME_CLAIM, SNMP_SYSDESCR, SNMP_SYSOBJECTID
from .lldp import one_line

NAME, VERSION = "snmp", "1"
AGENT_PORT, TRAP_PORT = 161, 162
FROM_AGENT = frozenset((snmp.RESPONSE, snmp.TRAP_V1, snmp.TRAP_V2, snmp.INFORM))


class Snmp(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (HOSTNAME_CLAIM, SNMP_SYSDESCR, SNMP_SYSOBJECTID)
    UDP_PORTS = frozenset((AGENT_PORT, TRAP_PORT))

    def observe(self, pkt, flow) -> None:
        if not pkt.payload or pkt.payload[0] != ber.SEQUENCE:
            return  # not BER: something else on an SNMP port
        msg = snmp.decode(pkt.payload)
        if msg.pdu_type not in FROM_AGENT:
            return
        if msg.pdu_type == snmp.RESPONSE and pkt.sport != AGENT_PORT:
            return  # a manager answering an inform: its bindings are not its own
        for oid, tag, value in msg.bindings:
            if oid == snmp.SYS_NAME and tag == ber.OCTET_STRING:
                if name := value.decode("utf-8", "surrogateescape").strip("\x00 \r\n"):
                    self.emit.fact(pkt.src, HOSTNAME_CLAIM, name, pkt.frame, pkt.ts, source="snmp")
            elif oid == snmp.SYS_DESCR and tag == ber.OCTET_STRING:
                if text := one_line(value.decode("utf-8", "surrogateescape").strip("\x00")):
                    self.emit.fact(pkt.src, SNMP_SYSDESCR, text, pkt.frame, pkt.ts)
            elif oid == snmp.SYS_OBJECT_ID and tag == ber.OID and value:
                self.emit.fact(pkt.src, SNMP_SYSOBJECTID, ber.oid(value, 0, len(value)),
                               pkt.frame, pkt.ts)
