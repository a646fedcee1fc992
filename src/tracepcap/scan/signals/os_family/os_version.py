"""The OS a host names over SMB and NTLM (`os-version`, REPORTED): the native OS string of
an SMB session setup ("Windows 7 Professional 7601 Service Pack 1", "Windows Server 2003
3790") or an NTLM version ("Windows 10.0 Build 19041"). Samba answers "Unix" or
"Windows 6.1" to look like Windows, so only a name that says Windows, Linux, Darwin or a
BSD votes, and what Samba mimics still counts: the host chose to claim it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ....extract.kinds import OS_VERSION
from ....patterns import compile_lazily
from ...context import HostFacts
from ...vote import Vote

READS = (OS_VERSION,)  # it votes only from these: not run for a host with none

WEIGHT = 30  # the host describes its own OS to a peer: strong, but only a claim
# pattern (case-insensitive, whole word) -> family; first match wins
OS_NAMES = ((compile_lazily(r"\bwindows\b", re.I), "Windows"), (compile_lazily(r"\b(darwin|mac ?os)", re.I), "macOS"),
            (compile_lazily(r"\blinux\b", re.I), "Linux"), (compile_lazily(r"\b(free|net|open)bsd\b", re.I), "BSD"))


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(OS_VERSION), key=lambda f: (f.first_frame, f.value)):
        label = next((family for pattern, family in OS_NAMES if pattern.search(fact.value)), None)
        if label and label not in voted:
            voted.add(label)
            yield Vote(label, WEIGHT, f"it names its OS over {fact.source}: {fact.value}, first in frame "
                       f"{fact.first_frame} (+{WEIGHT})", fact.grade, (fact.first_frame,))
