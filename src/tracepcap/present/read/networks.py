"""Networks over time, read for the API, the web page and the CLI: the network with its
ordered captures, the change timeline (with who reviewed what), the presence grid (device x
capture: present / absent / changed), the network inventory (first and last seen, current
answers with their carried / stale state) and the search across every capture."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session

from ...adjudicate.networks import list_networks, ordered_captures
from ...adjudicate.networks.baseline import RETURNED
from ...adjudicate.networks.changes import ChangeKind
from ...extract.kinds import HOSTNAME_CLAIM, IP_MAC_BINDING, MAC
from ...store.models import (
    Capture,
    ChangeReview,
    Entity,
    EntityMember,
    HumanOverride,
    Locality,
    Network,
    NetworkChange,
    ObservationRow,
    VerdictRow,
)
from ...store.staging import STAGING

SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}
PRESENT, ABSENT, CHANGED = "present", "absent", "changed"


@dataclass(frozen=True, slots=True)
class CaptureBrief:
    """A capture of a network at its place in the order (0: the first)."""

    id: str
    name: str
    position: int
    first_time: float | None  # its first packet's time, seconds since the epoch
    status: str
    uploaded_at: datetime


@dataclass(frozen=True, slots=True)
class NetworkRow:
    """A network and how many captures it holds."""

    id: str
    name: str
    created_at: datetime
    created_by: str
    captures: int


@dataclass(frozen=True, slots=True)
class NetworkDetail:
    """A network with its captures in order (first packet time, then upload)."""

    id: str
    name: str
    created_at: datetime
    created_by: str
    captures: int
    capture_list: tuple[CaptureBrief, ...]


@dataclass(frozen=True, slots=True)
class Change:
    """One change of a capture against the network's history before it, with its review;
    `detail` is the change's own record (None where the reader left it out)."""

    id: int
    capture_id: str
    capture_name: str | None
    previous_id: str | None
    previous_name: str | None
    kind: str
    severity: str
    entity_key: str | None
    summary: str
    frames: tuple[int, ...]
    reviewed: bool
    reviewed_by: str | None
    reviewed_at: datetime | None
    detail: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class PresenceRow:
    entity_key: str
    addresses: tuple[str, ...]  # what it held in the last capture holding it, primary first
    macs: tuple[str, ...]
    cells: tuple[str, ...]  # per capture in order: present | absent | changed


@dataclass(frozen=True, slots=True)
class Presence:
    """One page of devices x every capture."""

    captures: tuple[CaptureBrief, ...]
    total: int  # devices in all
    offset: int
    rows: tuple[PresenceRow, ...]


@dataclass(frozen=True, slots=True)
class Answer:
    """A device's answer to one question in the last capture holding it: the machine's, or a
    human's own, carried (from where) or stale (since when, and what moved)."""

    label: str | None  # None: the machine gave none
    basis: str
    confidence: int
    state: str  # machine | human | carried | stale
    entity: str
    author: str | None = None
    carried_from: str | None = None
    note: str | None = None
    stale: Any = None  # the changes that made it stale, as the override records them
    stale_since: str | None = None
    moved: str | None = None


@dataclass(frozen=True, slots=True)
class InventoryRow:
    entity_key: str
    addresses: tuple[str, ...]
    macs: tuple[str, ...]
    first_seen: str  # the capture's name
    first_seen_id: str
    last_seen: str
    last_seen_id: str
    captures: int  # how many captures hold it
    answers: Mapping[str, Answer]  # question -> answer, in question order


@dataclass(frozen=True, slots=True)
class Inventory:
    total: int
    offset: int
    rows: tuple[InventoryRow, ...]


@dataclass(frozen=True, slots=True)
class SearchMatch:
    """What matched: a fact (`kind`, `value`, its first `frame`), an answer (`question`, its
    label as `value`) or an address or MAC the entity holds."""

    matched: str  # mac | hostname | answer | address
    value: str
    kind: str | None = None
    frame: int | None = None
    question: str | None = None


@dataclass(frozen=True, slots=True)
class SearchHit:
    entity_key: str
    ip: str
    capture_id: str
    capture_name: str | None
    matched: tuple[SearchMatch, ...]


def capture_brief(c: Capture, position: int) -> CaptureBrief:
    return CaptureBrief(c.id, c.name, position, c.first_time, c.status, c.uploaded_at)


