"""Cleartext logins in what a client sends: FTP and POP3 USER/PASS (RFC 959 4.1.1,
RFC 1939 7) and APOP, IMAP LOGIN and AUTHENTICATE PLAIN (RFC 9051 6.2), SMTP/POP3/IMAP
SASL PLAIN (RFC 4616) and LOGIN, HTTP Basic (RFC 7617), Telnet's typed login (RFC 854,
after removing option negotiation) and SNMPv1/v2c communities (RFC 1157 4).

Each reader returns `Login`s: the user name and whether a secret followed it. The secret
itself never leaves this module: callers can store only that one was sent in the clear.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import NamedTuple

from . import Malformed, ber

MAX_LINES = 64  # of a stream head: logins come first
MAX_FIELD = 128  # a user name longer than this is not one
HTTP_BASIC = re.compile(rb"(?im)^authorization:[ \t]*basic[ \t]+([A-Za-z0-9+/=]{4,})[ \t]*\r?$")
IMAP_ARG = re.compile(r'"((?:[^"\\]|\\.)*)"|(\S+)')  # quoted string or atom
IAC, SB, SE = 255, 250, 240
NEGOTIATION = frozenset((251, 252, 253, 254))  # WILL, WONT, DO, DONT: one option byte follows
PROMPT = re.compile(rb"(?i)^(?:login|username|user|password)\s*:\s*")  # echoed into a typed line


class Login(NamedTuple):
    mechanism: str  # "user/pass", "apop", "login", "sasl-plain", "sasl-login", "basic", ...
    user: str | None
    secret_sent: bool


def _lines(data: bytes) -> list[str]:
    return [line.decode("utf-8", "replace").strip("\r")
            for line in data.split(b"\n", MAX_LINES)[:MAX_LINES]]


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None


def _name(raw: str | bytes | None) -> str | None:
    if raw is None:
        return None
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    text = text.strip()
    return text[:MAX_FIELD] if text else None


def _sasl_plain(token: bytes | None) -> Login | None:
    """RFC 4616 2: authzid NUL authcid NUL passwd."""
    if token is None or token.count(b"\x00") != 2:
        return None
    _authz, user, password = token.split(b"\x00")
    return Login("sasl-plain", _name(user), bool(password))


def user_pass(data: bytes) -> list[Login]:
    """FTP and POP3: USER, then PASS; POP3's APOP; SASL after AUTH (POP3 and SMTP alike)."""
    out: list[Login] = []
    lines, i, pending = _lines(data), 0, None
    while i < len(lines):
        verb, _, arg = lines[i].partition(" ")
        verb = verb.upper()
        if pending and verb != "PASS":
            out.append(pending)  # USER not followed by PASS: the name alone was sent
            pending = None
        if verb == "USER":
            pending = Login("user/pass", _name(arg), False)
        elif verb == "PASS" and pending:
            out.append(pending._replace(secret_sent=bool(arg)))
            pending = None
        elif verb == "APOP":
            user, _, digest = arg.partition(" ")
            out.append(Login("apop", _name(user), bool(digest)))
        elif verb == "AUTH":
            found, i = _sasl(lines, i, arg)
            out.extend(found)
        i += 1
    if pending:
        out.append(pending)
    return out


def _sasl(lines: list[str], i: int, arg: str) -> tuple[list[Login], int]:
    """SASL PLAIN or LOGIN after "AUTH <mechanism> [initial response]" at line i; the
    client's continuation lines follow it (the server's 334 prompts are the other way)."""
    mechanism, _, initial = arg.strip().partition(" ")
    mechanism = mechanism.upper()
    if mechanism == "PLAIN":
        if not initial and i + 1 < len(lines):
            i, initial = i + 1, lines[i + 1]
        found = _sasl_plain(_b64(initial))
        return ([found] if found else []), i
    if mechanism == "LOGIN":
        answers = [initial] if initial else []
        while len(answers) < 2 and i + 1 < len(lines) and lines[i + 1].strip() \
                and _b64(lines[i + 1]) is not None:
            i += 1
            answers.append(lines[i])
        if answers:
            return [Login("sasl-login", _name(_b64(answers[0])), len(answers) > 1)], i
    return [], i


def imap(data: bytes) -> list[Login]:
    """`tag LOGIN user password` and `tag AUTHENTICATE PLAIN [response]`."""
    out: list[Login] = []
    lines = _lines(data)
    for i, line in enumerate(lines):
        words = [quoted if atom == "" else atom for quoted, atom in IMAP_ARG.findall(line)]
        if len(words) >= 3 and words[1].upper() == "LOGIN":
            out.append(Login("login", _name(words[2]), len(words) > 3 and bool(words[3])))
        elif len(words) >= 3 and words[1].upper() == "AUTHENTICATE":
            found, _ = _sasl(lines, i, " ".join(words[2:]))
            out.extend(found)
    return out


def http_basic(data: bytes) -> list[Login]:
    out = []
    for match in HTTP_BASIC.finditer(data):
        token = _b64(match.group(1).decode("ascii"))
        if token is not None and b":" in token:
            user, _, password = token.partition(b":")
            out.append(Login("basic", _name(user), bool(password)))
    return out


def telnet_text(data: bytes) -> bytes:
    """What the user typed: option negotiation and subnegotiation removed, IAC IAC kept
    as one 255, CR NUL and CR LF as a line end (RFC 854)."""
    out, i = bytearray(), 0
    while i < len(data):
        byte = data[i]
        if byte != IAC:
            out.append(byte)
            i += 1
        elif i + 1 >= len(data):
            break
        elif data[i + 1] == IAC:
            out.append(IAC)
            i += 2
        elif data[i + 1] in NEGOTIATION:
            i += 3
        elif data[i + 1] == SB:
            end = data.find(bytes((IAC, SE)), i + 2)
            i = len(data) if end < 0 else end + 2
        else:
            i += 2
    return bytes(out).replace(b"\r\x00", b"\n").replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def telnet(data: bytes) -> list[Login]:
    """The first line a Telnet client typed is its login name, the second its password
    (the server's "login:" and "Password:" prompts are the other direction)."""
    lines = [PROMPT.sub(b"", line.strip()) for line in telnet_text(data).split(b"\n")[:MAX_LINES]]
    typed = [line for line in lines if line]
    if not typed or len(lines) < 2:
        return []  # a name still being typed, or nothing
    return [Login("login", _name(typed[0]), len(typed) > 1)]


def snmp_community(buf) -> bool:
    """Whether an SNMPv1/v2c message carries a non-empty community string."""
    start, end = ber.expect(buf, 0, ber.SEQUENCE)
    parts = []
    for part in ber.children(buf, start, end):
        parts.append(part)
        if len(parts) == 2:
            break
    if len(parts) < 2 or parts[0][0] != ber.INTEGER or parts[1][0] != ber.OCTET_STRING:
        raise Malformed("snmp", "no version and community")
    version = ber.integer(buf, parts[0][1], parts[0][2])
    return version in (0, 1) and parts[1][2] > parts[1][1]
