"""`tls-sni` facts (the server name a client asked for) and `tls-client-fingerprint` facts
(source ja4, transport "q") from the TLS ClientHello inside QUIC client Initials, on the
client: the same facts the `tls` and `tls-fingerprint` extractors read over TCP.

Any UDP datagram that starts with a long header of a known version is tried, whatever its
ports. A ClientHello often spans several Initials (post-quantum key shares make it longer
than one datagram), which may arrive out of order: CRYPTO frames are joined by offset per
(client, server, Destination Connection ID) until the hello is whole. Open connections are
bounded by `max_pending` (the oldest is dropped and counted), their bytes by MAX_CRYPTO.
"""

from __future__ import annotations

from ..decoders import quic, tls
from ..extractor import Extractor
from ..kinds import TLS_CLIENT_FINGERPRINT, TLS_SNI
from .tls_fingerprint import ja4

NAME, VERSION = "quic", "1"
MAX_CRYPTO = 64 * 1024  # CRYPTO bytes joined per connection; a ClientHello is far shorter


class _Hello:
    """The CRYPTO frames of one connection so far, by offset, and its first frame."""

    __slots__ = ("parts", "frame", "ts")

    def __init__(self, frame: int, ts: float) -> None:
        self.parts: dict[int, bytes] = {}
        self.frame, self.ts = frame, ts

    def joined(self) -> bytes:
        """The bytes contiguous from offset 0 (overlapping retransmissions allowed)."""
        out = bytearray()
        for offset in sorted(self.parts):
            if offset > len(out):
                break
            data = self.parts[offset]
            out += data[len(out) - offset:]
        return bytes(out)


class Quic(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (TLS_SNI, TLS_CLIENT_FINGERPRINT)
    EVERY_UDP = True

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        # connection -> its hello so far, or None once read (retransmissions are ignored)
        self._hellos: dict[tuple, _Hello | None] = {}

    def observe(self, pkt, flow) -> None:
        payload = pkt.payload
        if not quic.is_long_header(payload):
            return
        for initial in quic.client_initials(payload):
            if initial.crypto:
                self._gather(pkt, initial)

    def _gather(self, pkt, initial: quic.Initial) -> None:
        key = (pkt.src, pkt.sport, pkt.dst, pkt.dport, initial.dcid)
        if key in self._hellos:
            hello = self._hellos[key]
            if hello is None:
                return
        else:
            if len(self._hellos) >= self.limits.max_pending:
                oldest = next(iter(self._hellos))
                if self._hellos.pop(oldest) is not None:
                    self.evicted += 1  # a hello never completed; a finished one costs nothing
            hello = self._hellos[key] = _Hello(pkt.frame, pkt.ts)
        for offset, data in initial.crypto:
            if offset + len(data) <= MAX_CRYPTO and len(data) > len(hello.parts.get(offset, b"")):
                hello.parts[offset] = bytes(data)
        body = quic.client_hello(hello.joined())
        if body is None:
            return
        self._hellos[key] = None
        for name in tls.server_names(body):
            if name:
                self.emit.fact(pkt.src, TLS_SNI, name, hello.frame, hello.ts)
        self.emit.fact(pkt.src, TLS_CLIENT_FINGERPRINT, ja4(tls.client_hello(body), "q"),
                       hello.frame, hello.ts, source="ja4")