def network_fields(n: Network, captures: int) -> NetworkRow:
    return NetworkRow(n.id, n.name, n.created_at, n.created_by, captures)


def networks(session: Session) -> list[NetworkRow]:
    return [network_fields(n, count) for n, count in list_networks(session)]


def detail_of(network: Network, captures: list[Capture]) -> NetworkDetail:
    """The network with `captures`, its captures in order."""
    return NetworkDetail(network.id, network.name, network.created_at, network.created_by, len(captures),
                         tuple(capture_brief(c, i) for i, c in enumerate(captures)))


def network_detail(session: Session, network: Network) -> NetworkDetail:
    return detail_of(network, ordered_captures(session, network.id))


def change_documents(session: Session, network_id: str, capture_id: str | None = None, *,
                     severities: tuple[str, ...] | None = None, captures: list[Capture] | None = None,
                     detail: bool = True, kinds: tuple[str, ...] | None = None,
                     device: str | None = None) -> list[Change]:
    """The changes, in capture order, then severity, kind and entity; each with its review.
    `detail=False` (the web page) leaves each change's detail out. `kinds`: only these kinds;
    `device`: only the changes naming it (its key, or an address or MAC key it holds in the
    capture; an aggregated change names every device it lists)."""
    order = {c.id: i for i, c in enumerate(captures if captures is not None else ordered_captures(session, network_id))}
    names = dict(session.execute(select(Capture.id, Capture.name).where(Capture.id.in_(list(order)))).all()) if order else {}
    reviews = {sig: (actor, at) for sig, actor, at in session.execute(select(
        ChangeReview.signature, ChangeReview.actor, ChangeReview.at).where(ChangeReview.network_id == network_id))}
    columns = [NetworkChange.id, NetworkChange.capture_id, NetworkChange.previous_id, NetworkChange.kind,
               NetworkChange.severity, NetworkChange.entity_key, NetworkChange.summary, NetworkChange.frames,
               NetworkChange.signature] + ([NetworkChange.detail] if detail else [])
    stmt = select(*columns).where(NetworkChange.network_id == network_id)
    if capture_id is not None:
        stmt = stmt.where(NetworkChange.capture_id == capture_id)
    if severities is not None:
        stmt = stmt.where(NetworkChange.severity.in_(severities))
    if kinds is not None:
        stmt = stmt.where(NetworkChange.kind.in_(kinds))
    if device is not None:
        if NetworkChange.detail not in columns:
            columns.append(NetworkChange.detail)
            stmt = stmt.add_columns(NetworkChange.detail)
        held = {device} | set(session.scalars(select(EntityMember.entity_key).where(
            EntityMember.capture_id.in_(list(order)), EntityMember.member == device)))
    rows = sorted(session.execute(stmt), key=lambda c: (order.get(c.capture_id, 1 << 30),
                                                        SEVERITY_ORDER.get(c.severity, 3), c.kind,
                                                        c.entity_key or "", c.id))
    if device is not None:
        rows = [c for c in rows if c.entity_key in held or held & set(map(str, (c.detail or {}).get("devices") or ()))]
    out = []
    for c in rows:
        actor, at = reviews.get(c.signature, (None, None))
        out.append(Change(c.id, c.capture_id, names.get(c.capture_id), c.previous_id, names.get(c.previous_id),
                          c.kind, c.severity, c.entity_key, c.summary, tuple(c.frames or ()), actor is not None,
                          actor, at, c.detail if detail else None))
    return out


NON_REMOTE = or_(Entity.locality.is_(None), Entity.locality != Locality.REMOTE)


def _address_order(address: str | None, key: str):
    """Numeric address order of a device's primary address (IPv4 by its four numbers without
    parsing objects), then MAC-only devices by key."""
    if address is None:
        return (2, 0, (), key)
    parts = address.split(".")
    if len(parts) == 4 and all(p.isdigit() for p in parts):
        return (0, 4, tuple(int(p) for p in parts), key)
    import ipaddress
    try:
        a = ipaddress.ip_address(address)
        return (0, a.version, (int(a),), key)
    except ValueError:
        return (1, 0, (), key)


#: the device lists of the last few networks read, keyed by their captures as analysed: a
#: capture's entities change only when it is (re-)analysed, joins, leaves or is deleted, and
#: each of those changes the key
_DEVICES: dict[tuple, list[str]] = {}
_DEVICES_KEPT = 8


