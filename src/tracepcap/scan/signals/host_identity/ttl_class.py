"""The initial TTL a host uses: 255 is typical of network equipment (Cisco IOS, JunOS), of
switches and access points as much as routers, so it votes for the parent "Network device"
and leaves the kind to routing, LLDP/CDP and services; 128 of Windows desktops; 64
(Unix-likes) says little about the device type. A remote server that starts at 255 is no
equipment of this network: TTL 255 votes only for hosts on the site. Neither votes for a
host with an appliance's marks in the device knowledge base (os_family/ttl.py
`names_nothing`): Wi-Fi modules' embedded stacks start at 128 or 255 as well."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.kinds import TTL
from ...context import LOCALITY_KINDS, HostFacts, initial_ttl
from ...knowledge import MATCHED_KINDS
from ...vote import Vote
from ..os_family.ttl import names_nothing

READS = (TTL,)  # it votes only from these: not run for a host with none
CONSULTS = (*MATCHED_KINDS, *LOCALITY_KINDS)  # read only beside a kind of READS

NETWORK_WEIGHT = 20
WINDOWS_WEIGHT = 10


def vote(host: HostFacts) -> Iterator[Vote]:
    main = host.main_ttl
    if main is None:
        return
    start = initial_ttl(int(main.value))
    if start in (128, 255) and names_nothing(host):
        return
    if start == 255 and host.locality != "remote":
        yield Vote("Network device", NETWORK_WEIGHT, f"sends with TTL {main.value} (initial 255, typical "
                   f"of network equipment: routers, switches, access points) (+{NETWORK_WEIGHT})",
                   main.grade, (main.first_frame,))
    elif start == 128:
        yield Vote("Workstation", WINDOWS_WEIGHT, f"sends with TTL {main.value} (initial 128, typical "
                   f"of Windows) (+{WINDOWS_WEIGHT})", main.grade, (main.first_frame,))
