"""What is in this capture: packets and bytes by application, from the stored conversations.

A conversation's application is the one an `application-used` fact of its client names for
its server port (recognised by payload: "by payload"); else the one its server port usually
carries (`well_known_ports.toml`: "by port"); else, for ICMP and other protocols without
ports, the protocol itself ("by protocol"); else it is "other tcp" / "other udp"
("unidentified"). The server port is the responder's when the handshake was seen, else the
first of the two ports the table knows. Each application lists the inventory's devices on
either side (a broadcast or group address is none)."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sqlalchemy import case, func, select
from sqlalchemy.orm import Session

from ...extract.kinds import APPLICATION_USED
from ...store.models import Conversation, EntityMember, ObservationRow

PORTS_FILE = Path(__file__).with_name("well_known_ports.toml")
BY_PAYLOAD, BY_PORT, BY_PROTOCOL, UNIDENTIFIED = "by payload", "by port", "by protocol", "unidentified"
PORTED = frozenset(("tcp", "udp", "sctp"))
PROTOCOL_NAMES = {"icmp": "ICMP", "icmpv6": "ICMPv6", "50": "IPsec (ESP)", "47": "GRE", "2": "IGMP", "89": "OSPF"}
MAX_DEVICES = 100  # listed per side; the counts count them all


@dataclass(frozen=True, slots=True)
class Application:
    name: str
    detected: str  # by payload | by port | by protocol | unidentified
    ports: tuple[str, ...]  # the server ports it was seen on ("tcp/22"), at most 20
    conversations: int
    packets: int
    bytes: int
    clients: tuple[str, ...]  # the devices that opened its conversations (first MAX_DEVICES)
    servers: tuple[str, ...]  # the devices that answered
    client_count: int
    server_count: int
    first_frame: int


@lru_cache(maxsize=1)
def well_known_ports() -> Mapping[str, str]:
    with PORTS_FILE.open("rb") as f:
        return dict(tomllib.load(f)["ports"])


def _payload_facts(session: Session, capture_id: str) -> Mapping[tuple[str, str, int], str]:
    """(client address, proto, server port) -> the application its payload showed."""
    out: dict[tuple[str, str, int], str] = {}
    for entity, value in session.execute(select(ObservationRow.entity, ObservationRow.value).where(
            ObservationRow.capture_id == capture_id, ObservationRow.kind == APPLICATION_USED.name)
            .order_by(ObservationRow.first_frame, ObservationRow.id)):
        app, _, where = value.rpartition(" ")
        proto, _, port = where.partition("/")
        if not app or not port.isdigit():
            continue
        if proto == "ip":  # "IPsec (ESP) ip/50": a protocol number, stored as the conversation's proto
            proto, port = port, "0"
        out.setdefault((entity, proto, int(port)), app)
    return out


def classify(proto: str, src: str, sport: int, dst: str, dport: int, measured: bool,
             payload: Mapping[tuple[str, str, int], str], ports: Mapping[str, str]) -> tuple[str, str, str, bool]:
    """(application, how it was detected, server port, whether `src` is the client) of one
    conversation; `measured`: its handshake said `src` opened it."""
    if (app := payload.get((src, proto, dport))) is not None:
        return app, BY_PAYLOAD, f"{proto}/{dport}", True
    if not measured and (app := payload.get((dst, proto, sport))) is not None:
        return app, BY_PAYLOAD, f"{proto}/{sport}", False
    if proto not in PORTED:
        return PROTOCOL_NAMES.get(proto, f"IP protocol {proto}"), BY_PROTOCOL, proto, True
    if (app := ports.get(f"{proto}/{dport}")) is not None:
        return app, BY_PORT, f"{proto}/{dport}", True
    if not measured and (app := ports.get(f"{proto}/{sport}")) is not None:
        return app, BY_PORT, f"{proto}/{sport}", False
    return f"other {proto}", UNIDENTIFIED, f"{proto}/{dport}", True


def applications(session: Session, capture_id: str) -> list[Application]:
    """The capture's applications, most bytes first."""
    payload = _payload_facts(session, capture_id)
    ports = well_known_ports()
    holder = dict(session.execute(select(EntityMember.member, EntityMember.entity_key)
                                  .where(EntityMember.capture_id == capture_id)).all())
    measured = Conversation.initiator.is_not(None)
    # a measured conversation's client port says nothing: those of one client to one service are one row
    sport = case((measured, -1), else_=Conversation.sport)
    stmt = (select(Conversation.proto, Conversation.src, sport, Conversation.dst, Conversation.dport,
                   func.max(case((measured, 1), else_=0)), func.count(),
                   func.sum(Conversation.packets_fwd + Conversation.packets_rev),
                   func.sum(Conversation.bytes_fwd + Conversation.bytes_rev), func.min(Conversation.first_frame))
            .where(Conversation.capture_id == capture_id)
            .group_by(Conversation.proto, Conversation.src, sport, Conversation.dst, Conversation.dport))
    rows: dict[tuple[str, str], dict] = {}
    for proto, src, sp, dst, dp, known, n, packets, size, first in session.execute(stmt):
        app, how, port, src_client = classify(proto, src, sp, dst, dp, bool(known), payload, ports)
        row = rows.get((app, how))
        if row is None:
            row = rows[app, how] = {"ports": defaultdict(int), "conversations": 0, "packets": 0, "bytes": 0,
                                    "clients": set(), "servers": set(), "first": first}
        client, server = (src, dst) if src_client else (dst, src)
        row["ports"][port] += int(size or 0)
        row["conversations"] += n
        row["packets"] += int(packets or 0)
        row["bytes"] += int(size or 0)
        row["clients"].update(holder[a] for a in (client,) if a in holder)  # a broadcast address is no device
        row["servers"].update(holder[a] for a in (server,) if a in holder)
        row["first"] = min(row["first"], first)
    out = [Application(app, how, tuple(sorted(r["ports"], key=lambda p: (-r["ports"][p], p))[:20]),
                       r["conversations"], r["packets"], r["bytes"], tuple(sorted(r["clients"])[:MAX_DEVICES]),
                       tuple(sorted(r["servers"])[:MAX_DEVICES]), len(r["clients"]), len(r["servers"]), r["first"])
           for (app, how), r in rows.items()]
    return sorted(out, key=lambda a: (-a.bytes, a.name, a.detected))
