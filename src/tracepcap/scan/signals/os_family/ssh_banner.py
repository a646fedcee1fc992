"""SSH identification lines (RFC 4253 4.2, REPORTED): distributions patch their OpenSSH to
say so in the comment ("OpenSSH_9.6p1 Ubuntu-3ubuntu13", "OpenSSH_8.8 FreeBSD-20211221"),
Microsoft's port calls itself OpenSSH_for_Windows, and network and embedded systems ship
their own servers (Cisco, MikroTik's ROSSSH, Huawei, Dropbear). A bare "OpenSSH_9.4" runs on
every Unix-like and Windows alike: it does not vote."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import SSH_BANNER
from ...context import HostFacts
from ...vote import Vote

READS = (SSH_BANNER,)  # it votes only from these: not run for a host with none

WEIGHT = 25  # the host's own server software, rarely rewritten; still only what it says
# token in the banner (lower case) -> (family, what it names); first match wins
BANNER_TOKENS = (
    ("openssh_for_windows", "Windows", "OpenSSH for Windows"),
    ("winscp", "Windows", "WinSCP, a Windows client"),
    ("ubuntu", "Linux", "Ubuntu"), ("debian", "Linux", "Debian"), ("raspbian", "Linux", "Raspbian"),
    ("freebsd", "BSD", "FreeBSD"), ("netbsd", "BSD", "NetBSD"),
    ("cisco", "Network OS", "Cisco's SSH server"), ("rosssh", "Network OS", "MikroTik RouterOS"),
    ("huawei", "Network OS", "Huawei's VRP"), ("comware", "Network OS", "HPE Comware"),
    ("dropbear", "Embedded", "Dropbear, the SSH server of embedded firmware"),
)


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(SSH_BANNER), key=lambda f: (f.first_frame, f.value)):
        lowered = fact.value.lower()
        found = next(((label, what) for token, label, what in BANNER_TOKENS if token in lowered), None)
        if found and found[0] not in voted:
            voted.add(found[0])
            yield Vote(found[0], WEIGHT, f"its SSH banner {fact.value}, first in frame "
                       f"{fact.first_frame}, names {found[1]} (+{WEIGHT})", fact.grade, (fact.first_frame,))
