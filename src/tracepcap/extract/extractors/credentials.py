"""`credential` facts: logins a client sent where the capture can read them, as
NetworkMiner's Credentials tab and Wireshark's Tools > Credentials list them. FTP, POP3,
IMAP, SMTP AUTH, HTTP Basic, HTTP logins posted as a form, as JSON or in a query string,
HTTP bearer tokens, Telnet and SNMPv1/v2c communities are cleartext; HTTP Digest and NTLM
AUTHENTICATE messages (SMB, HTTP) give the user with a crackable response.

The value names the protocol, the user and the server, with the secret masked:
"ftp user csanders, password ****** to 192.168.0.193:21", "snmp community ****** to
10.0.0.1:161", "ftp user ftpuser, no password seen to 192.0.2.99:21", "http-json user
admin, secret ****** to 203.0.113.100:8080", "http-bearer token ****** to 10.0.0.9:80". The secret itself
is never stored (decoders.logins does not return it): unmasking for admins is not built.
REPORTED, on the client; `value_parts` is the one reader of the value's shape.
"""

from __future__ import annotations

import base64
import binascii

from ..decoders import Truncated, logins, ntlmssp
from ..extractor import Extractor, StreamHead
from ..kinds import CREDENTIAL
from .ntlmssp import BASE64_SIGNATURE, HTTP_TOKEN, MAX_MESSAGES, RAW_TOKEN

NAME, VERSION = "credentials", "2"
MASK = "******"  # the same width whatever the secret's length
STREAM_READERS = {21: ("ftp", logins.user_pass), 110: ("pop3", logins.user_pass),
                  25: ("smtp", logins.user_pass), 587: ("smtp", logins.user_pass),
                  143: ("imap", logins.imap), 23: ("telnet", logins.telnet)}
SNMP_AGENT_PORT, SNMP_TRAP_PORT = 161, 162
HTTP_FIELDS = {"form": "http-form", "json": "http-json", "query": "http-query"}
CLEARTEXT = frozenset(("ftp", "pop3", "smtp", "imap", "telnet", "http", "snmp", "http-bearer",
                       *HTTP_FIELDS.values()))


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


class Credentials(Extractor):
    NAME, VERSION = NAME, VERSION
    KINDS = (CREDENTIAL,)
    TCP_STREAMS = True
    UDP_PORTS = frozenset((SNMP_AGENT_PORT, SNMP_TRAP_PORT))

    def observe(self, pkt, flow) -> None:
        if pkt.dport not in self.UDP_PORTS:
            return  # responses repeat the requester's community
        if logins.snmp_community(pkt.payload):
            self.emit.fact(pkt.src, CREDENTIAL,
                           f"snmp community {MASK} to {_endpoint(pkt.dst, pkt.dport)}",
                           pkt.frame, pkt.ts)

    def observe_stream(self, head: StreamHead) -> None:
        found: list[tuple[str, logins.Login]] = []
        if head.dport in STREAM_READERS:
            protocol, read = STREAM_READERS[head.dport]
            found += [(protocol, login) for login in read(head.data)]
        if logins.REQUEST_LINE.match(head.data):
            found += [("http", login) for login in logins.http_basic(head.data)]
            found += [("http-digest", login) for login in logins.http_digest(head.data)]
            found += [(HTTP_FIELDS[login.mechanism], login) for login in logins.http_form(head.data)]
            if logins.http_bearer(head.data):
                self.emit.fact(head.src, CREDENTIAL,
                               f"http-bearer token {MASK} to {_endpoint(head.dst, head.dport)}",
                               head.first_frame, head.first_ts)
        for protocol, login in found:
            if login.user:
                self.emit.fact(head.src, CREDENTIAL, describe(protocol, login, head.dst, head.dport),
                               head.first_frame, head.first_ts)
        self._ntlm(head)

    def _ntlm(self, head: StreamHead) -> None:
        data = head.data
        messages = [data[at:] for at in ntlmssp.find(data, MAX_MESSAGES)]
        if BASE64_SIGNATURE in data:
            encoded = {match.group(match.lastindex or 0)  # "NTLM TlRM..." matches both patterns
                       for match in [*HTTP_TOKEN.finditer(data), *RAW_TOKEN.finditer(data)]}
            for text in sorted(encoded)[:MAX_MESSAGES]:
                try:
                    token = base64.b64decode(text, validate=True)
                except (binascii.Error, ValueError):
                    continue  # cut by the end of the head
                messages += [token[at:] for at in ntlmssp.find(token, MAX_MESSAGES)]
        for message in messages:
            try:
                msg = ntlmssp.decode(message)
            except Truncated:
                continue  # the head ends inside it; the ntlmssp extractor reports that
            if msg is None or msg.msg_type != ntlmssp.AUTHENTICATE or not msg.user:
                continue
            user = f"{msg.domain}\\{msg.user}" if msg.domain else msg.user
            self.emit.fact(head.src, CREDENTIAL,
                           f"ntlm user {user}, response {MASK} to {_endpoint(head.dst, head.dport)}",
                           head.first_frame, head.first_ts)
