"""What a Windows Browser host announcement says the machine is ([MS-BRWS] server type bits,
the `browser-server-type` fact): a domain controller sets the domain-controller bits, a
Windows Server edition nt-server, a desktop edition nt-workstation. The plain "server" bit
means only that the Server service runs, which every Windows desktop does, so it names
nothing. REPORTED. The announced OS version is os_family/os_version.py's to read."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import BROWSER_SERVER_TYPE
from ...context import HostFacts
from ...vote import Vote

READS = (BROWSER_SERVER_TYPE,)  # it votes only from these: not run for a host with none

WEIGHT = 25
# server type bit (as the fact names it) -> (device type, what the bit says); first match wins
ROLES = (("domain-controller", "Directory Server", "a domain controller"),
         ("backup-domain-controller", "Directory Server", "a backup domain controller"),
         ("nt-server", "Server", "a Windows Server edition"),
         ("nt-workstation", "Workstation", "a Windows desktop edition"),
         ("workstation", "Workstation", "a workstation"))


def vote(host: HostFacts) -> Iterator[Vote]:
    voted: set[str] = set()
    for fact in sorted(host.facts(BROWSER_SERVER_TYPE), key=lambda f: (f.first_frame, f.value)):
        bits = fact.value.split(",")
        found = next(((label, what) for bit, label, what in ROLES if bit in bits), None)
        if found and found[0] not in voted:
            voted.add(found[0])
            yield Vote(found[0], WEIGHT, f"its Browser announcement, frame {fact.first_frame}, sets the "
                       f"type bits {fact.value}: {found[1]} (+{WEIGHT})", fact.grade, (fact.first_frame,))
