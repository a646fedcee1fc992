"""Cleartext logins in what a client sends: FTP and POP3 USER/PASS (RFC 959 4.1.1,
RFC 1939 7) and APOP, IMAP LOGIN and AUTHENTICATE PLAIN (RFC 9051 6.2), SMTP/POP3/IMAP
SASL PLAIN (RFC 4616) and LOGIN, HTTP Basic (RFC 7617), Digest (RFC 7616) and Bearer
(RFC 6750) authorizations, HTTP logins posted as a form, as JSON or in a query string,
Telnet's typed login (RFC 854, after removing option negotiation) and SNMPv1/v2c
communities (RFC 1157 4).

Each reader returns `Login`s: the user name and whether a secret followed it. The secret
itself leaves this module only when a caller asks for it (`reveal=True`): the credentials
extractor never does, so a capture's store holds only that one was sent; revealing one to an
analyst re-reads the stored capture (`present.read.credentials.reveal`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from typing import NamedTuple
from urllib.parse import parse_qsl

from ...patterns import compile_lazily
from . import Malformed, ber

MAX_LINES = 64  # of a stream head: logins come first
MAX_FIELD = 128  # a user name longer than this is not one
HTTP_BASIC = compile_lazily(rb"(?im)^authorization:[ \t]*basic[ \t]+([A-Za-z0-9+/=]{4,})[ \t]*\r?$")
HTTP_DIGEST = compile_lazily(rb'(?im)^authorization:[ \t]*digest[ \t]+(.*?)\r?$')
DIGEST_USER = compile_lazily(rb'(?i)(?:^|[\s,])username[ \t]*=[ \t]*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))')
HTTP_BEARER = compile_lazily(rb"(?im)^authorization:[ \t]*bearer[ \t]+\S+")
HTTP_COOKIE = compile_lazily(rb"(?im)^cookie:[ \t]*([^\r\n]+)")
COOKIE_NAME = compile_lazily(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}")  # an RFC 9110 token, kept short
REQUEST_AT = compile_lazily(rb"(?m)([A-Z][A-Z-]{2,15}) ([^ \r\n]{1,4096}) HTTP/1\.[01]\r?$")
REQUEST_LINE = compile_lazily(rb"(?m)^" + REQUEST_AT.pattern[4:])  # one at the start of a line
CONTENT_TYPE = compile_lazily(rb"(?im)^content-type:[ \t]*([^\r\n;]*)")
CONTENT_LENGTH = compile_lazily(rb"(?im)^content-length:[ \t]*([0-9]{1,12})[ \t]*\r?$")
# Field names that carry a login in a form, a JSON body or a query string. A request needs a
# secret field to count: a search form's "q=" or a sign-up's "email=" alone is no login.
USER_FIELDS = ("username", "user", "login", "email", "userid", "user_id", "uname", "usr",
               "account", "j_username", "mail", "name")
SECRET_FIELDS = frozenset(("password", "pass", "passwd", "pwd", "passcode", "secret", "token",
                           "j_password", "pin", "access_token", "api_key", "apikey"))
MAX_JSON_DEPTH = 4
MAX_BODY = 64 * 1024  # bytes of a request body parsed for a login
IMAP_ARG = compile_lazily(r'"((?:[^"\\]|\\.)*)"|(\S+)')  # quoted string or atom
IAC, SB, SE = 255, 250, 240
NEGOTIATION = frozenset((251, 252, 253, 254))  # WILL, WONT, DO, DONT: one option byte follows
PROMPT = compile_lazily(rb"(?i)^(?:login|username|user|password)\s*:\s*")  # echoed into a typed line


class Login(NamedTuple):
    mechanism: str  # "user/pass", "apop", "login", "sasl-plain", "sasl-login", "basic", ...
    user: str | None
    secret_sent: bool
    secret: str | None = None  # only with reveal=True: the password, community, token or response


def _kept(secret: str | bytes | None, reveal: bool) -> str | None:
    if not reveal or secret is None:
        return None
    return secret.decode("utf-8", "replace") if isinstance(secret, bytes) else secret


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


def _sasl_plain(token: bytes | None, reveal: bool = False) -> Login | None:
    """RFC 4616 2: authzid NUL authcid NUL passwd."""
    if token is None or token.count(b"\x00") != 2:
        return None
    _authz, user, password = token.split(b"\x00")
    return Login("sasl-plain", _name(user), bool(password), _kept(password, reveal))


def user_pass(data: bytes, reveal: bool = False) -> list[Login]:
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
            out.append(pending._replace(secret_sent=bool(arg), secret=_kept(arg, reveal)))
            pending = None
        elif verb == "APOP":
            user, _, digest = arg.partition(" ")
            out.append(Login("apop", _name(user), bool(digest), _kept(digest, reveal)))
        elif verb == "AUTH":
            found, i = _sasl(lines, i, arg, reveal)
            out.extend(found)
        i += 1
    if pending:
        out.append(pending)
    return out


def _sasl(lines: list[str], i: int, arg: str, reveal: bool = False) -> tuple[list[Login], int]:
    """SASL PLAIN or LOGIN after "AUTH <mechanism> [initial response]" at line i; the
    client's continuation lines follow it (the server's 334 prompts are the other way)."""
    mechanism, _, initial = arg.strip().partition(" ")
    mechanism = mechanism.upper()
    if mechanism == "PLAIN":
        if not initial and i + 1 < len(lines):
            i, initial = i + 1, lines[i + 1]
        found = _sasl_plain(_b64(initial), reveal)
        return ([found] if found else []), i
    if mechanism == "LOGIN":
        answers = [initial] if initial else []
        while len(answers) < 2 and i + 1 < len(lines) and lines[i + 1].strip() \
                and _b64(lines[i + 1]) is not None:
            i += 1
            answers.append(lines[i])
        if answers:
            secret = _b64(answers[1]) if len(answers) > 1 else None
            return [Login("sasl-login", _name(_b64(answers[0])), len(answers) > 1, _kept(secret, reveal))], i
    return [], i


def imap(data: bytes, reveal: bool = False) -> list[Login]:
    """`tag LOGIN user password` and `tag AUTHENTICATE PLAIN [response]`."""
    out: list[Login] = []
    lines = _lines(data)
    for i, line in enumerate(lines):
        words = [quoted if atom == "" else atom for quoted, atom in IMAP_ARG.findall(line)]
        if len(words) >= 3 and words[1].upper() == "LOGIN":
            password = words[3] if len(words) > 3 else None
            out.append(Login("login", _name(words[2]), bool(password), _kept(password, reveal)))
        elif len(words) >= 3 and words[1].upper() == "AUTHENTICATE":
            found, _ = _sasl(lines, i, " ".join(words[2:]), reveal)
            out.extend(found)
    return out


def http_basic(data: bytes, reveal: bool = False) -> list[Login]:
    out = []
    for match in HTTP_BASIC.finditer(data):
        token = _b64(match.group(1).decode("ascii"))
        if token is not None and b":" in token:
            user, _, password = token.partition(b":")
            out.append(Login("basic", _name(user), bool(password), _kept(password, reveal)))
    return out


def http_digest(data: bytes, reveal: bool = False) -> list[Login]:
    """Digest authorizations name the user in the clear; the response is a crackable hash
    (revealed as the authorization's parameters, which a cracker needs whole)."""
    out = []
    for match in HTTP_DIGEST.finditer(data):
        user = DIGEST_USER.search(match.group(1))
        if user:
            out.append(Login("digest", _name(user.group(1) or user.group(2)), True,
                             _kept(match.group(1).strip(), reveal)))
    return out


def http_bearer(data: bytes) -> int:
    """How many bearer tokens the requests carry (a token names no user)."""
    return len(HTTP_BEARER.findall(data))


def http_bearer_tokens(data: bytes) -> list[str]:
    """The bearer tokens themselves, in request order (for a reveal)."""
    return [match.group(0).split()[-1].decode("ascii", "replace") for match in HTTP_BEARER.finditer(data)]


def http_cookies(data: bytes) -> list[tuple[tuple[str, ...], str]]:
    """Each Cookie header a client sent (RFC 6265 5.4): the cookie names, and the header's
    value, which only a reveal may see. Names that are no RFC 6265 token are dropped."""
    out = []
    for match in HTTP_COOKIE.finditer(data):
        raw = match.group(1).decode("latin-1").strip()
        names = []
        for pair in raw.split(";"):
            name = pair.partition("=")[0].strip()
            if COOKIE_NAME.fullmatch(name) and name not in names:
                names.append(name)
        if names:
            out.append((tuple(names), raw))
    return out


def http_requests(data: bytes) -> Iterator[tuple[bytes, bytes, bytes]]:
    """(target, content type, body) of each request in a client's stream, pipelined ones
    included: a body is Content-Length bytes long, else it runs to the next request line or
    to the end of what was captured."""
    at = 0
    while (match := REQUEST_AT.match(data, at) or REQUEST_LINE.search(data, at)) is not None:
        head_end = data.find(b"\r\n\r\n", match.end())
        if head_end < 0:
            return  # the head is cut: no body to read
        head, body_at = data[match.end():head_end], head_end + 4
        kind, length = CONTENT_TYPE.search(head), CONTENT_LENGTH.search(head)
        if length:
            body_end = body_at + int(length.group(1))
        else:
            following = REQUEST_LINE.search(data, body_at)
            body_end = following.start() if following else len(data)
        yield (match.group(2), kind.group(1).strip().lower() if kind else b"",
               data[body_at:min(body_end, body_at + MAX_BODY)])
        at = max(body_end, body_at)


def http_form(data: bytes, reveal: bool = False) -> list[Login]:
    """Logins a request sends as fields: in its query string, as an urlencoded form or as
    JSON. The mechanism says where: "query", "form" or "json"."""
    out = []
    for target, content_type, body in http_requests(data):
        _, query_sep, query = target.partition(b"?")
        found = [("query", _fields_urlencoded(query))] if query_sep else []
        if body and (b"json" in content_type or body.lstrip()[:1] in (b"{", b"[")):
            found.append(("json", _fields_json(body)))
        elif body and b"=" in body and (not content_type or b"form-urlencoded" in content_type):
            found.append(("form", _fields_urlencoded(body)))
        for mechanism, fields in found:
            login = _login_of(mechanism, fields, reveal)
            if login:
                out.append(login)
    return out


def _fields_urlencoded(raw: bytes) -> dict[str, str]:
    text = raw.decode("utf-8", "replace")
    return {key.lower(): value for key, value in parse_qsl(text, keep_blank_values=True)[:256]}


def _fields_json(raw: bytes) -> dict[str, str]:
    try:
        document = json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return {}  # cut by the end of the head, or not JSON after all
    fields: dict[str, str] = {}

    def walk(node: object, depth: int) -> None:
        if depth > MAX_JSON_DEPTH:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                if isinstance(value, (dict, list)):
                    walk(value, depth + 1)
                elif isinstance(value, (str, int)) and not isinstance(value, bool):
                    fields.setdefault(str(key).lower(), str(value))
        elif isinstance(node, list):
            for item in node[:16]:
                walk(item, depth + 1)

    walk(document, 0)
    return fields


def _login_of(mechanism: str, fields: dict[str, str], reveal: bool = False) -> Login | None:
    secrets = [name for name in fields if name in SECRET_FIELDS]
    if not secrets:
        return None
    user = next((fields[name] for name in USER_FIELDS if fields.get(name)), None)
    said = "&".join(f"{name}={fields[name]}" for name in secrets)
    return Login(mechanism, _name(user), any(fields[name] for name in secrets), _kept(said, reveal))


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


def telnet(data: bytes, reveal: bool = False) -> list[Login]:
    """The first line a Telnet client typed is its login name, the second its password
    (the server's "login:" and "Password:" prompts are the other direction)."""
    lines = [PROMPT.sub(b"", line.strip()) for line in telnet_text(data).split(b"\n")[:MAX_LINES]]
    typed = [line for line in lines if line]
    if not typed or len(lines) < 2:
        return []  # a name still being typed, or nothing
    return [Login("login", _name(typed[0]), len(typed) > 1, _kept(typed[1] if len(typed) > 1 else None, reveal))]


def snmp_community(buf) -> bool:
    """Whether an SNMPv1/v2c message carries a non-empty community string."""
    return snmp_community_text(buf) is not None


def snmp_community_text(buf) -> str | None:
    """The non-empty community string of an SNMPv1/v2c message, else None."""
    start, end = ber.expect(buf, 0, ber.SEQUENCE)
    parts = []
    for part in ber.children(buf, start, end):
        parts.append(part)
        if len(parts) == 2:
            break
    if len(parts) < 2 or parts[0][0] != ber.INTEGER or parts[1][0] != ber.OCTET_STRING:
        raise Malformed("snmp", "no version and community")
    version = ber.integer(buf, parts[0][1], parts[0][2])
    if version not in (0, 1) or parts[1][2] <= parts[1][1]:
        return None
    return ber.text(buf, parts[1][1], parts[1][2])