def devices_of(session: Session, network: Network) -> list:
    """(the captures in order, the network's devices - its non-remote entities, one per key
    whatever addresses it holds - in primary-address order): what the grid and the inventory
    share, read once per page with one GROUP BY (or from the cache while no capture of the
    network changed)."""
    captures = ordered_captures(session, network.id)
    ids = [c.id for c in captures]
    key = (str(session.get_bind().url), network.id, tuple((c.id, str(c.analyzed_at), c.status) for c in captures))
    devices = _DEVICES.get(key)
    if devices is None:
        found = session.execute(select(Entity.key, func.min(Entity.ip)).where(
            Entity.capture_id.in_(ids), NON_REMOTE).group_by(Entity.key)).all() if ids else []
        devices = [k for k, _ in sorted(found, key=lambda row: _address_order(row[1], row[0]))]
        if len(_DEVICES) >= _DEVICES_KEPT:
            _DEVICES.pop(next(iter(_DEVICES)))
        _DEVICES[key] = devices
    return [captures, devices]


def _seen(session: Session, ids: list[str], entities: list[str], shared=None) -> Mapping[str, dict[int, tuple]]:
    """device -> capture position -> (its addresses, its MACs) there - both read only for the last
    capture holding it, the others hold () - for one page of devices (read once when the grid
    and the inventory show the same page)."""
    if shared is not None and len(shared) > 2 and shared[2][0] == entities:
        return shared[2][1]
    position = {cid: i for i, cid in enumerate(ids)}
    seen: dict[str, dict[int, tuple]] = defaultdict(dict)
    if ids and entities:
        for cid, key in session.execute(select(Entity.capture_id, Entity.key).where(
                Entity.capture_id.in_(ids), Entity.key.in_(entities))):
            seen[key][position[cid]] = ()
        last = {key: ids[max(where)] for key, where in seen.items()}
        for cid, key, addresses, macs in session.execute(select(
                Entity.capture_id, Entity.key, Entity.addresses, Entity.macs).where(
                _pairs(Entity.capture_id, Entity.key, last))):
            seen[key][position[cid]] = (list(addresses or ()), list(macs or ()))
    return seen


def _pairs(capture_column, key_column, where: dict[str, str], *also):
    """(capture, key) in `where` (key -> capture), as one index lookup per capture: SQLite
    scans the whole table for a row-value IN list."""
    by_capture: dict[str, list[str]] = defaultdict(list)
    for key, cid in where.items():
        by_capture[cid].append(key)
    return or_(*(and_(capture_column == cid, *also, key_column.in_(sorted(keys)))
                 for cid, keys in sorted(by_capture.items())))


def _questions() -> list[str]:
    from ...adjudicate.registry import get_registry
    return [a.question for a in get_registry()]


def _held(seen: dict[int, tuple]) -> tuple[list[str], list[str]]:
    """The addresses and MACs a device held in the last capture it is in (primary first)."""
    return seen[max(seen)] if seen else ([], [])


def presence(session: Session, network: Network, offset: int = 0, limit: int = 100, shared=None) -> Presence:
    """The grid of one page of devices (primary-address order) x every capture: a device's
    cell is changed where an event names it, or names one of its addresses (an address moved)."""
    captures, devices = shared[:2] if shared else devices_of(session, network)
    ids = [c.id for c in captures]
    page = devices[offset:offset + limit]
    seen = _seen(session, ids, page, shared)
    if shared is not None:
        shared.append((page, seen))
    changed: dict[str, set[int]] = defaultdict(set)
    position = {cid: i for i, cid in enumerate(ids)}
    if page:  # an event names the device, or one of its addresses there (an address moved to it)
        for device, cid in session.execute(select(EntityMember.entity_key, NetworkChange.capture_id).join(
                EntityMember, (EntityMember.capture_id == NetworkChange.capture_id)
                & (EntityMember.member == NetworkChange.entity_key)).where(
                NetworkChange.network_id == network.id, EntityMember.entity_key.in_(page),
                NetworkChange.kind.notin_((ChangeKind.APPEARED, RETURNED)))):  # coming (back) is presence
            changed[device].add(position.get(cid, -1))
    rows = []
    for entity in page:
        here = seen[entity]
        held, macs = _held(here)
        rows.append(PresenceRow(entity, tuple(held), tuple(macs), tuple(
            (CHANGED if i in changed[entity] else PRESENT) if i in here else ABSENT for i in range(len(ids)))))
    return Presence(tuple(capture_brief(c, i) for i, c in enumerate(captures)), len(devices), offset, tuple(rows))


