"""name-conflict: two hosts claim one name for themselves. A claim that contradicts a
certificate the other host served is high severity (impersonation shape); two hosts merely
saying the same name (DHCP, NBNS, mDNS...) is low (a renamed or re-addressed machine).
Names every claimant holds by certificate alone are no conflict: `name_shared` groups them
(CDN/anycast servers share certificates)."""

from __future__ import annotations

from collections.abc import Iterator

from ...extract.kinds import MAC
from ..context import CaptureContext, Fact
from ..names import CERTIFICATE_SOURCES, SELF_SOURCES, same_name, specificity
from . import Finding

OWN_SOURCES = SELF_SOURCES | CERTIFICATE_SOURCES  # a name a host holds by its own say or certificate


def claimed_twice(context: CaptureContext) -> Iterator[tuple[str, list[tuple[str, Fact]]]]:
    """(name, [(entity, claim)]) for each name two or more devices claim for themselves."""
    hosts = context.host_set
    for claims in context.claims_by_name.values():
        own = [(entity, fact) for entity, fact in claims
               if entity in hosts and fact.source in OWN_SOURCES]
        # the most specific name first; a bare name joins the first full name it matches
        for name in sorted({fact.value for _, fact in own}, key=lambda v: (-specificity(v), v)):
            group = [(e, f) for e, f in own if same_name(f.value, name)]
            # one device's IPv4 and IPv6 addresses (one MAC) naming it alike is no conflict
            if len({_device(context, e) for e, _ in group}) >= 2:
                yield name, group
                break


def only_certificates(group: list[tuple[str, Fact]]) -> bool:
    """Every claimant holds the name by a certificate it served, and by nothing else."""
    return all(fact.source in CERTIFICATE_SOURCES for _, fact in group)


def find(context: CaptureContext) -> Iterator[Finding]:
    for name, group in claimed_twice(context):
        if not only_certificates(group):
            yield _conflict(name, group)


def _device(context: CaptureContext, entity: str) -> tuple[str, ...]:
    """The MACs a zero-hop address sent from; a routed address is a device of its own."""
    host = context.host(entity)
    macs = () if host.hops else tuple(sorted(host.values(MAC)))
    return macs or (entity,)


def _conflict(name: str, group: list[tuple[str, Fact]]) -> Finding:
    claimants = sorted({entity for entity, _ in group})
    by_cert = {entity for entity, fact in group if fact.source in CERTIFICATE_SOURCES}
    high = bool(by_cert) and any(e not in by_cert for e in claimants)
    said = "; ".join(f"{entity} by {', '.join(sorted({f.source for e, f in group if e == entity}))}"
                     for entity in claimants)
    return Finding("name-conflict", "high" if high else "low", tuple(claimants),
                   f"{len(claimants)} hosts claim the name {name}: {said}",
                   tuple(sorted({fact.first_frame for _, fact in group})))
