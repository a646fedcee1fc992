"""Hosts of a capture: the one host search (the API's `?q=` and the inventory's filter are
the same search), a host's facts and neighbours, conversations, and counts per label."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import case, exists, func, literal, or_, select
from sqlalchemy.orm import Session, aliased

from ...adjudicate.contract import Basis, Verdict
from ...adjudicate.registry import Registry
from ...errors import NotFound
from ...extract import kinds
from ...store.models import Conversation, Host, HumanOverride, Locality, ObservationRow, VerdictRow
from .captures import entity_findings, findings
from .paging import page
from .verdicts import host_verdicts

#: fact kinds the host search matches (besides the address and the verdicts' labels)
SEARCHED_KINDS = (kinds.MAC.name, kinds.OUI_VENDOR.name, kinds.HOSTNAME_CLAIM.name)
#: fact kinds a host row carries
ROW_KINDS = (kinds.MAC.name, kinds.OUI_VENDOR.name, kinds.HOSTNAME_CLAIM.name)
MARKS = ("contested", "human", "stale", "finding")
#: the fact kinds shown first on a host page, in this order; other kinds follow by name
FACT_ORDER = tuple(kind.name for kind in (
    kinds.MAC, kinds.OUI_VENDOR, kinds.TTL, kinds.SERVED, kinds.INITIATED, kinds.HOSTNAME_CLAIM,
    kinds.USER_AGENT, kinds.TCP_SYN_SIGNATURE, kinds.DHCP_PARAMETER_LIST, kinds.DHCP_VENDOR_CLASS,
    kinds.SSH_BANNER, kinds.HTTP_SERVER, kinds.TLS_SNI, kinds.MDNS_SERVICE, kinds.SSDP_SERVER,
    kinds.SSDP_NT, kinds.SSDP_USN, kinds.DNS_QUERY))
FACTS_PER_KIND = 50


def require_host(session: Session, capture_id: str, ip: str) -> None:
    if session.get(Host, (capture_id, ip)) is None:
        raise NotFound(f"no host {ip!r} in capture {capture_id}")


def host_count(session: Session, capture_id: str) -> int:
    return session.scalar(select(func.count()).select_from(Host).where(Host.capture_id == capture_id)) or 0


# --- the host search ------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class HostFilter:
    """Which hosts, in which order. `text` matches (case-insensitive, anywhere) the address,
    a MAC, an OUI vendor, a claimed name or a verdict's label; `question` with `label` or
    `mark`, or `mark` alone, keeps hosts whose verdict is so; `locality` keeps hosts Scan
    placed there; `sort` is ip, mac, locality or a question."""

    text: str = ""
    question: str = ""
    label: str = ""
    mark: str = ""  # contested | human | stale (with or without a question) | finding (none)
    sort: str = "ip"
    desc: bool = False
    locality: str = ""  # on-link | local-routed | remote


@dataclass(frozen=True, slots=True)
class HostRow:
    ip: str
    macs: list[str]
    vendors: list[str]
    names: list[str]  # names the host claimed
    verdicts: dict[str, Verdict]  # by question, registry order
    locality: str | None = None  # Scan's on-link | local-routed | remote; None before Scan stored it
    locality_reason: str | None = None
    finding: str | None = None  # the highest severity among the findings naming the host


@dataclass(frozen=True, slots=True)
class HostPage:
    total: int  # hosts matching the filter
    offset: int  # where the rows start
    rows: list[HostRow]


def _verdict_exists(capture_id: str, *conditions):
    v = aliased(VerdictRow)
    return exists().where(v.capture_id == capture_id, v.entity_key == Host.ip, *[c(v) for c in conditions])


def _stale_exists(capture_id: str, *conditions):
    return exists().where(HumanOverride.capture_id == capture_id, HumanOverride.entity_key == Host.ip,
                          HumanOverride.stale_since.is_not(None), *conditions)


def _matching(registry: Registry, capture_id: str, f: HostFilter, flagged: dict[str, str]):
    questions = [a.question for a in registry]
    stmt = select(Host.ip).where(Host.capture_id == capture_id)
    if f.mark == "finding":  # findings are few: their entities are listed, not searched in JSON
        stmt = stmt.where(Host.ip.in_(sorted(flagged)))
    if f.locality:
        stmt = stmt.where(Host.locality == f.locality)
    text = " ".join(f.text.split())
    if text:
        o = aliased(ObservationRow)
        stmt = stmt.where(or_(
            Host.ip.icontains(text, autoescape=True),
            exists().where(o.capture_id == capture_id, o.entity == Host.ip, o.kind.in_(SEARCHED_KINDS),
                           o.value.icontains(text, autoescape=True)),
            _verdict_exists(capture_id, lambda v: v.question.in_(questions),
                            lambda v: v.primary_label.icontains(text, autoescape=True))))
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


def _order(registry: Registry, capture_id: str, f: HostFilter) -> list:
    order = []
    if f.sort in [a.question for a in registry]:
        # answered labels by name, then contested, then hosts without a verdict; one primary-key
        # lookup per host (a join's plan depends on statistics a fresh capture may not have yet)
        key = (select(case((VerdictRow.primary_label.is_not(None), "0" + func.lower(VerdictRow.primary_label)),
                           (VerdictRow.contested.is_(True), literal("1")), else_=literal("2")))
               .where(VerdictRow.capture_id == capture_id, VerdictRow.question == f.sort,
                      VerdictRow.entity_key == Host.ip).scalar_subquery())
        key = func.coalesce(key, literal("3"))
        order = [key.desc() if f.desc else key]
    elif f.sort == "locality":  # nearest first; hosts Scan has not placed last
        rank = case(*((Host.locality == place.value, literal(i)) for i, place in enumerate(Locality)),
                    else_=literal(len(Locality)))
        order = [rank.desc() if f.desc else rank]
    elif f.sort == "mac":
        first_mac = (select(func.min(ObservationRow.value))
                     .where(ObservationRow.capture_id == capture_id, ObservationRow.entity == Host.ip,
                            ObservationRow.kind == kinds.MAC.name).scalar_subquery())
        has_mac = case((first_mac.is_(None), literal(1)), else_=literal(0))
        order = [has_mac, first_mac.desc() if f.desc else first_mac]
    return order + [Host.position.desc() if f.desc and f.sort == "ip" else Host.position]


def host_page(session: Session, registry: Registry, capture_id: str, f: HostFilter, *, offset: int,
              limit: int, clamp: bool = False) -> HostPage:
    """The hosts matching `f`, filtered, sorted and cut in the database. With `clamp`, an
    offset past the last host starts the last page instead (a page link gone stale)."""
    flagged = entity_findings(findings(session, capture_id))
    stmt = _matching(registry, capture_id, f, flagged)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    if clamp and offset >= total:
        offset = max(0, (total - 1) // limit * limit)
    ips = list(session.scalars(stmt.order_by(*_order(registry, capture_id, f)).limit(limit).offset(offset)))
    return HostPage(total, offset, host_rows(session, registry, capture_id, ips, flagged))


def host_rows(session: Session, registry: Registry, capture_id: str, ips: list[str],
              flagged: dict[str, str] | None = None) -> list[HostRow]:
    if not ips:
        return []
    facts: dict[tuple[str, str], set[str]] = defaultdict(set)
    for entity, kind, value in session.execute(
            select(ObservationRow.entity, ObservationRow.kind, ObservationRow.value)
            .where(ObservationRow.capture_id == capture_id, ObservationRow.entity.in_(ips),
                   ObservationRow.kind.in_(ROW_KINDS))):
        facts[entity, kind].add(value)
    verdicts = host_verdicts(session, registry, capture_id, ips)
    localities = {ip: (locality, reason) for ip, locality, reason in session.execute(
        select(Host.ip, Host.locality, Host.locality_reason)
        .where(Host.capture_id == capture_id, Host.ip.in_(ips)))}
    return [HostRow(ip, sorted(facts[ip, kinds.MAC.name]), sorted(facts[ip, kinds.OUI_VENDOR.name]),
                    sorted(facts[ip, kinds.HOSTNAME_CLAIM.name]), verdicts.get(ip, {}),
                    *localities.get(ip, (None, None)), (flagged or {}).get(ip)) for ip in ips]


# --- one host -------------------------------------------------------------------------------

def host_locality(session: Session, capture_id: str, ip: str) -> tuple[str | None, str | None]:
    """Where Scan placed the host and why; (None, None) before Scan stored it."""
    host = session.get(Host, (capture_id, ip))
    if host is None:
        raise NotFound(f"no host {ip!r} in capture {capture_id}")
    return host.locality, host.locality_reason


def host_facts(session: Session, capture_id: str, ip: str) -> list[ObservationRow]:
    """The host's facts, by kind, value and source."""
    require_host(session, capture_id, ip)
    return list(session.scalars(select(ObservationRow).where(
        ObservationRow.capture_id == capture_id, ObservationRow.entity == ip).order_by(
        ObservationRow.kind, ObservationRow.value, ObservationRow.source)))


