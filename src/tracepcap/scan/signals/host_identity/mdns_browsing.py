"""What a host browses for over mDNS (`mdns-query`, MEASURED): a host looking for cast
receivers, AirPlay speakers, Spotify Connect players or HomeKit accessories is the thing that
controls them, a phone, tablet or computer someone holds: a "Client device". Appliances
announce those services; they do not browse for several kinds of them. Which kind of client
(phone or computer) its OS, model or name must tell, so the vote is for the parent.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import MDNS_QUERY
from ...context import HostFacts
from ...vote import Vote

READS = (MDNS_QUERY,)  # it votes only from these: not run for a host with none

WEIGHT = 15  # below a name or model naming the kind of client (20): they say more
# service types a controller browses for -> what it looks for
CONTROLLED = {
    "_airplay._tcp": "AirPlay receivers", "_raop._tcp": "AirPlay receivers",
    "_googlecast._tcp": "Google Cast receivers", "_spotify-connect._tcp": "Spotify Connect players",
    "_homekit._tcp": "HomeKit accessories", "_hap._tcp": "HomeKit accessories",
    "_companion-link._tcp": "the user's other Apple devices",
}
AT_LEAST = 2  # kinds of thing: one could be a bridge's own discovery


def vote(host: HostFacts) -> Iterator[Vote]:
    found = sorted((f for f in host.facts(MDNS_QUERY) if f.value in CONTROLLED), key=lambda f: f.first_frame)
    kinds = sorted({CONTROLLED[f.value] for f in found})
    if len(kinds) >= AT_LEAST:
        services = ", ".join(sorted({f.value for f in found}))
        yield Vote("Client device", WEIGHT, f"browses for {services} over mDNS, first in frame "
                   f"{found[0].first_frame}: it looks for {', '.join(kinds)} to control, as phones, "
                   f"tablets and computers do (+{WEIGHT})", found[0].grade, (found[0].first_frame,))
