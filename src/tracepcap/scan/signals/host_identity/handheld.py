"""What marks a phone or tablet apart from a computer, by what it browses and announces over
mDNS (MEASURED queries, REPORTED announcements), whoever made it:

- a Cast sender app's filtered discovery: a PTR question for `_<app id>._sub._googlecast._tcp`
  (RFC 6763 7.1 subtype; the app id is the 8 hex digits of a registered Cast receiver app).
  The Google Cast SDK, which phone and tablet apps (iOS, Android) embed, browses for receivers
  running its own app this way; a desktop browser casts through the bare `_googlecast._tcp`.
- announcing `_apple-mobdev2._tcp`: Wi-Fi sync, which iPhones and iPads offer for a computer
  (Finder, iTunes) to find them; computers browse for it, they do not announce it.

Either says "Mobile"; os_family/handheld.py reads the same marks for iOS where the host is
an Apple system. Browsing for what a controller controls (mdns_browsing.py) says only
"Client device": Macs browse for AirPlay and HomeKit too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....extract.kinds import MDNS_QUERY, MDNS_SERVICE
from ...context import Fact, HostFacts
from ...vote import Vote
from .announcements import _service_type

READS = (MDNS_QUERY, MDNS_SERVICE)  # it votes only from these: not run for a host with none

WEIGHT = 25  # above a controller's browsing (15): it tells which kind of client
CAST_APP = re.compile(r"^_([0-9a-f]{8})\._sub\._googlecast\._tcp$")
WIFI_SYNC = "_apple-mobdev2._tcp"


def marks(host: HostFacts) -> list[tuple[Fact, str, bool]]:
    """(fact, what it says, whether only Apple's iOS does it), earliest first: at most one
    Cast app browse and one Wi-Fi sync announcement."""
    out: list[tuple[Fact, str, bool]] = []
    browsed = sorted((f for f in host.facts(MDNS_QUERY) if CAST_APP.match(f.value)),
                     key=lambda f: (f.first_frame, f.value))
    if browsed:
        f = browsed[0]
        app = CAST_APP.match(f.value).group(1).upper()
        said = (f"browses for {f.value} over mDNS, frame {f.first_frame}: the Google Cast SDK of a phone "
                f"or tablet app looking for receivers that run its app {app} (a desktop browser looks for "
                "every receiver)")
        out.append((f, said, False))
    announced = sorted((f for f in host.facts(MDNS_SERVICE) if _service_type(f.value) == WIFI_SYNC),
                       key=lambda f: (f.first_frame, f.value))
    if announced:
        f = announced[0]
        said = (f"announces {WIFI_SYNC} over mDNS, frame {f.first_frame}: the Wi-Fi sync an iPhone or "
                "iPad offers to a computer")
        out.append((f, said, True))
    return sorted(out, key=lambda m: m[0].first_frame)


def vote(host: HostFacts) -> Iterator[Vote]:
    for fact, said, _ in marks(host)[:1]:  # one mark or two: the same fact about the device
        yield Vote("Mobile", WEIGHT, f"{said} (+{WEIGHT})", fact.grade, (fact.first_frame,))
