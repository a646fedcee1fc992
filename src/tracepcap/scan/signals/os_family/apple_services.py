"""Services only Apple's operating systems announce over mDNS (MDNS_SERVICE, REPORTED):
`_companion-link._tcp` (Continuity / the companion link between a user's Apple devices),
`_apple-mobdev2._tcp` (Wi-Fi sync of an iPhone or iPad), `_rdlink._tcp` (Apple's remote
desktop link) and `_apple-pairable._tcp`. Macs, iPhones, iPads, Apple TVs and HomePods all
announce the first, so the vote is for the family, "Apple", and what else the host says
(its model, its name, its User-Agent) picks macOS or iOS. AirPlay and RAOP do not vote:
TVs and speakers of other makers announce them too.
Browsing (`mdns-query`) for `_companion-link._tcp` (the user's other Apple devices) or
`_apple-mobdev2._tcp`, or for `_homekit._tcp` (Apple's Home app) beside another of them, is
what Apple's systems do as well: a vote for "Apple", half the weight of an announcement (a
query is a wish, not a claim, and the host's own model or name should pick macOS or iOS).
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import MDNS_QUERY, MDNS_SERVICE
from ...context import HostFacts
from ...vote import Vote
from ..host_identity.announcements import _service_type

READS = (MDNS_QUERY, MDNS_SERVICE)  # it votes only from these: not run for a host with none

WEIGHT = 20
APPLE_ONLY = {
    "_companion-link._tcp": "Apple's Continuity companion link",
    "_apple-mobdev2._tcp": "Apple's Wi-Fi sync of an iPhone or iPad",
    "_rdlink._tcp": "Apple's remote desktop link",
    "_apple-pairable._tcp": "Apple's pairing service",
}

BROWSE_WEIGHT = 10
APPLE_BROWSED = frozenset(("_companion-link._tcp", "_apple-mobdev2._tcp", "_homekit._tcp"))


def vote(host: HostFacts) -> Iterator[Vote]:
    for fact in sorted(host.facts(MDNS_SERVICE), key=lambda f: (f.first_frame, f.value)):
        service = _service_type(fact.value)
        if service in APPLE_ONLY:
            yield Vote("Apple", WEIGHT, f"announces {service} over mDNS, frame {fact.first_frame}: "
                       f"{APPLE_ONLY[service]}, which only Apple's systems announce (+{WEIGHT})",
                       fact.grade, (fact.first_frame,))
            return
    browsed = {f.value: f for f in host.facts(MDNS_QUERY)}
    apple = sorted(s for s in browsed if s in APPLE_BROWSED)
    if apple and (len(apple) > 1 or apple[0] != "_homekit._tcp"):
        first = min((browsed[s] for s in apple), key=lambda f: f.first_frame)
        yield Vote("Apple", BROWSE_WEIGHT, f"browses for {', '.join(apple)} over mDNS, first in frame "
                   f"{first.first_frame}: only Apple's systems look for them (+{BROWSE_WEIGHT})",
                   first.grade, (first.first_frame,))
