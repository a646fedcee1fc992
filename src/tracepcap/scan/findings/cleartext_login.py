"""cleartext-login: a login crossed the network readable, one finding per (server,
protocol). Medium when a password or community string went in the clear (anyone on the
path holds it now), low when only a user name did. NTLM and Kerberos pre-authentication are
not cleartext (their response is a hash to crack, not the password) and raise none; neither
does an HTTP cookie (a session's token, listed with the credentials, but no login)."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.extractors.credentials import CLEARTEXT, MASK, SESSION_TOKENS, value_parts
from ...extract.kinds import CREDENTIAL
from ..context import CaptureContext
from . import Finding


def find(context: CaptureContext) -> Iterator[Finding]:
    logins: dict[tuple[str, str, int], list[tuple[str, str, int]]] = {}
    for client in context.hosts:
        for fact in context.host(client).all_facts:
            if fact.kind == CREDENTIAL.name:
                protocol, server, port = value_parts(fact.value)
                if protocol in CLEARTEXT and protocol not in SESSION_TOKENS:
                    logins.setdefault((server, protocol, port), []).append(
                        (client, fact.value, fact.first_frame))
    for (server, protocol, port), seen in sorted(logins.items()):
        secret = any(MASK in value for _, value, _ in seen)
        clients = sorted({client for client, _, _ in seen})
        users = sorted({_user(value) for _, value, _ in seen} - {None})
        who = f" as {', '.join(users)}" if users else ""
        sent = "with its password" if secret else "user name only"
        yield Finding("cleartext-login", "medium" if secret else "low", (server, *clients),
                      f"{protocol} login to {server}:{port} in cleartext ({sent}) from "
                      f"{', '.join(clients)}{who}",
                      tuple(sorted({frame for _, _, frame in seen})))


def _user(value: str) -> str | None:
    """The user a credential value names ("ftp user alice, password ..."), None for SNMP."""
    _, sep, rest = value.partition(" user ")
    return rest.rpartition(", ")[0] if sep else None
