"""NetBIOS Name Service (RFC 1002 4.2): DNS-shaped messages whose names are NetBIOS names
in first-level encoding (RFC 1001 14.1) and whose NB records list (flags, address) pairs.

`decode` reuses the DNS message decoder, then turns each NB record into `NbEntry`s: the
NetBIOS name, its suffix byte (0x00 workstation, 0x20 server, ...), the group bit and
the IPv4 address it maps to.
"""

from __future__ import annotations

import socket
import struct
from typing import NamedTuple

from . import Malformed, dns

NB_ENTRY = struct.Struct("!H4s")  # NB_FLAGS, NB_ADDRESS (RFC 1002 4.2.1.3)
NB, NBSTAT = 0x0020, 0x0021  # record types
NB_GROUP = 0x8000  # G bit of NB_FLAGS: a group name, shared by many hosts
ENCODED_LEN = 32  # 16 bytes, each written as two letters 'A'..'P'
QUERY, REGISTRATION, RELEASE, WACK, REFRESH, REFRESH_ALT, MULTIHOMED = 0, 5, 6, 7, 8, 9, 15


class NbEntry(NamedTuple):
    name: str  # the 15-character NetBIOS name, padding (spaces, NULs) removed
    suffix: int
    group: bool
    address: str


class Message(NamedTuple):
    response: bool
    opcode: int
    rcode: int
    question: tuple[str, int] | None  # (name, suffix) of the first question
    answers: tuple[NbEntry, ...]
    additional: tuple[NbEntry, ...]


def netbios_name(encoded: str) -> tuple[str, int]:
    """Undo first-level encoding of the first label; the scope (later labels) is ignored."""
    label = encoded.split(".", 1)[0]
    if len(label) != ENCODED_LEN or not all("A" <= c <= "P" for c in label.upper()):
        raise Malformed("nbns-name", f"not a first-level encoded NetBIOS name: {label[:40]!r}")
    raw = bytes((ord(hi) - 65) << 4 | (ord(lo) - 65)
                for hi, lo in zip(label.upper()[0::2], label.upper()[1::2], strict=False))
    return raw[:15].decode("utf-8", "surrogateescape").rstrip(" \x00"), raw[15]


def _entries(records: tuple[dns.Record, ...]) -> tuple[NbEntry, ...]:
    out = []
    for record in records:
        if record.rtype != NB:
            continue
        if len(record.rdata) % NB_ENTRY.size:
            raise Malformed("nbns-nb", f"NB rdata of {len(record.rdata)} bytes")
        name, suffix = netbios_name(record.name)
        for flags, addr in NB_ENTRY.iter_unpack(record.rdata):
            out.append(NbEntry(name, suffix, bool(flags & NB_GROUP), socket.inet_ntoa(addr)))
    return tuple(out)


def decode(buf) -> Message:
    msg = dns.decode(buf)
    question = netbios_name(msg.questions[0].name) if msg.questions else None
    return Message(msg.response, msg.opcode, msg.rcode, question,
                   _entries(msg.answers), _entries(msg.additional))
