"""`tls-sni` facts (the server names a client asked for in its ClientHello, on the client)
and `hostname-claim` facts (source tls-certificate: the subject common name and DNS
subject alternative names of the leaf certificate a server sent, on the server).

Read from the first bytes of each TCP direction, so a ClientHello split over segments or a
certificate chain spread over many records is whole. Only TLS 1.2 and earlier send the
Certificate in the clear. Wildcard names ("*.example.com") and common names that are not
host names (with spaces) name no host and are left out.
"""

from __future__ import annotations

from ..decoders import tls
from ..extractor import Extractor, StreamHead
from ..kinds import HOSTNAME_CLAIM, TLS_SNI


def host_names(names: list[str]) -> list[str]:
    """Names as a host could carry them, trailing dot removed, each once, in order."""
    out: list[str] = []
    for name in names:
        name = name.rstrip(".")
        if name and not name.startswith("*") and not any(c.isspace() for c in name) \
                and name not in out:
            out.append(name)
    return out


class Tls(Extractor):
    NAME = "tls"
    VERSION = "1"
    KINDS = (HOSTNAME_CLAIM, TLS_SNI)
    TCP_STREAMS = True

    def observe_stream(self, head: StreamHead) -> None:
        if not tls.is_handshake(head.data):
            return
        messages = tls.handshake_messages(head.data)
        server_side = any(m.msg_type == tls.SERVER_HELLO for m in messages)
        for msg in messages:
            if msg.msg_type == tls.CLIENT_HELLO and msg.complete:
                for name in tls.server_names(msg.body):
                    if name:
                        self.emit.fact(head.src, TLS_SNI, name, head.first_frame, head.first_ts)
            elif msg.msg_type == tls.CERTIFICATE and server_side:
                chain = tls.certificate_chain(msg.body)
                if not chain:
                    return  # the head ended inside the leaf certificate
                common_names, dns_names = tls.certificate_names(chain[0])
                for name in host_names(common_names + dns_names):
                    self.emit.fact(head.src, HOSTNAME_CLAIM, name, head.first_frame,
                                   head.first_ts, source="tls-certificate")
                return
