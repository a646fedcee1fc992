"""The OS an announced Apple model identifier implies: a Mac runs macOS, an iPhone, iPod or
iPad iOS (iPadOS counts as iOS). The table and weight are host_identity/device_model.py's;
Apple TVs, HomePods, cast devices and printers name no family among this question's labels."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import DEVICE_MODEL
from ...context import HostFacts
from ...vote import Vote
from ..host_identity.device_model import WEIGHT, models, reason

READS = (DEVICE_MODEL,)  # it votes only from these: not run for a host with none


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact, model in models(host):
        if model.os and model.os not in voted:
            voted.add(model.os)
            yield Vote(model.os, WEIGHT, reason(fact, model), fact.grade, (fact.first_frame,))
