"""The OS a device's self-given name implies: "-iPad" and "-iPhone" run iOS, "-iMac" and
"-MacBook" macOS, "DESKTOP-XXXXXXX" Windows, "android-..." and "Galaxy-..." Android, a
TP-Link managed switch model its network OS, a printer's, camera's or desk phone's default
name embedded firmware. The schemes and their weight are host_identity/name_cues.py's."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import HOSTNAME_CLAIM
from ...context import HostFacts
from ...vote import Vote
from ..host_identity.name_cues import WEIGHT, cues, reason

READS = (HOSTNAME_CLAIM,)  # it votes only from these: not run for a host with none


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact, cue in cues(host):
        if cue.os and cue.os not in voted:
            voted.add(cue.os)
            yield Vote(cue.os, WEIGHT, reason(fact, cue), fact.grade, (fact.first_frame,))
