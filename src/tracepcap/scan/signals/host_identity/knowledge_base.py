"""What the device knowledge base (scan/knowledge, data with provenance) says of the host's
class: its vendor's cloud, its mDNS service types and SSDP device types, its DHCP vendor
class, the default name it gives itself, its Wi-Fi module's maker. Each reason names the
vendor and model where the evidence does, and the entry's source.

Weights: a model-naming default host name, an announced service or device type 30; a DHCP
vendor class 25; a vendor's device cloud (headless hosts only, see scan/knowledge) 25; a chip
or module maker (its OUI or its SDK's default name) 10, once, and for "IoT Device" only: a
module says some appliance carries it, not which. Evidence that names only a vendor ("a D-Link
IoT thing") supports the class another entry names for the same host (a D-Link sensor), so
the answer is as specific as any evidence is; with none, it is "IoT Device".
Only one vote per entry, however many frames repeat it.
"""

from __future__ import annotations

from collections.abc import Iterator

from ...context import HostFacts
from ...knowledge import Match, first, matches
from ...vote import Vote

IOT = "IoT Device"
WEIGHTS = {"hostname": 30, "mdns": 30, "ssdp": 30, "dhcp_vendor": 25, "cloud": 25, "oui": 15,
           "user_agent": 0}
CHIP_WEIGHT = 10
WEAK_WEIGHT = 10


def entry_weight(m: Match) -> int:
    """What one entry's match weighs (vendor_model/knowledge_base.py weighs on this scale too)."""
    if m.entry.chip:
        return CHIP_WEIGHT
    if m.entry.weak:
        return WEAK_WEIGHT
    return WEIGHTS[m.entry.table]


def most_specific(found: list[Match]) -> str | None:
    """The most specific class the evidence names: the child with the most weight behind it."""
    scores: dict[str, int] = {}
    for m in found:
        if m.entry.label and entry_weight(m):
            scores[m.entry.label] = scores.get(m.entry.label, 0) + entry_weight(m)
    children = {k: v for k, v in scores.items() if k != IOT}
    return max(sorted(children), key=lambda k: children[k]) if children else None


def vote(host: HostFacts) -> Iterator[Vote]:
    found = list(first(matches(host)))
    classed = [m for m in found if m.entry.label and entry_weight(m)]
    specific = most_specific(found)
    vendors_of_specific = {m.entry.vendor for m in classed if m.entry.label == specific and m.entry.vendor}
    chip_voted = False
    for m in found:
        weight = entry_weight(m)
        if not weight:
            continue
        if m.entry.chip:
            if chip_voted:
                continue
            chip_voted = True
        label = m.entry.label
        note = ""
        if label is None:
            if m.entry.table in ("oui", "dhcp_vendor", "user_agent") and not m.entry.chip:
                continue  # a maker's OUI (oui_vendor.py weighs makers), an OS's DHCP client
            # a vendor's (or chip's) evidence alone says "some IoT thing"; beside evidence of a
            # specific class from the same vendor (or from anyone, for a chip), that class
            label = IOT
            if specific and (m.entry.chip or not vendors_of_specific or m.entry.vendor in vendors_of_specific):
                label, note = specific, f"; with the evidence naming a {specific}, one"
        elif label == IOT and specific and (not m.entry.vendor or m.entry.vendor in vendors_of_specific
                                            or not vendors_of_specific):
            label, note = specific, f"; with the evidence naming a {specific}, one"
        yield Vote(label, weight, f"{m.describe()}{note} (+{weight})", m.fact.grade, (m.fact.first_frame,))
