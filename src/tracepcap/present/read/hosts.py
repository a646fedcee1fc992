"""Hosts of a capture: the one host search (the API's `?q=` and the inventory's filter are
the same search), a host's facts and neighbours, conversations, and counts per label."""

from __future__ import annotations

import ipaddress
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy import case, exists, func, literal, or_, select, union
from sqlalchemy.orm import Session, aliased

from ...adjudicate.contract import Basis, Verdict
from ...adjudicate.registry import Registry
from ...errors import NotFound
from ...extract import kinds
from ...store.entities import members_of, resolve
from ...store.models import Conversation, Entity, EntityMember, HumanOverride, Locality, ObservationRow, VerdictRow
from . import traffic as traffic_read
from .captures import entity_findings, findings
from .paging import page
from .shapes import Page
from .traffic import DeviceTraffic
from .verdicts import host_verdicts

#: fact kinds the host search matches (besides the address and the verdicts' labels)
SEARCHED_KINDS = (kinds.MAC.name, kinds.OUI_VENDOR.name, kinds.HOSTNAME_CLAIM.name)
#: fact kinds a host row carries
ROW_KINDS = (kinds.MAC.name, kinds.OUI_VENDOR.name, kinds.HOSTNAME_CLAIM.name)
MARKS = ("contested", "human", "stale", "finding")
#: the fact kinds shown first on a host page, in this order; other kinds follow by name
FACT_ORDER = tuple(kind.name for kind in (
    kinds.MAC, kinds.VLAN, kinds.OUI_VENDOR, kinds.TTL, kinds.SERVED, kinds.INITIATED, kinds.HOSTNAME_CLAIM,
    kinds.USER_AGENT, kinds.TCP_SYN_SIGNATURE, kinds.DHCP_PARAMETER_LIST, kinds.DHCP_VENDOR_CLASS,
    kinds.SSH_BANNER, kinds.HTTP_SERVER, kinds.TLS_SNI, kinds.MDNS_SERVICE, kinds.SSDP_SERVER,
    kinds.SSDP_NT, kinds.SSDP_USN, kinds.DNS_QUERY))
FACTS_PER_KIND = 50


def require_host(session: Session, capture_id: str, name: str) -> str:
    """The canonical key of the entity `name` names (its key, one of its addresses, or one of
    its MACs: store/entities.resolve); NotFound otherwise."""
    key = resolve(session, capture_id, name)
    if key is None:
        raise NotFound(f"no host or device {name!r} in capture {capture_id} (give its key, one of "
                       "its addresses or one of its MACs)")
    return key


def host_count(session: Session, capture_id: str) -> int:
    return session.scalar(select(func.count()).select_from(Entity).where(Entity.capture_id == capture_id)) or 0


# --- the host search ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HostFilter:
    """Which hosts, in which order. `text` matches (case-insensitive, anywhere) the address,
    a MAC, an OUI vendor, a claimed name or a verdict's label; `question` with `label` or
    `mark`, or `mark` alone, keeps hosts whose verdict is so; `locality` keeps hosts Scan
    placed there; `min_packets` keeps hosts with at least that many packets both ways,
    `port` ("80", "tcp/80") hosts that served it; `sort` is ip, mac, locality, a traffic sort
    (read/traffic.SORTS) or a question."""

    text: str = ""
    question: str = ""
    label: str = ""
    mark: str = ""  # contested | human | stale (with or without a question) | finding (none)
    sort: str = "ip"
    desc: bool = False
    locality: str = ""  # on-link | local-routed | remote
    min_packets: int = 0
    port: str = ""  # read/traffic.normal_port's form


@dataclass(frozen=True, slots=True)
class HostRow:
    """One entity of the inventory (a device or a host), `ip` its primary address (None for a
    MAC-only device), `key` the key its verdicts and annotations carry."""

    ip: str | None
    macs: list[str]
    vendors: list[str]
    names: list[str]  # names the host claimed
    verdicts: dict[str, Verdict]  # by question, registry order
    locality: str | None = None  # Scan's on-link | local-routed | remote; None before Scan stored it
    locality_reason: str | None = None
    key: str = ""
    addresses: list[str] = field(default_factory=list)
    randomised: bool = False
    finding: str | None = None  # the highest severity among the findings naming the host
    traffic: DeviceTraffic | None = None  # None before Scan stored it


