"""`tls-client-fingerprint` facts: the shape of the ClientHellos a host sent, on the
client, as JA3 (source ja3: the MD5 of "version,ciphers,extensions,groups,point formats",
decimal values joined by "-", per salesforce/ja3) and JA4 (source ja4: FoxIO's TLS client
fingerprint, e.g. "t13d1516h2_8daaf6152771_e5627efa2ab1", from its BSD-licensed
specification, technical_details/JA4.md). GREASE values (RFC 8701) are left out of both.

MEASURED, like a TCP SYN signature: how the client's TLS stack builds its offer, seen in
the traffic. Only the ClientHello is read; certificate chains are another extractor's.
"""

from __future__ import annotations

import hashlib

from ..decoders import tls
from ..extractor import Extractor, StreamHead
from ..kinds import TLS_CLIENT_FINGERPRINT

NAME, VERSION = "tls-fingerprint", "1"
EXT_SERVER_NAME, EXT_SUPPORTED_GROUPS, EXT_EC_POINT_FORMATS = 0x0000, 0x000A, 0x000B
EXT_SIGNATURE_ALGORITHMS, EXT_ALPN, EXT_SUPPORTED_VERSIONS = 0x000D, 0x0010, 0x002B
JA4_VERSIONS = {0x0304: "13", 0x0303: "12", 0x0302: "11", 0x0301: "10", 0x0300: "s3",
                0x0002: "s2", 0xFEFF: "d1", 0xFEFD: "d2", 0xFEFC: "d3"}
EMPTY_HASH = "000000000000"


GREASE = frozenset(0x0A0A + 0x1010 * i for i in range(16))  # RFC 8701: 0x0a0a, 0x1a1a, ... 0xfafa


def is_grease(value: int) -> bool:
    return value in GREASE


def _values(hello: tls.ClientHello, ext_type: int, length_width: int = 2) -> list[int]:
    """The 16-bit values an extension lists, GREASE left out ([] when it is absent)."""
    data = hello.extension(ext_type)
    if data is None:
        return []
    return [v for v in tls.u16_list(data, length_width) if v not in GREASE]


def ja3_string(hello: tls.ClientHello) -> str:
    fields = (
        [hello.version],
        [c for c in hello.ciphers if c not in GREASE],
        [t for t, _ in hello.extensions if t not in GREASE],
        _values(hello, EXT_SUPPORTED_GROUPS),
        tls.byte_list(points) if (points := hello.extension(EXT_EC_POINT_FORMATS)) else [],
    )
    return ",".join("-".join(map(str, values)) for values in fields)


def ja3(hello: tls.ClientHello) -> str:
    return hashlib.md5(ja3_string(hello).encode("ascii"), usedforsecurity=False).hexdigest()


def _alnum(byte: int) -> bool:
    return 0x30 <= byte <= 0x39 or 0x41 <= byte <= 0x5A or 0x61 <= byte <= 0x7A


def _alpn_chars(hello: tls.ClientHello) -> str:
    """First and last character of the first ALPN value; of its hex form when either is
    not an ASCII letter or digit; "00" without one."""
    data = hello.extension(EXT_ALPN)
    protocols = tls.alpn_protocols(data) if data else []
    if not protocols or not protocols[0]:
        return "00"
    first = protocols[0]
    if _alnum(first[0]) and _alnum(first[-1]):
        return chr(first[0]) + chr(first[-1])
    hexed = first.hex()
    return hexed[0] + hexed[-1]


def _hash12(text: str) -> str:
    return hashlib.sha256(text.encode("ascii")).hexdigest()[:12]


def ja4(hello: tls.ClientHello, transport: str = "t") -> str:
    """JA4 of a ClientHello; `transport` "t" (TCP), "q" (QUIC) or "d" (DTLS)."""
    versions = _values(hello, EXT_SUPPORTED_VERSIONS, 1)  # RFC 8446 4.2.1: a 1-byte length
    version = JA4_VERSIONS.get(max(versions) if versions else hello.version, "00")
    ciphers = [c for c in hello.ciphers if c not in GREASE]
    extensions = [t for t, _ in hello.extensions if t not in GREASE]
    sni = "d" if EXT_SERVER_NAME in extensions else "i"
    part_a = (f"{transport}{version}{sni}{min(len(ciphers), 99):02d}"
              f"{min(len(extensions), 99):02d}{_alpn_chars(hello)}")
    part_b = _hash12(",".join(f"{c:04x}" for c in sorted(ciphers))) if ciphers else EMPTY_HASH
    listed = sorted(t for t in extensions if t not in (EXT_SERVER_NAME, EXT_ALPN))
    if listed:
        text = ",".join(f"{t:04x}" for t in listed)
        algorithms = _values(hello, EXT_SIGNATURE_ALGORITHMS)
        if algorithms:
            text += "_" + ",".join(f"{a:04x}" for a in algorithms)
        part_c = _hash12(text)
    else:
        part_c = EMPTY_HASH
    return f"{part_a}_{part_b}_{part_c}"


def shape(hello: tls.ClientHello) -> tuple:
    """Everything JA3 and JA4 read of a hello, and nothing else (not the random, the
    session id, the server name or the key shares): one client stack's hellos share it."""
    ext = dict(reversed(hello.extensions)).get  # the first of a repeated type, as extension()
    return (hello.version, hello.ciphers, tuple(t for t, _ in hello.extensions),
            ext(EXT_SUPPORTED_GROUPS), ext(EXT_EC_POINT_FORMATS), ext(EXT_SIGNATURE_ALGORITHMS),
            ext(EXT_ALPN), ext(EXT_SUPPORTED_VERSIONS))


class TlsFingerprint(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (TLS_CLIENT_FINGERPRINT,)
    TCP_STREAMS = True

    def __init__(self, emit, limits) -> None:
        super().__init__(emit, limits)
        # hello shape -> (ja3, ja4): a capture holds few client stacks and many hellos. A
        # cache, not a record: past the limit new shapes are computed each time, not kept.
        self._known: dict[tuple, tuple[str, str]] = {}

    def observe_stream(self, head: StreamHead) -> None:
        data = head.data
        if len(data) < 6 or data[5] != tls.CLIENT_HELLO or not tls.is_handshake(data):
            return  # the first handshake message of a client's head is its hello: servers skip
        for msg in tls.handshake_messages(data):
            if msg.msg_type == tls.CLIENT_HELLO and msg.complete:
                hello = tls.client_hello(msg.body)
                key = shape(hello)
                prints = self._known.get(key)
                if prints is None:
                    prints = (ja3(hello), ja4(hello))
                    if len(self._known) < self.limits.max_fingerprint_shapes:
                        self._known[key] = prints
                self.emit.fact(head.src, TLS_CLIENT_FINGERPRINT, prints[0], head.first_frame,
                               head.first_ts, source="ja3")
                self.emit.fact(head.src, TLS_CLIENT_FINGERPRINT, prints[1], head.first_frame,
                               head.first_ts, source="ja4")
                return
