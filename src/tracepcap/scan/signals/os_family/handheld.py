"""iOS from a phone's or tablet's marks (host_identity/handheld.py) on an Apple system:
announcing Wi-Fi sync (`_apple-mobdev2._tcp`) is iOS's alone; a Cast sender app's filtered
discovery is a phone or tablet app's, iOS's when the host is an Apple system by its own
mark (its MAC's registry vendor is Apple, or it browses for or announces Apple's companion
link) and Android's otherwise, which this signal leaves to other evidence."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import MDNS_QUERY, MDNS_SERVICE, OUI_VENDOR
from ...context import OWNED_MAC_KINDS, HostFacts
from ...vote import Vote
from ..host_identity.announcements import _service_type
from ..host_identity.handheld import marks

READS = (MDNS_QUERY, MDNS_SERVICE)  # it votes only from these: not run for a host with none
CONSULTS = (OUI_VENDOR, *OWNED_MAC_KINDS)  # read only beside a kind of READS

WEIGHT = 20
COMPANION = "_companion-link._tcp"


def _apple(host: HostFacts) -> str | None:
    """How the host shows it is an Apple system, or None."""
    if vendor := next((f for f in host.owned_vendors() if f.value.lower().startswith("apple")), None):
        return f"its MAC's registry vendor is {vendor.value}"
    if COMPANION in host.values(MDNS_QUERY) or any(_service_type(v) == COMPANION for v in host.values(MDNS_SERVICE)):
        return f"it looks for or offers {COMPANION}, Apple's companion link"
    return None


def vote(host: HostFacts) -> Iterator[Vote]:
    for fact, said, ios_only in marks(host):
        if ios_only:
            yield Vote("iOS", WEIGHT, f"{said} (+{WEIGHT})", fact.grade, (fact.first_frame,))
            return
        if apple := _apple(host):
            yield Vote("iOS", WEIGHT, f"{said}, and {apple}: an iPhone or iPad (+{WEIGHT})", fact.grade,
                       (fact.first_frame,))
            return
