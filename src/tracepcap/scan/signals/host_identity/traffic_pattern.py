"""The shape of a host's conversations: who starts them, and with how many peers."""

from __future__ import annotations

from collections.abc import Iterator

from ....extract.facts import Grade
from ....extract.kinds import INITIATED, SERVED
from ...context import HostFacts, is_local
from ...vote import Vote
from .services_answered import SERVICES

CLIENT_WEIGHT = 20  # opens conversations to many places, answers none: someone's computer
SERVER_WEIGHT = 15  # answers on ports no other signal names, never opens: a server
IOT_WEIGHT = 10  # a trickle to one or two peers
MANY_DESTINATIONS = 5
FEW_PEERS = 2
LOW_VOLUME = 20_000  # bytes over the whole capture
INFRASTRUCTURE = frozenset(("udp/53", "udp/123", "udp/67", "udp/68"))  # every host does these


def vote(host: HostFacts) -> Iterator[Vote]:
    t = host.traffic
    if not t.conversations:
        return
    frames = tuple(f.first_frame for f in host.facts(INITIATED)[:3])
    external = sum(1 for peer in t.peers_out if not is_local(peer))
    if len(t.peers_out) >= MANY_DESTINATIONS and not t.peers_in:
        yield Vote("Workstation", CLIENT_WEIGHT, f"opened conversations to {len(t.peers_out)} peers "
                   f"({external} outside private ranges) and answered none (+{CLIENT_WEIGHT})",
                   Grade.MEASURED, frames)
    elif t.peers_in and not t.peers_out and not any(v in SERVICES for v in host.values(SERVED)):
        # a named service already says which server; this speaks only for unnamed ones
        yield Vote("Server", SERVER_WEIGHT, f"answered {len(t.peers_in)} peers and opened no "
                   f"conversation itself (+{SERVER_WEIGHT})", Grade.MEASURED,
                   tuple(f.first_frame for f in host.facts(SERVED)[:3]))
    elif 0 < len(t.peers_out | t.peers_in) <= FEW_PEERS and t.bytes_sent + t.bytes_received < LOW_VOLUME \
            and not host.facts(SERVED) and set(host.values(INITIATED)) - INFRASTRUCTURE:
        yield Vote("IoT Device", IOT_WEIGHT, f"talked to only {len(t.peers_out | t.peers_in)} peer(s), "
                   f"{t.bytes_sent + t.bytes_received} bytes in all (+{IOT_WEIGHT})", Grade.MEASURED, frames)
