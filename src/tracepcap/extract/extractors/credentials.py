"""`credential` facts: logins a client sent where the capture can read them, as
NetworkMiner's Credentials tab and Wireshark's Tools > Credentials list them. FTP, POP3,
IMAP, SMTP AUTH, HTTP Basic, HTTP logins posted as a form, as JSON or in a query string,
HTTP bearer tokens and cookies, Telnet, LDAP simple binds and SNMPv1/v2c communities are
cleartext; HTTP Digest, NTLM AUTHENTICATE messages (SMB, HTTP, LDAP, ...) and Kerberos
AS-REQ pre-authentication (an encrypted timestamp) give the user with a crackable response.

The value names the protocol, the user and the server, with the secret masked:
"ftp user csanders, password ****** to 192.168.0.193:21", "snmp community ****** to
10.0.0.1:161", "ftp user ftpuser, no password seen to 192.0.2.99:21", "http-json user
admin, secret ****** to 203.0.113.100:8080", "http-bearer token ****** to 10.0.0.9:80",
"http-cookie cookies PHPSESSID, lang ****** to 10.0.0.9:80", "ldap user cn=admin,dc=example,
password ****** to 10.0.0.1:389", "kerberos user alice@CORP.EXAMPLE, pre-auth ****** to
10.0.0.1:88". REPORTED, on the client; `value_parts` is the one reader of the value's shape.

The secret itself is never stored: the extractor reads logins without it. `stream_logins`
and `datagram_logins` are the one reading of a client's bytes, for the extractor (values
only) and for a reveal (`reveal=True`: each value with its secret, or for a challenge-response
the line a cracker reads, pairing an NTLM AUTHENTICATE with the server's CHALLENGE from the
`reply` bytes of the same connection), which re-reads the stored capture's frames.
"""

from __future__ import annotations

import base64
import binascii
from typing import NamedTuple

from ..decoders import DecodeError, Truncated, kerberos, ldap, logins, ntlmssp
from ..extractor import Extractor, StreamHead
from ..kinds import CREDENTIAL
from .ntlmssp import BASE64_SIGNATURE, HTTP_TOKEN, MAX_MESSAGES, RAW_TOKEN

NAME, VERSION = "credentials", "3"
MASK = "******"  # the same width whatever the secret's length
STREAM_READERS = {21: ("ftp", logins.user_pass), 110: ("pop3", logins.user_pass),
                  25: ("smtp", logins.user_pass), 587: ("smtp", logins.user_pass),
                  143: ("imap", logins.imap), 23: ("telnet", logins.telnet)}
SNMP_AGENT_PORT, SNMP_TRAP_PORT = 161, 162
LDAP_PORTS = frozenset((ldap.PORT, 3268))  # LDAP and the global catalog, both cleartext
MAX_COOKIE_NAMES = 8  # named in a value; more are counted
HTTP_FIELDS = {"form": "http-form", "json": "http-json", "query": "http-query"}
CLEARTEXT = frozenset(("ftp", "pop3", "smtp", "imap", "telnet", "http", "snmp", "http-bearer",
                       "http-cookie", "ldap", *HTTP_FIELDS.values()))
SESSION_TOKENS = frozenset(("http-cookie",))  # readable, but a session's token, not a login
FORMATS = {"ntlmv2": "hashcat -m 5600 (NetNTLMv2)", "ntlmv1": "hashcat -m 5500 (NetNTLMv1)",
           kerberos.RC4_HMAC: "hashcat -m 7500 (Kerberos 5 etype 23 AS-REQ pre-auth)",
           kerberos.AES128: "hashcat -m 19800 (Kerberos 5 etype 17 AS-REQ pre-auth)",
           kerberos.AES256: "hashcat -m 19900 (Kerberos 5 etype 18 AS-REQ pre-auth)"}


class Found(NamedTuple):
    """One login as a fact's value, with its secret only when read with reveal=True."""
    value: str
    secret: str | None = None  # the password, token, community... or the cracker's line
    format: str | None = None  # how to read the secret: "cleartext", "hashcat -m 5600 (NetNTLMv2)", ...


