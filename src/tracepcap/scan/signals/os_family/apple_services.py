"""Services only Apple's operating systems announce over mDNS (MDNS_SERVICE, REPORTED):
`_companion-link._tcp` (Continuity / the companion link between a user's Apple devices),
`_apple-mobdev2._tcp` (Wi-Fi sync of an iPhone or iPad), `_rdlink._tcp` (Apple's remote
desktop link) and `_apple-pairable._tcp`. Macs, iPhones, iPads, Apple TVs and HomePods all
announce the first, so the vote is for the family, "Apple", and what else the host says
(its model, its name, its User-Agent) picks macOS or iOS. AirPlay and RAOP do not vote:
TVs and speakers of other makers announce them too.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import MDNS_SERVICE
from ...context import HostFacts
from ...vote import Vote
from ..host_identity.announcements import _service_type

WEIGHT = 20
APPLE_ONLY = {
    "_companion-link._tcp": "Apple's Continuity companion link",
    "_apple-mobdev2._tcp": "Apple's Wi-Fi sync of an iPhone or iPad",
    "_rdlink._tcp": "Apple's remote desktop link",
    "_apple-pairable._tcp": "Apple's pairing service",
}


def vote(host: HostFacts) -> Iterator[Vote]:
    for fact in sorted(host.facts(MDNS_SERVICE), key=lambda f: (f.first_frame, f.value)):
        service = _service_type(fact.value)
        if service in APPLE_ONLY:
            yield Vote("Apple", WEIGHT, f"announces {service} over mDNS, frame {fact.first_frame}: "
                       f"{APPLE_ONLY[service]}, which only Apple's systems announce (+{WEIGHT})",
                       fact.grade, (fact.first_frame,))
            return
