"""dns-spoofing: answers in a DNS server's name that it did not send. Two shapes:
- its answers came from two MACs, and one of them is neither the server's own (the MAC its
  address owns) nor a router's (a remote server answers through one): an on-path host forging
  answers as the server;
- one query got two answers that disagree (other addresses, or another MAC): a forged answer
  racing the real one.
High: a forged answer steers the victim's traffic to whoever sent it. Names the server, the
forging MAC (and the address that owns it) and every witness frame."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import DNS_ANSWER_CONFLICT, DNS_ANSWER_MAC
from ...keys import mac_key
from ..context import CaptureContext
from . import Finding


def _genuine(context: CaptureContext, server: str, mac: str) -> bool:
    return server in context.mac_owners.get(mac, ()) or mac in context.router_macs


def _sender(context: CaptureContext, server: str, mac: str) -> tuple[str, str | None]:
    """How to name the MAC that forged answers, and the entity it belongs to if known."""
    owners = [owner for owner in context.mac_owners.get(mac, ()) if owner != server]
    if owners:
        return f"{mac} (the MAC of {' and '.join(owners)})", owners[0]
    device = context.entity_of.get(mac_key(mac))
    return mac, device


def find(context: CaptureContext) -> Iterator[Finding]:
    for server in context.hosts:
        host = context.host(server)
        answered = host.facts(DNS_ANSWER_MAC)
        forged = [fact for fact in answered if not _genuine(context, server, fact.value.lower())]
        if len(answered) >= 2 and forged and len(forged) < len(answered):
            genuine = sorted(fact.value.lower() for fact in answered if fact not in forged)
            for fact in forged:
                named, entity = _sender(context, server, fact.value.lower())
                frames = tuple(sorted({fact.first_frame, fact.last_frame}))
                yield Finding(
                    "dns-spoofing", "high", (server, *((entity,) if entity else ())),
                    f"{fact.count} DNS answer{'s' if fact.count > 1 else ''} in the name of "
                    f"{server} came from {named}, not from its own {', '.join(genuine)}: "
                    "forged answers", frames)
        for fact in host.facts(DNS_ANSWER_CONFLICT):
            yield Finding("dns-spoofing", "high", (server,),
                          f"two answers to one query in the name of {server} disagree: {fact.value}",
                          tuple(sorted({fact.first_frame, fact.last_frame})))