def inventory(session: Session, network: Network, offset: int = 0, limit: int = 100, shared=None) -> Inventory:
    """One page of the network's devices: its addresses and MACs, first and last seen, the
    answers in the last capture holding it, and whether each answer is a human's own, carried
    (from where) or stale."""
    captures, devices = shared[:2] if shared else devices_of(session, network)
    ids = [c.id for c in captures]
    page = devices[offset:offset + limit]
    seen = _seen(session, ids, page, shared)
    last_of = {e: ids[max(seen[e])] for e in page if seen[e]}
    answers: dict[str, dict[str, Answer]] = defaultdict(dict)
    if last_of:  # each device's answers in its last capture: read for every device at once
        questions = _questions()  # with them, each capture's lookup is a primary-key range
        for _cid, key, question, label, basis, confidence in session.execute(select(
                VerdictRow.capture_id, VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label,
                VerdictRow.basis, VerdictRow.confidence).where(
                _pairs(VerdictRow.capture_id, VerdictRow.entity_key, last_of, VerdictRow.question.in_(questions)))):
            answers[key][question] = Answer(label, basis, confidence, "machine", key)
        for o in session.execute(select(
                HumanOverride.capture_id, HumanOverride.entity_key, HumanOverride.question, HumanOverride.label,
                HumanOverride.actor, HumanOverride.carried_from, HumanOverride.carry_note, HumanOverride.stale_since,
                HumanOverride.stale_detail).where(_pairs(HumanOverride.capture_id, HumanOverride.entity_key, last_of,
                                                         HumanOverride.question.in_(questions)))):
            of_device = answers[o.entity_key]
            machine = of_device.get(o.question) or Answer(o.label, "HUMAN", 100, "human", o.entity_key)
            of_device[o.question] = replace(
                machine, state="stale" if o.stale_since else ("carried" if o.carried_from else "human"),
                author=o.actor, carried_from=o.carried_from, note=o.carry_note,
                stale=(o.stale_detail or {}).get("changes") if o.stale_since else None,
                stale_since=(o.stale_detail or {}).get("since_name") if o.stale_since else None,
                moved=_moved(o) if o.stale_since else None)
    names = {c.id: c.name for c in captures}
    rows = []
    for e in page:
        if not seen[e]:
            continue
        held, macs = _held(seen[e])
        rows.append(InventoryRow(e, tuple(held), tuple(macs), names[ids[min(seen[e])]], ids[min(seen[e])],
                                 names[last_of[e]], last_of[e], len(seen[e]), dict(sorted(answers[e].items()))))
    return Inventory(len(devices), offset, tuple(rows))


def _moved(o: HumanOverride) -> str:
    from ...adjudicate.runner import moved
    return moved(o.stale_detail)


