"""The shape of a host's conversations: one that opens conversations to many places and
answers none is someone's computer, unless it shows an appliance's marks (a device
knowledge-base match: its vendor's cloud, an IoT service type, an embedded DHCP client or
User-Agent, a Wi-Fi module maker): a plug or a camera also only calls out. Nothing else in the shape names a device type: few
peers, little traffic, or answering without ever initiating fit a phone asleep, a server
idle for the capture's minute and a core network function alike, so they do not vote
(Unknown is the answer when nothing else has evidence)."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import INITIATED
from ...context import HostFacts, is_local
from ...knowledge import appliance
from ...vote import Vote

CLIENT_WEIGHT = 20
MANY_DESTINATIONS = 5


def vote(host: HostFacts) -> Iterator[Vote]:
    t = host.traffic
    if len(t.peers_out) >= MANY_DESTINATIONS and not t.peers_in and not appliance(host):
        external = sum(1 for peer in t.peers_out if not is_local(peer))
        yield Vote("Workstation", CLIENT_WEIGHT, f"opened conversations to {len(t.peers_out)} peers "
                   f"({external} outside private ranges) and answered none (+{CLIENT_WEIGHT})",
                   Grade.MEASURED, tuple(f.first_frame for f in host.facts(INITIATED)[:3]))
