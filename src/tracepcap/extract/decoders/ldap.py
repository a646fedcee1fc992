"""LDAP simple binds (RFC 4511 4.2): the BindRequests a client sends at the start of an LDAP
connection, with the bind DN and, for simple authentication, the password in the clear.

  LDAPMessage ::= SEQUENCE { messageID INTEGER, protocolOp CHOICE { bindRequest [APPLICATION 0]
                  SEQUENCE { version INTEGER, name LDAPDN, authentication CHOICE {
                  simple [0] OCTET STRING, sasl [3] SaslCredentials } }, ... }, controls [0] OPTIONAL }

SASL binds (GSSAPI, GSS-SPNEGO, DIGEST-MD5) carry no password and are skipped; an NTLM token
inside one is found by its signature elsewhere. Messages follow each other in the stream
without framing of their own (RFC 4511 5.1).
"""

from __future__ import annotations

from typing import NamedTuple

from . import Malformed, Truncated, ber

PORT = 389
BIND_REQUEST = ber.application(0)
SIMPLE = 0x80  # [0] primitive
MAX_MESSAGES = 16  # of a stream head: binds come first
MAX_DN = 256  # characters of a bind DN kept


class Bind(NamedTuple):
    name: str  # the bind DN ("" for an anonymous bind)
    password_sent: bool
    password: str | None  # only with reveal=True


def simple_binds(data, reveal: bool = False) -> list[Bind]:
    """The simple BindRequests among the first LDAP messages of a client's stream. A message
    cut by the end of the head ends the list; anything not LDAP is Malformed."""
    out: list[Bind] = []
    at = 0
    for _ in range(MAX_MESSAGES):
        if at >= len(data):
            break
        try:
            start, end = ber.expect(data, at, ber.SEQUENCE)
        except Truncated:
            break
        parts = list(ber.children(data, start, end))
        if len(parts) < 2 or parts[0][0] != ber.INTEGER:
            raise Malformed("ldap", "a message without messageID and protocolOp")
        tag, op_start, op_end = parts[1]
        if tag == BIND_REQUEST:
            bind = _bind(data, op_start, op_end, reveal)
            if bind is not None:
                out.append(bind)
        at = end
    return out


def _bind(data, start: int, end: int, reveal: bool) -> Bind | None:
    fields = list(ber.children(data, start, end))
    if len(fields) < 3 or fields[0][0] != ber.INTEGER or fields[1][0] != ber.OCTET_STRING:
        raise Malformed("ldap", "a BindRequest without version, name and authentication")
    tag, auth_start, auth_end = fields[2]
    if tag != SIMPLE:
        return None  # SASL
    name = bytes(data[fields[1][1]:fields[1][2]]).decode("utf-8", "replace")[:MAX_DN]
    password = bytes(data[auth_start:auth_end]).decode("utf-8", "replace") if reveal else None
    return Bind(name, auth_end > auth_start, password)