@dataclass(frozen=True, slots=True)
class HostPage:
    total: int  # hosts matching the filter
    offset: int  # where the rows start
    rows: list[HostRow]


def _verdict_exists(capture_id: str, *conditions):
    v = aliased(VerdictRow)
    return exists().where(v.capture_id == capture_id, v.entity_key == Entity.key, *[c(v) for c in conditions])


def _stale_exists(capture_id: str, *conditions):
    return exists().where(HumanOverride.capture_id == capture_id, HumanOverride.entity_key == Entity.key,
                          HumanOverride.stale_since.is_not(None), *conditions)


def _matching(registry: Registry, capture_id: str, f: HostFilter, flagged: dict[str, str]):
    questions = [a.question for a in registry]
    stmt = select(Entity.key).where(Entity.capture_id == capture_id)
    if f.mark == "finding":  # findings are few: their entities are listed, not searched in JSON
        stmt = stmt.where(Entity.key.in_(sorted(flagged)))
    if f.locality:
        stmt = stmt.where(Entity.locality == f.locality)
    if f.min_packets > 0:
        stmt = stmt.where(traffic_read.sort_key("packets") >= f.min_packets)
    if f.port:
        stmt = stmt.where(Entity.key.in_(traffic_read.serving(capture_id, f.port)))
    text = " ".join(f.text.split())
    if text:
        stmt = stmt.where(Entity.key.in_(_text_matches(capture_id, questions, text)))
    if f.question in questions:
        which = (lambda v: v.question == f.question,)
        stale = (HumanOverride.question == f.question,)
    elif f.mark in MARKS and f.mark != "finding":
        which, stale = (lambda v: v.question.in_(questions),), ()
    else:
        return stmt
    if f.mark == "contested":
        return stmt.where(_verdict_exists(capture_id, *which, lambda v: v.contested.is_(True)))
    if f.mark == "human":
        return stmt.where(_verdict_exists(capture_id, *which, lambda v: v.basis == Basis.HUMAN))
    if f.mark == "stale":
        return stmt.where(_stale_exists(capture_id, *stale))
    if f.label:
        return stmt.where(_verdict_exists(capture_id, *which, lambda v: v.primary_label == f.label,
                                          lambda v: v.contested.is_(False)))
    return stmt


def _text_matches(capture_id: str, questions: list[str], text: str):
    """Keys of the entities `text` matches: in the key, a member (an address or a MAC key), a
    fact of a searched kind of a member, or an answer. Each table is scanned once and the keys
    unioned: an EXISTS per entity (and per member) read every fact of every host, twice as slow
    at 5,000 hosts."""
    def like(column):
        return column.icontains(text, autoescape=True)
    return union(
        select(Entity.key).where(Entity.capture_id == capture_id, like(Entity.key)),
        select(EntityMember.entity_key).where(EntityMember.capture_id == capture_id, like(EntityMember.member)),
        select(EntityMember.entity_key)
        .join(ObservationRow, (ObservationRow.capture_id == EntityMember.capture_id)
              & (ObservationRow.entity == EntityMember.member))
        .where(ObservationRow.capture_id == capture_id, ObservationRow.kind.in_(SEARCHED_KINDS),
               like(ObservationRow.value)),
        select(VerdictRow.entity_key).where(VerdictRow.capture_id == capture_id, VerdictRow.question.in_(questions),
                                            like(VerdictRow.primary_label)))