def fact_groups(session: Session, capture_id: str, ip: str) -> list[dict]:
    """The host's facts grouped by kind (FACT_ORDER first), each group at most FACTS_PER_KIND
    facts (most-seen first) with the number left out."""
    groups: dict[str, list[ObservationRow]] = defaultdict(list)
    for fact in host_facts(session, capture_id, ip):
        groups[fact.kind].append(fact)
    rank = {kind: i for i, kind in enumerate(FACT_ORDER)}
    out = []
    for kind in sorted(groups, key=lambda k: (rank.get(k, len(rank)), k)):
        facts = sorted(groups[kind], key=lambda f: (-f.count, f.first_frame, f.value))
        out.append({"kind": kind, "facts": facts[:FACTS_PER_KIND], "more": max(0, len(facts) - FACTS_PER_KIND)})
    return out


def neighbours(session: Session, capture_id: str, ip: str, limit: int = 12) -> list[dict]:
    """The host's busiest peers (by bytes both ways)."""
    peer = case((Conversation.src == ip, Conversation.dst), else_=Conversation.src)
    total = func.sum(Conversation.bytes_fwd + Conversation.bytes_rev)
    rows = session.execute(select(peer.label("peer"), func.count(), total)
                           .where(Conversation.capture_id == capture_id,
                                  or_(Conversation.src == ip, Conversation.dst == ip))
                           .group_by(peer).order_by(total.desc()).limit(limit))
    return [{"ip": p, "conversations": n, "bytes": int(b or 0)} for p, n, b in rows]


def conversation_page(session: Session, capture_id: str, *, ip: str | None, port: int | None,
                      proto: str | None, offset: int, limit: int) -> tuple[int, list[Conversation]]:
    """Conversations in the order they began; filters match either end."""
    stmt = select(Conversation).where(Conversation.capture_id == capture_id)
    if ip:
        stmt = stmt.where(or_(Conversation.src == ip, Conversation.dst == ip))
    if port is not None:
        stmt = stmt.where(or_(Conversation.sport == port, Conversation.dport == port))
    if proto:
        stmt = stmt.where(Conversation.proto == proto.lower())
    total, rows = page(session, stmt, (Conversation.first_frame, Conversation.id), offset, limit)
    return total, [r[0] for r in rows]


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
