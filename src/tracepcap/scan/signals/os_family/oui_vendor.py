"""The MAC's registry vendor names the OS family only where the vendor's devices all run one:
a Raspberry Pi runs Linux (Raspberry Pi OS, or another Linux distribution), a Sonos speaker
Sonos' Linux, and the makers
of one kind of appliance (host_identity/oui_vendor.py's printer, camera and desk-phone
makers: Brother, Axis, Hikvision, Polycom, Yealink ...) run their own embedded firmware on
it. INFERRED and weak, so anything the host says of its OS outweighs it."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import OUI_VENDOR
from ...context import OWNED_MAC_KINDS, HostFacts
from ...vote import Vote
from ..host_identity.oui_vendor import SINGLE_CLASS_VENDORS

READS = (OUI_VENDOR,)  # it votes only from these: not run for a host with none
CONSULTS = OWNED_MAC_KINDS  # read only beside a kind of READS

WEIGHT = 10
APPLIANCES = {"Printer": "printers", "IP Camera": "IP cameras", "VoIP Phone": "desk phones"}
VENDOR_FAMILIES = (("raspberry pi", "Linux", "a Raspberry Pi, a single-board Linux computer"),
                   ("sonos", "Linux", "Sonos, whose speakers all run Linux"),
                   *((fragment, "Embedded", f"a maker of {APPLIANCES[kind]}, which run embedded firmware")
                     for fragment, kind in SINGLE_CLASS_VENDORS if kind in APPLIANCES))


def vote(host: HostFacts) -> Iterator[Vote]:
    if not host.owned_macs():
        return  # a router's MAC its frames arrived with
    for fact in host.owned_vendors():  # not a spoofer's MAC it was claimed with
        lowered = fact.value.lower()
        if found := next(((family, what) for fragment, family, what in VENDOR_FAMILIES
                          if fragment in lowered), None):
            yield Vote(found[0], WEIGHT, f"MAC OUI is {fact.value}: {found[1]} (+{WEIGHT})", fact.grade,
                       (fact.first_frame,))
            return