def _order(registry: Registry, capture_id: str, f: HostFilter, first_mac=None) -> list:
    order = []
    if f.sort in [a.question for a in registry]:
        # answered labels by name, then contested, then hosts without a verdict; one primary-key
        # lookup per host (a join's plan depends on statistics a fresh capture may not have yet)
        key = (select(case((VerdictRow.primary_label.is_not(None), "0" + func.lower(VerdictRow.primary_label)),
                           (VerdictRow.contested.is_(True), literal("1")), else_=literal("2")))
               .where(VerdictRow.capture_id == capture_id, VerdictRow.question == f.sort,
                      VerdictRow.entity_key == Entity.key).scalar_subquery())
        key = func.coalesce(key, literal("3"))
        order = [key.desc() if f.desc else key]
    elif f.sort == "locality":  # nearest first; hosts Scan has not placed last
        rank = case(*((Entity.locality == place.value, literal(i)) for i, place in enumerate(Locality)),
                    else_=literal(len(Locality)))
        order = [rank.desc() if f.desc else rank]
    elif (column := traffic_read.sort_key(f.sort)) is not None:
        # counts largest first, times earliest first (`desc` turns either); unmeasured last
        unmeasured = case((column.is_(None), literal(1)), else_=literal(0))
        descending = f.desc != (f.sort in traffic_read.COUNT_SORTS)
        order = [unmeasured, column.desc() if descending else column]
    elif f.sort == "mac":  # host_page joins the first MAC of every host (one grouped scan)
        first_mac = first_mac.c.mac
        has_mac = case((first_mac.is_(None), literal(1)), else_=literal(0))
        order = [has_mac, first_mac.desc() if f.desc else first_mac]
    return order + [Entity.position.desc() if f.desc and f.sort == "ip" else Entity.position]


def _first_macs(capture_id: str):
    """Each entity's smallest MAC (over its members' facts), computed once for the capture: a
    correlated `min()` per host took seconds at a thousand hosts. Materialised on PostgreSQL:
    without statistics (a capture just stored) the planner re-ran the grouped join once per
    entity, minutes at a thousand hosts."""
    return (select(EntityMember.entity_key.label("entity"), func.min(ObservationRow.value).label("mac"))
            .join(EntityMember, (EntityMember.capture_id == ObservationRow.capture_id)
                  & (EntityMember.member == ObservationRow.entity))
            .where(ObservationRow.capture_id == capture_id, ObservationRow.kind == kinds.MAC.name)
            .group_by(EntityMember.entity_key).cte("first_mac").prefix_with("MATERIALIZED", dialect="postgresql"))


def host_page(session: Session, registry: Registry, capture_id: str, f: HostFilter, *, offset: int,
              limit: int, clamp: bool = False) -> HostPage:
    """The hosts matching `f`, filtered, sorted and cut in the database. With `clamp`, an
    offset past the last host starts the last page instead (a page link gone stale)."""
    flagged = entity_findings(findings(session, capture_id))
    stmt = _matching(registry, capture_id, f, flagged)
    first_mac = None
    if f.sort == "mac":
        first_mac = _first_macs(capture_id)
        stmt = stmt.outerjoin(first_mac, first_mac.c.entity == Entity.key)
    ordered = stmt.order_by(*_order(registry, capture_id, f, first_mac))
    total = None
    if f.text or f.mark or f.question or f.locality or f.min_packets > 0 or f.port:
        # a filtered page's rows carry the number of matching hosts (a window count): the filter
        # runs once, not once to count and once to cut the page
        rows = session.execute(ordered.add_columns(func.count().over()).limit(limit).offset(offset)).all()
        keys = [key for key, _ in rows]
        total = rows[0][1] if rows else (0 if offset == 0 else None)
    if total is None:  # unfiltered (a count of the capture's hosts is cheaper than the window), or past the end
        total = session.scalar(select(func.count()).select_from(_matching(registry, capture_id, f, flagged)
                                                                .subquery())) or 0
        if clamp and total and offset >= total:
            offset = (total - 1) // limit * limit
        keys = list(session.scalars(ordered.limit(limit).offset(offset)))
    return HostPage(total, offset, host_rows(session, registry, capture_id, keys, flagged))


