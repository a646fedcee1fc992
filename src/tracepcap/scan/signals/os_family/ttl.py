"""The initial TTL a host's stack uses (from the TTL it arrived with, hops added back).

128 is Windows' default and 255 that of network operating systems such as Cisco IOS, so
each is a weak vote (any host can be set to another initial TTL). 64 is the default of
Linux, Android, ChromeOS, macOS, iOS, the BSDs and most embedded stacks: it rules Windows
out but names no family, so it says so in a vote of weight 0 for "Unknown" rather than
pick one or dilute a vote seven ways.
An initial 32 (old Windows, a few embedded stacks) is too rare to read: no vote.

128 and 255 alone name nothing: lwIP-class stacks of Wi-Fi modules start at 128 or 255 too,
so neither votes for a host that shows an appliance's marks in the device knowledge base
(a chip maker's OUI, a vendor's device cloud, an embedded DHCP client): `names_nothing`.
host_identity/ttl_class.py asks the same.
"""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import TTL
from ...context import HostFacts, initial_ttl
from ...knowledge import MATCHED_KINDS, appliance
from ...vote import Vote

READS = (TTL,)  # it votes only from these: not run for a host with none
CONSULTS = MATCHED_KINDS  # read only beside a kind of READS

WEIGHT = 10
FAMILIES = {128: ("Windows", "the Windows default"),
            255: ("Network OS", "the default of network operating systems such as Cisco IOS")}
UNIX_LIKE = "shared by Linux, Android, ChromeOS, macOS, iOS, the BSDs and most embedded stacks"


def names_nothing(host: HostFacts) -> bool:
    """An initial 128 or 255 from a host with an appliance's marks: an embedded stack's."""
    return bool(appliance(host))


def vote(host: HostFacts) -> Iterator[Vote]:
    main = host.main_ttl
    if main is None:
        return
    start = initial_ttl(int(main.value))
    seen = f"sends with TTL {main.value}, first in frame {main.first_frame}"
    if start in FAMILIES and not names_nothing(host):
        label, why = FAMILIES[start]
        yield Vote(label, WEIGHT, f"{seen} (initial {start}, {why}) (+{WEIGHT})", main.grade,
                   (main.first_frame,))
    elif start == 64:
        yield Vote("Unknown", 0, f"{seen} (initial 64, {UNIX_LIKE}: it names none of them) (+0)",
                   main.grade, (main.first_frame,))
