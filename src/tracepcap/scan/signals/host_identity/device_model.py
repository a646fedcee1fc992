"""The model a device announces (`device-model`: mDNS TXT model=/am=/md=/ty=, a UPnP device
description). Apple's model identifiers name the product line exactly ("iMac11,3",
"MacBookPro16,1", "Mac14,2", "iPhone12,1", "iPad8,1", "AppleTV6,2", "AudioAccessory1,1" for
a HomePod); Google's cast devices and printers' product names say what they are as plainly.
A model string is what the device says of itself (REPORTED), but hardly anyone edits it, so
it weighs like an announced service. os_family/device_model.py reads the same table."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ....extract.kinds import DEVICE_MODEL
from ....patterns import compile_lazily
from ...context import Fact, HostFacts
from ...vote import Vote

READS = (DEVICE_MODEL,)  # it votes only from these: not run for a host with none

WEIGHT = 30


@dataclass(frozen=True, slots=True)
class Model:
    pattern: re.Pattern[str]  # searched in the model string, case-insensitive
    line: str  # the product line, for the reason
    device: str
    os: str | None
    vendor: str | None = None  # who makes every model of the line (vendor-model's answer)


def _model(pattern: str, line: str, device: str, os: str | None = None, vendor: str | None = None) -> Model:
    return Model(compile_lazily(pattern, re.I), line, device, os, vendor)


MODELS = (
    _model(r"^(imac|imacpro|macbook|macbookair|macbookpro|macmini|macpro|mac)\d+,\d+$", "a Mac",
           "Workstation", "macOS", "Apple"),
    _model(r"^(iphone|ipod)\d+,\d+$", "an iPhone", "Mobile", "iOS", "Apple"),
    _model(r"^ipad\d+,\d+$", "an iPad", "Mobile", "iOS", "Apple"),  # iPadOS is iOS
    _model(r"^appletv\d+,\d+$", "an Apple TV", "Media Device", vendor="Apple"),
    _model(r"^audioaccessory\d+,\d+$", "a HomePod", "Media Device", vendor="Apple"),
    _model(r"chromecast|google home|google nest", "a Google cast device", "Media Device"),
    _model(r"^sonos\b", "a Sonos speaker", "Media Device", "Linux", "Sonos"),  # Sonos players run Linux
    _model(r"laserjet|officejet|deskjet|pixma|imageclass|imagerunner|ecotank|workforce"
           r"|^brother (hl|mfc|dcp)-", "a printer", "Printer", "Embedded"),
)
SOURCES = {"mdns-txt": "mDNS TXT", "upnp": "its UPnP description"}


def models(host: HostFacts) -> Iterator[tuple[Fact, Model]]:
    """(fact, model) for each announced model of a known line, earliest first."""
    for fact in sorted(host.facts(DEVICE_MODEL), key=lambda f: (f.first_frame, f.value)):
        if found := next((m for m in MODELS if m.pattern.search(fact.value.strip())), None):
            yield fact, found


def reason(fact: Fact, model: Model) -> str:
    said = SOURCES.get(fact.source, fact.source)
    return f"announces model {fact.value} over {said}, frame {fact.first_frame}: {model.line} (+{WEIGHT})"


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact, model in models(host):
        if model.device not in voted:
            voted.add(model.device)
            yield Vote(model.device, WEIGHT, reason(fact, model), fact.grade, (fact.first_frame,))
