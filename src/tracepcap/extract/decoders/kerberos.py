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
REQ_PADATA = 3
# PA-DATA ::= SEQUENCE { padata-type [1] Int32, padata-value [2] OCTET STRING }
PA_TYPE, PA_VALUE = 1, 2
PA_ENC_TIMESTAMP = 2  # its value: EncryptedData (RFC 4120 5.2.7.2)
# EncryptedData ::= SEQUENCE { etype [0] Int32, kvno [1] UInt32 OPTIONAL, cipher [2] OCTET STRING }
ENC_ETYPE, ENC_CIPHER = 0, 2
RC4_HMAC, AES128, AES256 = 23, 17, 18
RC4_CHECKSUM = 16  # bytes of HMAC-MD5 before an RC4-HMAC cipher's encrypted part (RFC 4757 3)
MAX_PADATA = 16
REP_CREALM, REP_CNAME = 3, 4
NAME_STRING = 1  # PrincipalName ::= SEQUENCE { name-type [0], name-string [1] SEQUENCE OF }


class Krb(NamedTuple):
    msg_type: int
    realm: str | None
    cname: str | None  # "alice", "WS01$", components joined by "/"
    sname: str | None  # "krbtgt/CORP.EXAMPLE", "cifs/fs01.corp.example"
    pa_enc_timestamp: tuple[int, bytes] | None = None  # AS-REQ pre-authentication: (etype, cipher)

    def principal(self, name: str) -> str:
        return f"{name}@{self.realm}" if self.realm else name


def _fields(buf, start: int, end: int) -> dict[int, tuple[int, int]]:
    """Context-tagged fields [n] of a SEQUENCE: n -> (content start, end)."""
    s, e = ber.expect(buf, start, ber.SEQUENCE, end)
    return _tagged(buf, s, e)


def _tagged(buf, s: int, e: int) -> dict[int, tuple[int, int]]:
    """Context-tagged fields [n] in a SEQUENCE's content (s, e)."""
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
        pa = _enc_timestamp(buf, fields[REQ_PADATA]) if msg_type == AS_REQ and REQ_PADATA in fields else None
        return Krb(msg_type, realm, cname, sname, pa)
    if REP_CNAME not in fields:
        raise Malformed("kerberos", "reply without cname")
    realm = _string(buf, fields[REP_CREALM]) if REP_CREALM in fields else None
    return Krb(msg_type, realm, _principal(buf, fields[REP_CNAME]), None)


def _enc_timestamp(buf, span: tuple[int, int]) -> tuple[int, bytes] | None:
    """(etype, cipher) of the PA-ENC-TIMESTAMP among an AS-REQ's padata, if it has one."""
    s, e = ber.expect(buf, span[0], ber.SEQUENCE, span[1])
    for count, (tag, cs, ce) in enumerate(ber.children(buf, s, e)):
        if count >= MAX_PADATA or tag != ber.SEQUENCE:
            break
        pa = _tagged(buf, cs, ce)
        if PA_TYPE not in pa or PA_VALUE not in pa:
            continue
        ts, te = ber.expect(buf, pa[PA_TYPE][0], ber.INTEGER, pa[PA_TYPE][1])
        if ber.integer(buf, ts, te) != PA_ENC_TIMESTAMP:
            continue
        vs, ve = ber.expect(buf, pa[PA_VALUE][0], ber.OCTET_STRING, pa[PA_VALUE][1])
        enc = _fields(buf, vs, ve)
        if ENC_ETYPE not in enc or ENC_CIPHER not in enc:
            raise Malformed("kerberos", "PA-ENC-TIMESTAMP without etype and cipher")
        es, ee = ber.expect(buf, enc[ENC_ETYPE][0], ber.INTEGER, enc[ENC_ETYPE][1])
        xs, xe = ber.expect(buf, enc[ENC_CIPHER][0], ber.OCTET_STRING, enc[ENC_CIPHER][1])
        return ber.integer(buf, es, ee), bytes(buf[xs:xe])
    return None


def hashcat_line(msg: Krb) -> str | None:
    """An AS-REQ's encrypted timestamp as hashcat reads it: etype 23 (mode 7500)
    `$krb5pa$23$user$realm$salt$` + encrypted timestamp + checksum (the cipher's first 16
    bytes, moved to the end; salt left empty: RC4-HMAC uses none); etype 17 and 18 (modes
    19800, 19900) `$krb5pa$18$user$realm$` + the cipher as sent (its 12-byte HMAC last)."""
    if msg.pa_enc_timestamp is None or not msg.cname:
        return None
    etype, cipher = msg.pa_enc_timestamp
    user, realm = msg.cname, msg.realm or ""
    if etype == RC4_HMAC:
        return f"$krb5pa$23${user}${realm}$${cipher[RC4_CHECKSUM:].hex()}{cipher[:RC4_CHECKSUM].hex()}"
    return f"$krb5pa${etype}${user}${realm}${cipher.hex()}"


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
