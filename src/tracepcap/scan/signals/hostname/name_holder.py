"""A name this host announces but another host holds by certificate is disputed: the
certificate holder proved it (the impersonation shape), so this host's claim votes against
itself and the verdict cannot assert it."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import HOSTNAME_CLAIM
from ...context import HostFacts
from ...names import CERTIFICATE_SOURCES, SELF_SOURCES, name_key, same_name
from ...vote import Vote
from .claims import display_names

READS = (HOSTNAME_CLAIM,)  # it votes only from these: not run for a host with none

DISPUTE_WEIGHT = -20


def vote(host: HostFacts) -> Iterator[Vote]:
    claims = host.facts(HOSTNAME_CLAIM)
    own_certs = {name_key(f.value) for f in claims if f.source in CERTIFICATE_SOURCES}
    hosts = host.capture.host_set
    announced = {}
    for fact in claims:
        if fact.source in SELF_SOURCES and name_key(fact.value) not in own_certs:
            announced.setdefault(name_key(fact.value), fact.value)
    for key, said in sorted(announced.items()):
        holders = sorted({(entity, fact.first_frame) for entity, fact in host.capture.claims_by_name.get(key, [])
                          if entity not in host.addresses and entity in hosts and fact.source in CERTIFICATE_SOURCES
                          and same_name(fact.value, said)})
        for entity, frame in holders[:1]:
            shown = display_names(claims)[key]  # a disputed name is rare: spelled out only then
            yield Vote(shown, DISPUTE_WEIGHT, f"{entity} serves a certificate naming {shown}, "
                       f"frame {frame}: another host holds this name ({DISPUTE_WEIGHT:+d})",
                       Grade.REPORTED, (frame,))
