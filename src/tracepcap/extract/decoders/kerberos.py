"""Kerberos V5 (RFC 4120 5.4) requests and replies of the authentication (AS) and
ticket-granting (TGS) exchanges, read far enough to name their principals: the client
(cname) and realm of an AS-REQ or of any reply, the service (sname) a request asks for.
Over TCP each message follows a 4-byte length (RFC 4120 7.2.2).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from . import Malformed, ber, need

AS_REQ, AS_REP, TGS_REQ, TGS_REP = 10, 11, 12, 13
KRB_ERROR = 30
REQUESTS, REPLIES = frozenset((AS_REQ, TGS_REQ)), frozenset((AS_REP, TGS_REP))
TCP_LENGTH = struct.Struct("!I")
PORT = 88
# KDC-REQ ::= SEQUENCE { pvno [1], msg-type [2], padata [3] OPTIONAL, req-body [4] }
# KDC-REQ-BODY ::= SEQUENCE { kdc-options [0], cname [1] OPTIONAL, realm [2], sname [3] ... }
# KDC-REP ::= SEQUENCE { pvno [0], msg-type [1], padata [2] OPTIONAL, crealm [3], cname [4], ... }
REQ_BODY, BODY_CNAME, BODY_REALM, BODY_SNAME = 4, 1, 2, 3
REP_CREALM, REP_CNAME = 3, 4
NAME_STRING = 1  # PrincipalName ::= SEQUENCE { name-type [0], name-string [1] SEQUENCE OF }


class Krb(NamedTuple):
    msg_type: int
    realm: str | None
    cname: str | None  # "alice", "WS01$", components joined by "/"
    sname: str | None  # "krbtgt/CORP.EXAMPLE", "cifs/fs01.corp.example"

    def principal(self, name: str) -> str:
        return f"{name}@{self.realm}" if self.realm else name


def _fields(buf, start: int, end: int) -> dict[int, tuple[int, int]]:
    """Context-tagged fields [n] of a SEQUENCE: n -> (content start, end)."""
    s, e = ber.expect(buf, start, ber.SEQUENCE, end)
    out = {}
    for tag, cs, ce in ber.children(buf, s, e):
        if tag & 0xE0 == 0xA0:
            out.setdefault(tag & 0x1F, (cs, ce))
    return out


def _string(buf, span: tuple[int, int]) -> str:
    s, e = ber.expect(buf, span[0], ber.GENERAL_STRING, span[1])
    return ber.text(buf, s, e)


def _principal(buf, span: tuple[int, int]) -> str:
    fields = _fields(buf, *span)
    if NAME_STRING not in fields:
        raise Malformed("kerberos", "principal name without name-string")
    s, e = ber.expect(buf, fields[NAME_STRING][0], ber.SEQUENCE, fields[NAME_STRING][1])
    parts = []
    for tag, cs, ce in ber.children(buf, s, e):
        if tag != ber.GENERAL_STRING:
            raise Malformed("kerberos", f"name component tagged {tag:#04x}")
        parts.append(ber.text(buf, cs, ce))
    return "/".join(parts)


def decode(buf) -> Krb | None:
    """The AS/TGS message at the start of `buf`, or None for other Kerberos messages."""
    need("kerberos", buf, 0, 1)
    msg_type = buf[0] & 0x1F if buf[0] & 0xE0 == 0x60 else None
    if msg_type not in REQUESTS and msg_type not in REPLIES:
        return None
    s, e = ber.expect(buf, 0, ber.application(msg_type))
    fields = _fields(buf, s, e)
    if msg_type in REQUESTS:
        if REQ_BODY not in fields:
            raise Malformed("kerberos", "request without req-body")
        body = _fields(buf, *fields[REQ_BODY])
        realm = _string(buf, body[BODY_REALM]) if BODY_REALM in body else None
        cname = _principal(buf, body[BODY_CNAME]) if BODY_CNAME in body else None
        sname = _principal(buf, body[BODY_SNAME]) if BODY_SNAME in body else None
        return Krb(msg_type, realm, cname, sname)
    if REP_CNAME not in fields:
        raise Malformed("kerberos", "reply without cname")
    realm = _string(buf, fields[REP_CREALM]) if REP_CREALM in fields else None
    return Krb(msg_type, realm, _principal(buf, fields[REP_CNAME]), None)


def tcp_messages(data) -> list[bytes]:
    """The complete length-prefixed messages at the start of a TCP stream head."""
    out, at = [], 0
    while len(data) - at >= TCP_LENGTH.size:
        length = TCP_LENGTH.unpack_from(data, at)[0]
        if length & 0x80000000:
            raise Malformed("kerberos-tcp", "reserved length bit set")
        if len(data) - at - TCP_LENGTH.size < length:
            break
        out.append(bytes(data[at + TCP_LENGTH.size:at + TCP_LENGTH.size + length]))
        at += TCP_LENGTH.size + length
    return out
