"""DNS messages (RFC 1035; AAAA RFC 3596; UPDATE RFC 2136), as also carried by mDNS
(RFC 6762), LLMNR (RFC 4795) and, with its own name encoding, NBNS (RFC 1002); over TCP,
each message follows a 2-byte length (`tcp_messages`).

`decode` reads the header and every section; names follow compression pointers (RFC 1035
4.1.4), which must point strictly backwards, so a pointer loop is Malformed, never a hang.
A/AAAA and PTR/CNAME/NS rdata are decoded to text; other types keep their raw rdata.
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import DecodeError, Malformed, need

HEADER = struct.Struct("!HHHHHH")  # id, flags, qdcount, ancount, nscount, arcount
QUESTION = struct.Struct("!HH")  # qtype, qclass
RR = struct.Struct("!HHIH")  # type, class, ttl, rdlength
A, NS, CNAME, PTR, TXT, AAAA = 1, 2, 5, 12, 16, 28
OPCODE_QUERY, OPCODE_UPDATE = 0, 5
CLASS_IN = 1
#: names of the common record types, for display (RFC 1035, 3596, 2782, 6891, 4034, 6672, 9460)
TYPE_NAMES = {A: "A", NS: "NS", CNAME: "CNAME", 6: "SOA", PTR: "PTR", 15: "MX", TXT: "TXT", AAAA: "AAAA",
              33: "SRV", 39: "DNAME", 41: "OPT", 43: "DS", 46: "RRSIG", 47: "NSEC", 48: "DNSKEY",
              64: "SVCB", 65: "HTTPS", 252: "AXFR", 251: "IXFR", 255: "ANY"}
TCP_LENGTH = struct.Struct("!H")  # RFC 1035 4.2.2: each message over TCP follows its length
NAME_TYPES = frozenset((NS, CNAME, PTR))  # rdata is one (compressible) domain name
QR = 0x8000
MAX_NAME = 255  # RFC 1035 2.3.4: octets in a name, length bytes included
POINTER = 0xC0
ASSIGNED_OPCODES = frozenset((0, 1, 2, 4, 5, 6))


class Question(NamedTuple):
    name: str
    qtype: int
    qclass: int


class Record(NamedTuple):
    name: str
    rtype: int
    rclass: int
    ttl: int
    rdata: bytes
    value: str | None  # address text for A/AAAA, the target for PTR/CNAME/NS, else None


class Message(NamedTuple):
    ident: int
    flags: int
    questions: tuple[Question, ...]
    answers: tuple[Record, ...]
    authority: tuple[Record, ...]
    additional: tuple[Record, ...]

    @property
    def response(self) -> bool:
        return bool(self.flags & QR)

    @property
    def opcode(self) -> int:
        return (self.flags >> 11) & 0xF

    @property
    def rcode(self) -> int:
        return self.flags & 0xF


def plausible(buf) -> bool:
    """Could `buf` be a DNS message? Not when shorter than a header or when its opcode is
    unassigned (RFC 6895 2.2: 0 query, 1 inverse, 2 status, 4 notify, 5 update, 6 DSO)."""
    return len(buf) >= HEADER.size and ((buf[2] >> 3) & 0xF) in ASSIGNED_OPCODES


def read_name(buf, at: int) -> tuple[str, int]:
    """The name at `at` (labels joined by ".", no trailing dot; "" is the root) and the
    offset just past it where it was written."""
    labels: list[str] = []
    size = 1
    pos, start, end = at, at, None
    while True:
        need("dns-name", buf, pos, 1)
        length = buf[pos]
        if length & POINTER == POINTER:
            need("dns-name", buf, pos, 2)
            target = ((length & 0x3F) << 8) | buf[pos + 1]
            if target >= start:  # strictly backwards: every jump lands lower, so jumps end
                raise Malformed("dns-name", f"pointer at {pos} to {target} does not point back")
            if end is None:
                end = pos + 2
            pos = start = target
            continue
        if length & POINTER:
            raise Malformed("dns-name", f"label type {length >> 6:#x} at {pos}")
        if length == 0:
            break
        need("dns-name", buf, pos + 1, length)
        size += length + 1
        if size > MAX_NAME:
            raise Malformed("dns-name", f"longer than {MAX_NAME} octets")
        labels.append(bytes(buf[pos + 1:pos + 1 + length]).decode("utf-8", "surrogateescape"))
        pos += 1 + length
    return ".".join(labels), (pos + 1 if end is None else end)


def _record(buf, at: int) -> tuple[Record, int]:
    name, at = read_name(buf, at)
    need("dns-rr", buf, at, RR.size)
    rtype, rclass, ttl, rdlength = RR.unpack_from(buf, at)
    at += RR.size
    need("dns-rdata", buf, at, rdlength)
    rdata = bytes(buf[at:at + rdlength])
    value = None
    if (rtype in (A, AAAA)) and rdlength:  # empty: an update's "delete" (RFC 2136 2.5)
        if rdlength != (4 if rtype == A else 16):
            raise Malformed("dns-rr", f"type {rtype} rdata of {rdlength} bytes")
        value = socket.inet_ntop(socket.AF_INET if rtype == A else socket.AF_INET6, rdata)
    elif rtype in NAME_TYPES and rdlength:
        value, _ = read_name(buf[:at + rdlength], at)  # may point back into the message
    return Record(name, rtype, rclass, ttl, rdata, value), at + rdlength


def decode(buf) -> Message:
    """Decode a whole DNS message from the start of `buf`."""
    msg, error = read(buf)
    if error is not None:
        raise error
    return msg


def read(buf) -> tuple[Message, DecodeError | None]:
    """The message as far as it decodes, and the error that stopped it (None: all of it).
    The header must decode (Truncated otherwise); a question or record that does not ends
    the read there, with the sections before it whole (the packet view shows them)."""
    need("dns", buf, 0, HEADER.size)
    ident, flags, qd, an, ns, ar = HEADER.unpack_from(buf, 0)
    at = HEADER.size
    questions: list[Question] = []
    sections: list[list[Record]] = []
    try:
        for _ in range(qd):
            name, at = read_name(buf, at)
            need("dns-question", buf, at, QUESTION.size)
            questions.append(Question(name, *QUESTION.unpack_from(buf, at)))
            at += QUESTION.size
        for count in (an, ns, ar):
            records: list[Record] = []
            sections.append(records)  # filled in place: a record that fails keeps those before it
            for _ in range(count):
                record, at = _record(buf, at)
                records.append(record)
    except DecodeError as err:
        error: DecodeError | None = err
    else:
        error = None
    whole = [tuple(records) for records in sections] + [()] * (3 - len(sections))
    return Message(ident, flags, tuple(questions), *whole), error


def tcp_messages(data) -> list[bytes]:
    """The complete length-prefixed messages at the start of a TCP stream head (several may
    share a segment; the last may be cut off by the end of the head, and is left out)."""
    out, at = [], 0
    while len(data) - at >= TCP_LENGTH.size:
        length = TCP_LENGTH.unpack_from(data, at)[0]
        if len(data) - at - TCP_LENGTH.size < length:
            break
        out.append(bytes(data[at + TCP_LENGTH.size:at + TCP_LENGTH.size + length]))
        at += TCP_LENGTH.size + length
    return out


def txt_strings(rdata: bytes) -> list[str]:
    """The character-strings of TXT rdata (RFC 1035 3.3.14; DNS-SD key=value pairs)."""
    out, at = [], 0
    while at < len(rdata):
        length = rdata[at]
        need("dns-txt", rdata, at + 1, length)
        out.append(rdata[at + 1:at + 1 + length].decode("utf-8", "surrogateescape"))
        at += 1 + length
    return out


def reverse_address(name: str) -> str | None:
    """The address a reverse-lookup owner name stands for ("4.3.2.1.in-addr.arpa" ->
    "1.2.3.4", RFC 1035 3.5; ip6.arpa nibbles, RFC 3596 2.5), None if it is not one."""
    labels = name.lower().split(".")
    if labels[-2:] == ["in-addr", "arpa"] and len(labels) == 6:
        octets = labels[3::-1]
        if all(o.isascii() and o.isdigit() and len(o) <= 3 and int(o) <= 255 for o in octets):
            return ".".join(str(int(o)) for o in octets)
    elif labels[-2:] == ["ip6", "arpa"] and len(labels) == 34:
        nibbles = labels[31::-1]
        if all(len(n) == 1 and n in "0123456789abcdef" for n in nibbles):
            return socket.inet_ntop(socket.AF_INET6, bytes.fromhex("".join(nibbles)))
    return None