def host_rows(session: Session, registry: Registry, capture_id: str, keys: list[str],
              flagged: dict[str, str] | None = None) -> list[HostRow]:
    """The rows of the given entity keys, in that order: MACs, vendors and names of all the
    entity's addresses and MACs."""
    if not keys:
        return []
    members = dict(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
        EntityMember.capture_id == capture_id, EntityMember.entity_key.in_(keys))).all())
    facts: dict[tuple[str, str], set[str]] = defaultdict(set)
    # the facts of those members, sought by member: the kind is tested as an expression so that
    # SQLite (no statistics) does not seek by kind instead and read every host's MACs, vendors
    # and names (10 ms of a 50-row page at 5,000 hosts)
    for member, kind, value in session.execute(
            select(ObservationRow.entity, ObservationRow.kind, ObservationRow.value)
            .where(ObservationRow.capture_id == capture_id, ObservationRow.entity.in_(list(members)),
                   (ObservationRow.kind + literal("")).in_(ROW_KINDS))):
        facts[members[member], kind].add(value)
    verdicts = host_verdicts(session, registry, capture_id, keys)
    entities = {e.key: e for e in session.scalars(select(Entity).where(Entity.capture_id == capture_id,
                                                                      Entity.key.in_(keys)))}
    out = []
    for key in keys:
        e = entities.get(key)
        out.append(HostRow(e.ip if e else key, sorted(facts[key, kinds.MAC.name]),
                           sorted(facts[key, kinds.OUI_VENDOR.name]), sorted(facts[key, kinds.HOSTNAME_CLAIM.name]),
                           verdicts.get(key, {}), e.locality if e else None, e.locality_reason if e else None,
                           key, list(e.addresses) if e else [key], bool(e.randomised) if e else False,
                           (flagged or {}).get(key), traffic_read.of_entity(e)))
    return out


# --- one host -------------------------------------------------------------------------------

def host_locality(session: Session, capture_id: str, ip: str) -> tuple[str | None, str | None]:
    """Where Scan placed the entity and why; (None, None) before Scan stored it."""
    host = session.get(Entity, (capture_id, require_host(session, capture_id, ip)))
    return host.locality, host.locality_reason


def host_entity(session: Session, capture_id: str, name: str) -> Entity:
    """The entity `name` names (key, address or MAC); NotFound otherwise."""
    return session.get(Entity, (capture_id, require_host(session, capture_id, name)))


def host_facts(session: Session, capture_id: str, ip: str) -> list[ObservationRow]:
    """The entity's facts (all its addresses' and MACs'), by kind, value and source."""
    key = require_host(session, capture_id, ip)
    return list(session.scalars(select(ObservationRow).where(
        ObservationRow.capture_id == capture_id,
        ObservationRow.entity.in_(members_of(session, capture_id, key))).order_by(
        ObservationRow.kind, ObservationRow.value, ObservationRow.source, ObservationRow.entity)))


