"""`krb-principal` facts: the Kerberos principals a host used, on that host (the client),
value "name@REALM". Source kerberos-client: the client principal of an AS-REQ, or of an
AS-REP/TGS-REP sent to it (a user "alice@CORP.EXAMPLE", or a machine account
"WS01$@CORP.EXAMPLE", which names the host); source kerberos-service: the service a
TGS-REQ asks a ticket for ("cifs/fs01.corp.example@CORP.EXAMPLE"). REPORTED.

Read from udp/88 datagrams and from the first bytes of tcp/88 connections.
"""

from __future__ import annotations

from ..decoders import kerberos
from ..extractor import Extractor, StreamHead
from ..kinds import KRB_PRINCIPAL

NAME, VERSION = "kerberos", "1"


class Kerberos(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (KRB_PRINCIPAL,)
    UDP_PORTS = frozenset((kerberos.PORT,))
    TCP_STREAMS = True

    def observe(self, pkt, flow) -> None:
        self._read(pkt.payload, pkt.src, pkt.dst, pkt.frame, pkt.ts)

    def observe_stream(self, head: StreamHead) -> None:
        if kerberos.PORT not in (head.sport, head.dport):
            return
        for message in kerberos.tcp_messages(head.data):
            self._read(message, head.src, head.dst, head.first_frame, head.first_ts)

    def _read(self, data, src: str, dst: str, frame: int, ts: float) -> None:
        msg = kerberos.decode(data)
        if msg is None:
            return
        client = src if msg.msg_type in kerberos.REQUESTS else dst
        if msg.cname:
            self.emit.fact(client, KRB_PRINCIPAL, msg.principal(msg.cname), frame, ts,
                           source="kerberos-client")
        if msg.sname and msg.msg_type == kerberos.TGS_REQ:
            self.emit.fact(client, KRB_PRINCIPAL, msg.principal(msg.sname), frame, ts,
                           source="kerberos-service")
