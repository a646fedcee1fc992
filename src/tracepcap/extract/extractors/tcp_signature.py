"""`tcp-syn-signature` facts: the shape of the SYNs a host sent; `tcp-synack-signature`
the same for the SYN+ACKs it answered with (what a server's stack looks like).

Value: "window:mss:wscale:options", e.g. "64240:1460:8:mss,nop,ws,nop,nop,sok"
(MSS or window scale "*" when absent; option names as p0f writes them).
"""

from __future__ import annotations

from ..decoders import tcp
from ..extractor import Extractor
from ..kinds import TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE
from ..packet import PROTO_TCP


def signature(window: int, options: bytes | None) -> str:
    names, mss, wscale = tcp.options(memoryview(options or b""), 0, len(options or b""))
    star = lambda v: "*" if v is None else str(v)  # noqa: E731
    return f"{window}:{star(mss)}:{star(wscale)}:{','.join(names)}"


class TcpSignature(Extractor):
    NAME, VERSION = "tcp-signature", "2"
    KINDS = (TCP_SYN_SIGNATURE, TCP_SYNACK_SIGNATURE)
    TCP_SYNS = True

    def observe(self, pkt, flow) -> None:
        if pkt.proto == PROTO_TCP and pkt.flags & tcp.SYN:
            kind = TCP_SYNACK_SIGNATURE if pkt.flags & tcp.ACK else TCP_SYN_SIGNATURE
            self.emit.fact(pkt.src, kind, signature(pkt.window, pkt.tcp_options), pkt.frame, pkt.ts)