def describe(protocol: str, login: logins.Login, server: str, port: int) -> str:
    word = "secret" if protocol in HTTP_FIELDS.values() else "response" \
        if login.mechanism == "digest" else "password"
    secret = f"{word} {MASK}" if login.secret_sent else f"no {word} seen"
    return f"{protocol} user {login.user}, {secret} to {_endpoint(server, port)}"


def _endpoint(server: str, port: int) -> str:
    return f"[{server}]:{port}" if ":" in server else f"{server}:{port}"


def value_parts(value: str) -> tuple[str, str, int]:
    """(protocol, server, port) of a credential fact's value."""
    protocol = value.split(" ", 1)[0]
    endpoint = value.rpartition(" to ")[2]
    host, _, port = endpoint.rpartition(":")
    return protocol, host.strip("[]"), int(port)


def login_parts(value: str) -> tuple[str, str | None, str, str, int]:
    """(protocol, user or None, the masked secret as said, server, port) of a credential
    fact's value: ("ftp", "csanders", "password ******", "192.168.0.193", 21)."""
    protocol, server, port = value_parts(value)
    said = value.rpartition(" to ")[0][len(protocol) + 1:]
    if said.startswith("user "):
        user, _, secret = said[len("user "):].rpartition(", ")
        return protocol, user, secret, server, port
    return protocol, None, said, server, port


def stream_logins(src: str, dst: str, dport: int, data: bytes, *, reply: bytes = b"",
                  reveal: bool = False) -> list[Found]:
    """The logins in the first bytes one client sent to `dst:dport`, in the order the readers
    find them. `reply` (the server's first bytes on the same connection) serves a reveal
    only: an NTLM response is crackable with the server's challenge."""
    out: list[Found] = []
    end = _endpoint(dst, dport)
    found: list[tuple[str, logins.Login]] = []
    if dport in STREAM_READERS:
        protocol, read = STREAM_READERS[dport]
        found += [(protocol, login) for login in read(data, reveal=reveal)]
    if logins.REQUEST_LINE.match(data):
        found += [("http", login) for login in logins.http_basic(data, reveal=reveal)]
        found += [("http-digest", login) for login in logins.http_digest(data, reveal=reveal)]
        found += [(HTTP_FIELDS[login.mechanism], login) for login in logins.http_form(data, reveal=reveal)]
        tokens = logins.http_bearer_tokens(data)
        if tokens:  # one fact per connection, as for cookies (the first token when revealed)
            out.append(Found(f"http-bearer token {MASK} to {end}", *_said(tokens[0], reveal)))
        seen: set[tuple[str, ...]] = set()
        for names, raw in logins.http_cookies(data):
            if names not in seen:
                seen.add(names)
                out.append(Found(f"http-cookie {_cookie_names(names)} to {end}", *_said(raw, reveal)))
    for protocol, login in found:
        if login.user:
            out.append(Found(describe(protocol, login, dst, dport), *_said(login.secret, reveal)))
    if dport in LDAP_PORTS:
        out += _ldap(data, end, reveal)
    if dport == kerberos.PORT:
        try:
            messages = kerberos.tcp_messages(data)
        except DecodeError:
            messages = []
        for message in messages:
            out += _kerberos(message, end, reveal)
    out += _ntlm(data, end, reply if reveal else b"")
    return out


def datagram_logins(dst: str, dport: int, payload, *, reveal: bool = False) -> list[Found]:
    """The logins in one UDP datagram a client sent to `dst:dport` (SNMP, Kerberos)."""
    end = _endpoint(dst, dport)
    if dport in (SNMP_AGENT_PORT, SNMP_TRAP_PORT):
        community = logins.snmp_community_text(payload)
        return [Found(f"snmp community {MASK} to {end}", *_said(community, reveal))] if community else []
    if dport == kerberos.PORT:
        return _kerberos(payload, end, reveal)
    return []


def _said(secret: str | None, reveal: bool) -> tuple[str | None, str | None]:
    return (secret, "cleartext") if reveal and secret is not None else (None, None)


def _cookie_names(names: tuple[str, ...]) -> str:
    shown = ", ".join(names[:MAX_COOKIE_NAMES])
    more = f" and {len(names) - MAX_COOKIE_NAMES} more" if len(names) > MAX_COOKIE_NAMES else ""
    return f"cookies {shown}{more} {MASK}"