def search(session: Session, q: str, limit: int = 200) -> list[SearchHit]:
    """Entities of every capture matching `q` (case-insensitive): an address (exact), a MAC
    (exact, either spelling), a hostname someone claimed or an answer's label (contained).
    Each hit: the entity, its capture and the facts that matched, with their first frames."""
    q = " ".join(q.split())
    if not q:
        return []
    low = q.lower()
    mac = low.replace("-", ":")
    hits: dict[tuple[str, str], list[SearchMatch]] = defaultdict(list)
    visible = select(Capture.id).where(Capture.status != STAGING)
    for cid, entity, kind, value, frame in session.execute(select(
            ObservationRow.capture_id, ObservationRow.entity, ObservationRow.kind, ObservationRow.value,
            ObservationRow.first_frame).where(
            or_((ObservationRow.kind == MAC.name) & (func.lower(ObservationRow.value) == mac),
                (ObservationRow.kind == IP_MAC_BINDING.name) & (func.lower(ObservationRow.value) == mac),
                (ObservationRow.kind == HOSTNAME_CLAIM.name) & func.lower(ObservationRow.value).contains(low,
                                                                                                     autoescape=True)),
            ObservationRow.capture_id.in_(visible)).limit(limit * 4)):
        what = {MAC.name: "mac", IP_MAC_BINDING.name: "mac", HOSTNAME_CLAIM.name: "hostname"}[kind]
        hits[(cid, entity)].append(SearchMatch(what, value, kind=kind, frame=frame))
    for cid, entity, question, label in session.execute(select(
            VerdictRow.capture_id, VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label).where(
            func.lower(VerdictRow.primary_label).contains(low, autoescape=True),
            VerdictRow.capture_id.in_(visible)).limit(limit * 4)):
        hits[(cid, entity)].append(SearchMatch("answer", label or "", question=question))  # matched: not None
    members = [low, "mac-" + mac.replace(":", "-")]
    for cid, member in session.execute(select(EntityMember.capture_id, EntityMember.member).where(
            EntityMember.member.in_(members), EntityMember.capture_id.in_(visible)).limit(limit)):
        # an address, or a device's MAC key (a member of its device); after the facts, which name frames
        hits[(cid, member)].append(SearchMatch("address" if not member.startswith("mac-") else "mac", member))
    # a MAC names its own device, not the routed addresses a router's frames carry
    mac_hits = [k for k, facts in hits.items() if any(f.kind == MAC.name for f in facts)]
    if mac_hits:
        routed = {(cid, member) for cid, member in session.execute(select(
            EntityMember.capture_id, EntityMember.member).join(
            Entity, (Entity.capture_id == EntityMember.capture_id) & (Entity.key == EntityMember.entity_key)).where(
            EntityMember.capture_id.in_(sorted({cid for cid, _ in mac_hits})),
            EntityMember.member.in_(sorted({e for _, e in mac_hits})),
            Entity.locality.in_((Locality.REMOTE, Locality.LOCAL_ROUTED))))}
        for k in mac_hits:
            if k in routed:
                hits[k] = [f for f in hits[k] if f.kind != MAC.name]
                if not hits[k]:
                    del hits[k]
    by_entity = _by_entity(session, hits)
    names = dict(session.execute(select(Capture.id, Capture.name).where(
        Capture.id.in_(sorted({cid for cid, _ in by_entity})))).all()) if by_entity else {}
    primary = _primary_addresses(session, by_entity)
    out = []
    for (cid, entity), facts in sorted(by_entity.items(),
                                       key=lambda kv: (kv[0][1], names.get(kv[0][0], ""), kv[0][0])):
        out.append(SearchHit(entity, primary.get((cid, entity), entity), cid, names.get(cid),
                             tuple(dict.fromkeys(facts))))  # each once, in order
    return out[:limit]


def _by_entity(session: Session, hits: Mapping[tuple[str, str], list[SearchMatch]]
               ) -> Mapping[tuple[str, str], list[SearchMatch]]:
    """Facts are held per address or MAC: gather each hit onto its entity's key (issue 11)."""
    if not hits:
        return hits
    key_of: dict[tuple[str, str], str] = {}
    for cid, member, key in session.execute(select(
            EntityMember.capture_id, EntityMember.member, EntityMember.entity_key).where(
            EntityMember.capture_id.in_(sorted({c for c, _ in hits})),
            EntityMember.member.in_(sorted({e for _, e in hits})))):
        key_of[(cid, member)] = key
    out: dict[tuple[str, str], list[SearchMatch]] = defaultdict(list)
    for (cid, name), facts in hits.items():
        out[(cid, key_of.get((cid, name), name))].extend(facts)
    return out


def _primary_addresses(session: Session, hits) -> Mapping[tuple[str, str], str]:
    """(capture, entity key) -> the entity's primary address (None for a MAC-only device)."""
    if not hits:
        return {}
    return {(cid, key): ip for cid, key, ip in session.execute(select(Entity.capture_id, Entity.key, Entity.ip).where(
        Entity.capture_id.in_(sorted({c for c, _ in hits})), Entity.key.in_(sorted({e for _, e in hits}))))
        if ip is not None}


def change_counts(session: Session, network_id: str) -> Mapping[tuple[str, str], int]:
    """(capture, severity) -> how many changes."""
    return {(cid, sev): n for cid, sev, n in session.execute(select(
        NetworkChange.capture_id, NetworkChange.severity, func.count()).where(
        NetworkChange.network_id == network_id).group_by(NetworkChange.capture_id, NetworkChange.severity))}