@dataclass(frozen=True, slots=True)
class FactGroup:
    """The facts of one kind of a host, at most FACTS_PER_KIND, and how many more there are."""

    kind: str
    facts: tuple[ObservationRow, ...]
    more: int


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A peer of a host: how many conversations and bytes (both ways) they had."""

    ip: str
    conversations: int
    bytes: int


@dataclass(frozen=True, slots=True)
class ConversationEntry:
    """A conversation of the capture, its times in UTC."""

    id: int
    proto: str
    src: str
    sport: int
    dst: str
    dport: int
    first_time: datetime
    last_time: datetime
    first_frame: int
    packets_fwd: int
    bytes_fwd: int
    packets_rev: int
    bytes_rev: int
    initiator: str | None

    @classmethod
    def of(cls, c: Conversation) -> ConversationEntry:
        return cls(c.id, c.proto, c.src, c.sport, c.dst, c.dport, datetime.fromtimestamp(c.first_time, UTC),
                   datetime.fromtimestamp(c.last_time, UTC), c.first_frame, c.packets_fwd, c.bytes_fwd,
                   c.packets_rev, c.bytes_rev, c.initiator)


def fact_groups(session: Session, capture_id: str, ip: str) -> list[FactGroup]:
    """The host's facts grouped by kind (FACT_ORDER first), each group at most FACTS_PER_KIND
    facts (most-seen first) with the number left out."""
    groups: dict[str, list[ObservationRow]] = defaultdict(list)
    for fact in host_facts(session, capture_id, ip):
        groups[fact.kind].append(fact)
    rank = {kind: i for i, kind in enumerate(FACT_ORDER)}
    out = []
    for kind in sorted(groups, key=lambda k: (rank.get(k, len(rank)), k)):
        facts = sorted(groups[kind], key=lambda f: (-f.count, f.first_frame, f.value))
        out.append(FactGroup(kind, tuple(facts[:FACTS_PER_KIND]), max(0, len(facts) - FACTS_PER_KIND)))
    return out


def is_group_address(address: str) -> bool:
    """A broadcast or multicast destination (nobody a host "talks with"): IPv4 limited
    broadcast, a multicast range, or an all-ones last octet (a /24's directed broadcast).
    A key that is not an address (a device key) is never one."""
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    if parsed.is_multicast:
        return True
    return parsed.version == 4 and (parsed == ipaddress.IPv4Address("255.255.255.255") or address.endswith(".255"))


def neighbours(session: Session, capture_id: str, ip: str, limit: int = 12) -> list[Neighbour]:
    """The entity's busiest peers (by bytes both ways) over all its addresses, broadcast and
    multicast left out."""
    entity = session.get(Entity, (capture_id, ip))
    mine = list(entity.addresses) if entity is not None else [ip]
    peer = case((Conversation.src.in_(mine), Conversation.dst), else_=Conversation.src)
    total = func.sum(Conversation.bytes_fwd + Conversation.bytes_rev)
    rows = session.execute(select(peer.label("peer"), func.count(), total)
                           .where(Conversation.capture_id == capture_id,
                                  or_(Conversation.src.in_(mine), Conversation.dst.in_(mine)))
                           .group_by(peer).order_by(total.desc(), peer))
    out = []
    for p, n, b in rows:
        if not is_group_address(p):
            out.append(Neighbour(p, n, int(b or 0)))
            if len(out) == limit:
                break
    return out


def conversation_page(session: Session, capture_id: str, *, ip: str | None, port: int | None,
                      proto: str | None, offset: int, limit: int) -> Page[ConversationEntry]:
    """Conversations in the order they began; filters match either end."""
    stmt = select(Conversation).where(Conversation.capture_id == capture_id)
    if ip:
        stmt = stmt.where(or_(Conversation.src == ip, Conversation.dst == ip))
    if port is not None:
        stmt = stmt.where(or_(Conversation.sport == port, Conversation.dport == port))
    if proto:
        stmt = stmt.where(Conversation.proto == proto.lower())
    total, rows = page(session, stmt, (Conversation.first_frame, Conversation.id), offset, limit)
    return Page.of((ConversationEntry.of(r[0]) for r in rows), total, offset, limit)


# --- counts per label -----------------------------------------------------------------------

@dataclass
class LabelCounts:
    question: str
    title: str
    labels: list[tuple[str, int]] = field(default_factory=list)  # most hosts first
    contested: int = 0
    human: int = 0
    stale: int = 0


def label_counts(session: Session, registry: Registry, capture_id: str) -> list[LabelCounts]:
    """Per question (registry order): how many hosts carry each answer, how many are
    contested, answered by a human, or stale."""
    out = {a.question: LabelCounts(a.question, a.title) for a in registry}
    rows = session.execute(select(VerdictRow.question, VerdictRow.primary_label, VerdictRow.contested,
                                  VerdictRow.basis, func.count())
                           .where(VerdictRow.capture_id == capture_id)
                           .group_by(VerdictRow.question, VerdictRow.primary_label, VerdictRow.contested,
                                     VerdictRow.basis))
    labels: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for question, label, contested, basis, n in rows:
        counts = out.get(question)
        if counts is None:
            continue
        if contested:
            counts.contested += n
        elif label is not None:
            labels[question][label] += n
        if basis == Basis.HUMAN:
            counts.human += n
    for question, n in session.execute(select(HumanOverride.question, func.count())
                                       .where(HumanOverride.capture_id == capture_id,
                                              HumanOverride.stale_since.is_not(None))
                                       .group_by(HumanOverride.question)):
        if question in out:
            out[question].stale = n
    for question, counts in out.items():
        counts.labels = sorted(labels[question].items(), key=lambda kv: (-kv[1], kv[0].casefold()))
    return list(out.values())