def _ldap(data: bytes, end: str, reveal: bool) -> list[Found]:
    try:
        binds = ldap.simple_binds(data, reveal=reveal)
    except DecodeError:
        return []  # not LDAP after all, or damaged: what was read before is lost with it
    out = []
    for bind in binds:
        if not bind.name:
            continue  # anonymous
        said = f"password {MASK}" if bind.password_sent else "no password seen"
        out.append(Found(f"ldap user {bind.name}, {said} to {end}", *_said(bind.password, reveal)))
    return out


def _kerberos(data, end: str, reveal: bool) -> list[Found]:
    try:
        msg = kerberos.decode(data)
    except DecodeError:
        return []
    if msg is None or msg.msg_type != kerberos.AS_REQ or msg.pa_enc_timestamp is None or not msg.cname:
        return []
    value = f"kerberos user {msg.principal(msg.cname)}, pre-auth {MASK} to {end}"
    if not reveal:
        return [Found(value)]
    return [Found(value, kerberos.hashcat_line(msg), FORMATS.get(msg.pa_enc_timestamp[0],
                                                                f"etype {msg.pa_enc_timestamp[0]}"))]


def _ntlm_messages(data: bytes) -> list[ntlmssp.Ntlm]:
    """The NTLMSSP messages in a direction's first bytes: raw (SMB, DCE/RPC) or base64 (an
    HTTP "NTLM"/"Negotiate" token, an SMTP/IMAP/POP3 line), in the order they stand."""
    found = [(at, data[at:]) for at in ntlmssp.find(data, MAX_MESSAGES)]
    if BASE64_SIGNATURE in data:
        encoded = {match.start(match.lastindex or 0): match.group(match.lastindex or 0)
                   for match in [*HTTP_TOKEN.finditer(data), *RAW_TOKEN.finditer(data)]}
        for at, text in sorted(encoded.items())[:MAX_MESSAGES]:
            try:
                token = base64.b64decode(text, validate=True)
            except (binascii.Error, ValueError):
                continue  # cut by the end of the head
            found += [(at, token[sig:]) for sig in ntlmssp.find(token, MAX_MESSAGES)]
    out = []
    for _, message in sorted(found, key=lambda item: item[0]):
        try:
            msg = ntlmssp.decode(message)
        except Truncated:
            continue  # the head ends inside it; the ntlmssp extractor reports that
        if msg is not None:
            out.append(msg)
    return out


def _ntlm(data: bytes, end: str, reply: bytes) -> list[Found]:
    auths = [m for m in _ntlm_messages(data) if m.msg_type == ntlmssp.AUTHENTICATE and m.user]
    if not auths:
        return []
    challenges = [m.server_challenge for m in _ntlm_messages(reply)
                  if m.msg_type == ntlmssp.CHALLENGE and m.server_challenge] if reply else []
    out = []
    for i, msg in enumerate(auths):
        user = f"{msg.domain}\\{msg.user}" if msg.domain else msg.user
        value = f"ntlm user {user}, response {MASK} to {end}"
        challenge = challenges[min(i, len(challenges) - 1)] if challenges else None
        line = ntlmssp.hashcat_line(msg, challenge) if challenge else None
        version = "ntlmv2" if len(msg.nt_response) > ntlmssp.NTLMV1_RESPONSE else "ntlmv1"
        out.append(Found(value, line, FORMATS[version] if line else None))
    return out


class Credentials(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (CREDENTIAL,)
    TCP_STREAMS = True
    UDP_PORTS = frozenset((SNMP_AGENT_PORT, SNMP_TRAP_PORT, kerberos.PORT))

    def observe(self, pkt, flow) -> None:
        if pkt.dport not in self.UDP_PORTS:
            return  # responses repeat the requester's community; replies carry no login
        try:
            found = datagram_logins(pkt.dst, pkt.dport, pkt.payload)
        except DecodeError:
            if pkt.dport == kerberos.PORT:
                return
            raise
        for login in found:
            self.emit.fact(pkt.src, CREDENTIAL, login.value, pkt.frame, pkt.ts)

    def observe_stream(self, head: StreamHead) -> None:
        for login in stream_logins(head.src, head.dst, head.dport, head.data):
            self.emit.fact(head.src, CREDENTIAL, login.value, head.first_frame, head.first_ts)
