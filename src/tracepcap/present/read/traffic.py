"""Traffic per device as Present shows it (issue 28): Scan's numbers on the entity row
(scan/traffic.py), with its first and last packet as ISO 8601 UTC. None for a capture
scanned before the numbers were stored (re-analyse it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select

from ...extract.kinds import SERVED
from ...store.models import Entity, EntityMember, ObservationRow
from .shapes import plain

#: the inventory's traffic sorts: the name a filter or link uses -> what it orders by
SORTS = ("packets", "bytes", "peers", "first_seen", "last_seen")
COUNT_SORTS = frozenset(("packets", "bytes", "peers"))  # largest first unless reversed
#: the wide CSV's traffic columns, in order
CSV_COLUMNS = ("packets_sent", "packets_received", "bytes_sent", "bytes_received", "first_seen", "last_seen",
               "peers", "ports_served", "ports_used")


def iso(seconds: float | None) -> str | None:
    """Capture time (epoch seconds) as ISO 8601 UTC, microseconds kept."""
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat().replace("+00:00", "Z")


@dataclass(frozen=True, slots=True)
class DeviceTraffic:
    packets_sent: int
    packets_received: int
    bytes_sent: int
    bytes_received: int
    first_seen: str | None  # ISO 8601 UTC; None: it sent and received no IP packet
    last_seen: str | None
    peers: int
    ports_served: tuple[str, ...]  # "tcp/80", lowest first (at most scan.traffic.MAX_PORTS)
    ports_used: tuple[str, ...]

    @property
    def packets(self) -> int:
        return self.packets_sent + self.packets_received

    @property
    def bytes(self) -> int:
        return self.bytes_sent + self.bytes_received

    def document(self) -> Mapping[str, Any]:
        """The "traffic" object of `--json` and the JSON export: `plain(self)`, its fields as
        they are (the API reads the dataclass itself, schemas.TrafficOut)."""
        return plain(self)


def of(packets_sent, packets_received, bytes_sent, bytes_received, first_seen, last_seen, peers,
       ports_served, ports_used) -> DeviceTraffic | None:
    """From the entity row's traffic columns (in `Entity` order); None before Scan stored them."""
    if packets_sent is None:
        return None
    return DeviceTraffic(packets_sent, packets_received or 0, bytes_sent or 0, bytes_received or 0,
                         iso(first_seen), iso(last_seen), peers or 0, tuple(ports_served or ()),
                         tuple(ports_used or ()))


COLUMNS = (Entity.packets_sent, Entity.packets_received, Entity.bytes_sent, Entity.bytes_received,
           Entity.first_seen, Entity.last_seen, Entity.peers, Entity.ports_served, Entity.ports_used)


def of_entity(e: Entity | None) -> DeviceTraffic | None:
    if e is None:
        return None
    return of(*(getattr(e, c.key) for c in COLUMNS))


def sort_key(sort: str):
    """The column expression a traffic sort orders by (None for another sort)."""
    if sort == "packets":
        return Entity.packets_sent + Entity.packets_received
    if sort == "bytes":
        return Entity.bytes_sent + Entity.bytes_received
    if sort == "peers":
        return Entity.peers
    if sort == "first_seen":
        return Entity.first_seen
    if sort == "last_seen":
        return Entity.last_seen
    return None


def normal_port(text: str) -> str | None:
    """"80", "tcp/80" or "UDP/53" -> the port filter's form ("80", "tcp/80", "udp/53");
    None if it names no port."""
    text = text.strip().lower()
    proto, _, number = text.rpartition("/")
    if proto not in ("", "tcp", "udp") or not (number.isascii() and number.isdigit()) or int(number) > 65535:
        return None
    return f"{proto}/{int(number)}" if proto else str(int(number))


def serving(capture_id: str, port: str):
    """Keys of the entities that served `port` (normal_port's form): a measured `served` fact
    of one of their addresses or MACs, the facts `ports_served` lists."""
    value = ObservationRow.value
    match = (value == port) if "/" in port else (value.in_([f"tcp/{port}", f"udp/{port}"]))
    return (select(EntityMember.entity_key)
            .join(ObservationRow, (ObservationRow.capture_id == EntityMember.capture_id)
                  & (ObservationRow.entity == EntityMember.member))
            .where(EntityMember.capture_id == capture_id, ObservationRow.kind == SERVED.name,
                   match))
