"""The model a device announces (`device-model`: mDNS TXT, UPnP) where its product line has
one maker (host_identity/device_model.py's table): "iMac11,3" is Apple's, so "Apple iMac11,3".
Weight 30, as an announced model weighs for host-identity; one vote per announced model."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import DEVICE_MODEL
from ...context import HostFacts
from ...vote import Vote
from ..host_identity.device_model import WEIGHT, models
from .knowledge_base import make

READS = (DEVICE_MODEL,)  # it votes only from these: not run for a host with none

SOURCES = {"mdns-txt": "mDNS TXT", "upnp": "its UPnP description"}


def vote(host: HostFacts) -> Iterator[Vote]:
    seen: set[str] = set()
    for fact, model in models(host):
        if model.vendor and fact.value not in seen:
            seen.add(fact.value)
            yield Vote(make(model.vendor, fact.value.strip()), WEIGHT,
                       f"announces model {fact.value} over {SOURCES.get(fact.source, fact.source)}, frame "
                       f"{fact.first_frame}: {model.line}, made by {model.vendor} (+{WEIGHT})",
                       fact.grade, (fact.first_frame,))
