"""Name-service messages: DNS (RFC 1035), mDNS (RFC 6762/6763), LLMNR (RFC 4795), NBNS
(RFC 1002), each returned as a UDP payload.

Records are tuples `(name, type, value, ttl)` with an optional fifth element, the class.
Types are names ("A", "AAAA", "PTR", "CNAME", "NS", "SRV", "TXT") or numbers. Values:
A/AAAA an address, PTR/CNAME/NS a name, SRV `(priority, weight, port, target)`, TXT a
string or a list of strings, anything else raw bytes.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

from tracepcap.testing.frames import U16, ip_bytes, is_ipv6

HEADER = struct.Struct("!HHHHHH")  # id, flags, qdcount, ancount, nscount, arcount
QUESTION = struct.Struct("!HH")  # qtype, qclass
RR = struct.Struct("!HHIH")  # type, class, ttl, rdlength
SRV = struct.Struct("!HHH")  # priority, weight, port (RFC 2782)
NB_ADDR = struct.Struct("!H4s")  # NB_FLAGS, address (RFC 1002 4.2.2)

TYPES = {"A": 1, "NS": 2, "CNAME": 5, "SOA": 6, "PTR": 12, "HINFO": 13, "TXT": 16,
         "AAAA": 28, "SRV": 33, "ANY": 255}
CLASS_IN = 1
CACHE_FLUSH = 0x8000  # RFC 6762 10.2: top bit of the class in an mDNS answer
UNICAST_RESPONSE = 0x8000  # RFC 6762 5.4: top bit of the class in an mDNS question
QR, AA, RD, RA = 0x8000, 0x0400, 0x0100, 0x0080
NB_TYPE, NB_BROADCAST = 0x0020, 0x0010  # NBNS record type NB; the B flag of a request
NBNS_OPCODE_REGISTRATION = 5
NB_GROUP, NB_ONT_B, NB_ONT_H = 0x8000, 0x0000, 0x6000  # NB_FLAGS: group bit, node types
NBNS_TTL = 300_000  # seconds; Windows registers names for about 3.5 days

Record = tuple  # (name, type, value, ttl[, class])


def _type(t: str | int) -> int:
    return t if isinstance(t, int) else TYPES[t.upper()]


def encode_name(name: str) -> bytes:
    """A domain name as uncompressed wire labels ending in the root label."""
    labels = [label.encode() for label in name.rstrip(".").split(".") if label]
    return b"".join(bytes([len(label)]) + label for label in labels) + b"\x00"


class _Message:
    """Accumulates one DNS message; each name written becomes a compression target."""

    def __init__(self, ident: int, flags: int, counts: tuple[int, int, int, int]) -> None:
        self.buf = bytearray(HEADER.pack(ident, flags, *counts))
        self.targets: dict[str, int] = {}

    def name(self, name: str, compress: bool = True) -> None:
        """Write `name`, ending in a pointer to the longest suffix already in the message
        (RFC 1035 4.1.4); offsets past 0x3fff cannot be pointed at."""
        labels = [label for label in name.rstrip(".").split(".") if label]
        for i, label in enumerate(labels):
            suffix = ".".join(labels[i:]).lower()
            if compress and suffix in self.targets:
                self.buf += U16.pack(0xC000 | self.targets[suffix])
                return
            if len(self.buf) < 0x4000:
                self.targets.setdefault(suffix, len(self.buf))
            raw = label.encode()
            self.buf += bytes([len(raw)]) + raw
        self.buf += b"\x00"

    def question(self, name: str, qtype: str | int, qclass: int = CLASS_IN) -> None:
        self.name(name)
        self.buf += QUESTION.pack(_type(qtype), qclass)

    def record(self, rec: Record) -> None:
        name, rtype, value, ttl = rec[:4]
        rtype = _type(rtype)
        self.name(name)
        at = len(self.buf)
        self.buf += RR.pack(rtype, rec[4] if len(rec) > 4 else CLASS_IN, ttl, 0)
        self._rdata(rtype, value)
        self.buf[at + 8:at + 10] = U16.pack(len(self.buf) - at - RR.size)

    def _rdata(self, rtype: int, value: object) -> None:
        if rtype in (TYPES["A"], TYPES["AAAA"]):
            self.buf += ip_bytes(value)
        elif rtype in (TYPES["PTR"], TYPES["CNAME"], TYPES["NS"]):
            self.name(value)
        elif rtype == TYPES["SRV"]:
            priority, weight, port, target = value
            self.buf += SRV.pack(priority, weight, port)
            self.name(target, compress=False)  # RFC 2782: no compression in the target
        elif rtype == TYPES["TXT"]:
            strings = [value] if isinstance(value, (str, bytes)) else list(value)
            parts = [s.encode() if isinstance(s, str) else s for s in strings] or [b""]
            self.buf += b"".join(bytes([len(p)]) + p for p in parts)  # RFC 6763 6.1
        else:
            self.buf += value

    def done(self) -> bytes:
        return bytes(self.buf)


def dns_message(ident: int, flags: int, questions: Sequence[tuple[str, str | int]] = (),
                answers: Sequence[Record] = (), authority: Sequence[Record] = (),
                additional: Sequence[Record] = ()) -> bytes:
    """Any DNS-format message: header, questions, then the three record sections."""
    msg = _Message(ident, flags, (len(questions), len(answers), len(authority),
                                  len(additional)))
    for q in questions:
        msg.question(*q)
    for rec in (*answers, *authority, *additional):
        msg.record(rec)
    return msg.done()


def dns_query(ident: int, name: str, qtype: str | int = "A", rd: bool = True) -> bytes:
    """A standard query for one name, recursion desired by default."""
    return dns_message(ident, RD if rd else 0, [(name, qtype)])


def dns_response(ident: int, question: tuple[str, str | int] | str | None,
                 answers: Sequence[Record] = (), authority: Sequence[Record] = (),
                 additional: Sequence[Record] = (), aa: bool = False, rd: bool = True,
                 ra: bool = True, rcode: int = 0) -> bytes:
    """A response echoing `question` ((name, type), a bare name meaning type A, or None);
    answer owners naming the question compress to a pointer at it."""
    if isinstance(question, str):
        question = (question, "A")
    flags = QR | (AA if aa else 0) | (RD if rd else 0) | (RA if ra else 0) | rcode
    return dns_message(ident, flags, [question] if question else [], answers, authority,
                       additional)


def _mdns_class(rec: Record) -> Record:
    """RFC 6762 10.2: unique records carry cache-flush; shared service PTRs do not."""
    if len(rec) > 4:
        return rec
    shared = _type(rec[1]) == TYPES["PTR"] and not rec[0].lower().rstrip(".").endswith(".arpa")
    return (*rec, CLASS_IN if shared else CLASS_IN | CACHE_FLUSH)


def mdns_announcement(answers: Sequence[Record], additional: Sequence[Record] = ()) -> bytes:
    """An unsolicited mDNS response: id 0, QR and AA set, no questions (RFC 6762 8.3)."""
    return dns_message(0, QR | AA, (), [_mdns_class(r) for r in answers], (),
                       [_mdns_class(r) for r in additional])


def mdns_query(name: str, qtype: str | int = "PTR", unicast_response: bool = False) -> bytes:
    """A one-question mDNS query, id 0; `unicast_response` sets the QU bit."""
    qclass = CLASS_IN | (UNICAST_RESPONSE if unicast_response else 0)
    msg = _Message(0, 0, (1, 0, 0, 0))
    msg.question(name, qtype, qclass)
    return msg.done()


def reverse_name(addr: str) -> str:
    """The in-addr.arpa / ip6.arpa name a PTR lookup for `addr` asks about."""
    raw = ip_bytes(addr)
    if len(raw) == 4:
        return ".".join(str(b) for b in reversed(raw)) + ".in-addr.arpa"
    return ".".join(reversed(raw.hex())) + ".ip6.arpa"


def mdns_host_records(hostname: str, addr: str, ttl: int = 120) -> list[Record]:
    """What a host announces for itself: `<host>.local` address and its reverse PTR."""
    fqdn = hostname if hostname.endswith(".local") else hostname + ".local"
    rtype = "AAAA" if is_ipv6(addr) else "A"
    return [(fqdn, rtype, addr, ttl), (reverse_name(addr), "PTR", fqdn, ttl)]


def mdns_service_records(instance: str, service: str, host: str, port: int,
                         txt: Iterable[str] = (), ttl: int = 4500) -> list[Record]:
    """DNS-SD records for one service instance (RFC 6763): browse PTR, SRV and TXT."""
    full = f"{instance}.{service}.local"
    target = host if host.endswith(".local") else host + ".local"
    return [("_services._dns-sd._udp.local", "PTR", f"{service}.local", ttl),
            (f"{service}.local", "PTR", full, ttl), (full, "SRV", (0, 0, port, target), 120),
            (full, "TXT", list(txt), ttl)]


def llmnr_query(ident: int, name: str, qtype: str | int = "A") -> bytes:
    """An LLMNR query (RFC 4795 2.1): DNS format, no flags set, sent to 224.0.0.252:5355."""
    return dns_message(ident, 0, [(name, qtype)])


def llmnr_response(ident: int, name: str, addr: str, ttl: int = 30) -> bytes:
    """An LLMNR response naming `addr`, the question echoed, QR set (RFC 4795 2.1.1)."""
    rtype = "AAAA" if is_ipv6(addr) else "A"
    return dns_message(ident, QR, [(name, rtype)], [(name, rtype, addr, ttl)])


def netbios_name(name: str, suffix: int = 0x00, scope: str = "") -> bytes:
    """RFC 1002 4.1: the 16-byte NetBIOS name (15 chars space-padded plus suffix) in
    first-level encoding, each nibble as a letter 'A'+n, then the scope as DNS labels."""
    raw = name.upper()[:15].ljust(15).encode("ascii") + bytes([suffix])
    encoded = bytes(0x41 + (b >> 4) if i % 2 == 0 else 0x41 + (b & 0x0F)
                    for b in raw for i in range(2))
    return bytes([32]) + encoded + encode_name(scope)


def _nbns(ident: int, flags: int, counts: tuple[int, int, int, int], body: bytes) -> bytes:
    return HEADER.pack(ident, flags, *counts) + body


def nbns_registration(ident: int, name: str, addr: str, suffix: int = 0x00,
                      ttl: int = NBNS_TTL, group: bool = False) -> bytes:
    """A broadcast NAME REGISTRATION REQUEST (RFC 1002 4.2.2): question plus an additional
    NB record pointing back at it, as a B-node sends to the subnet broadcast on udp/137."""
    flags = NBNS_OPCODE_REGISTRATION << 11 | RD | NB_BROADCAST
    nb_flags = (NB_GROUP if group else 0) | NB_ONT_B
    body = (netbios_name(name, suffix) + QUESTION.pack(NB_TYPE, CLASS_IN)
            + U16.pack(0xC00C) + RR.pack(NB_TYPE, CLASS_IN, ttl, NB_ADDR.size)
            + NB_ADDR.pack(nb_flags, ip_bytes(addr)))
    return _nbns(ident, flags, (1, 0, 0, 1), body)


def nbns_query(ident: int, name: str, suffix: int = 0x00, broadcast: bool = True) -> bytes:
    """A NAME QUERY REQUEST (RFC 1002 4.2.12)."""
    flags = RD | (NB_BROADCAST if broadcast else 0)
    return _nbns(ident, flags, (1, 0, 0, 0),
                 netbios_name(name, suffix) + QUESTION.pack(NB_TYPE, CLASS_IN))


def nbns_query_response(ident: int, name: str, addr: str, suffix: int = 0x00,
                        ttl: int = NBNS_TTL) -> bytes:
    """A positive NAME QUERY RESPONSE (RFC 1002 4.2.13): the owner answers with its address."""
    body = (netbios_name(name, suffix) + RR.pack(NB_TYPE, CLASS_IN, ttl, NB_ADDR.size)
            + NB_ADDR.pack(NB_ONT_B, ip_bytes(addr)))
    return _nbns(ident, QR | AA | RD, (0, 1, 0, 0), body)
