"""Read helpers of the web UI: the capture list, one page of a capture's host inventory
(server-side filter, sort and pagination: a capture may hold thousands of hosts), counts per
label, a host's facts and the topology graph.

Reads only. Every label shown comes from a stored verdict; nothing here decides an answer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import case, exists, func, literal, or_, select
from sqlalchemy.orm import Session, aliased

from ...adjudicate.contract import Basis
from ...adjudicate.registry import Registry
from ...extract import kinds
from ..queries import capture_fields, list_captures
from ...store.models import (Conversation, Finding, Host, HumanOverride, ManifestEntry,
                             ObservationRow, VerdictRow)

#: fact kinds matched by the inventory's text filter (besides the address and the verdict labels)
SEARCHED_KINDS = (kinds.MAC.name, kinds.OUI_VENDOR.name, kinds.HOSTNAME_CLAIM.name)
PER_PAGE_CHOICES = (25, 50, 100, 200)
MARKS = ("contested", "human", "stale")
#: the fact kinds shown first on a host page, in this order; other kinds follow by name
FACT_ORDER = tuple(kind.name for kind in (
    kinds.MAC, kinds.OUI_VENDOR, kinds.TTL, kinds.SERVED, kinds.INITIATED, kinds.HOSTNAME_CLAIM,
    kinds.USER_AGENT, kinds.TCP_SYN_SIGNATURE, kinds.DHCP_PARAMETER_LIST, kinds.DHCP_VENDOR_CLASS,
    kinds.SSH_BANNER, kinds.HTTP_SERVER, kinds.TLS_SNI, kinds.MDNS_SERVICE, kinds.SSDP_SERVER,
    kinds.SSDP_NT, kinds.SSDP_USN, kinds.DNS_QUERY))
FACTS_PER_KIND = 50
TOPOLOGY_NODES = 250
#: node colours of the topology, assigned to labels in vocabulary order (server side)
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
           "#bcbd22", "#393b79", "#637939", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354",
           "#756bb1", "#8c6d31")
UNKNOWN_COLOUR = "#9aa0a6"
CONTESTED_COLOUR = "#ffffff"


# --- captures -------------------------------------------------------------------------------

def capture_rows(session: Session) -> list[dict]:
    """Every capture (newest upload first) with its host, contested and human-answer counts."""
    hosts = dict(session.execute(select(Host.capture_id, func.count()).group_by(Host.capture_id)).all())
    contested = dict(session.execute(select(VerdictRow.capture_id, func.count())
                                     .where(VerdictRow.contested.is_(True))
                                     .group_by(VerdictRow.capture_id)).all())
    human = dict(session.execute(select(VerdictRow.capture_id, func.count())
                                 .where(VerdictRow.basis == Basis.HUMAN)
                                 .group_by(VerdictRow.capture_id)).all())
    return [capture_fields(c) | {"hosts": hosts.get(c.id, 0), "contested": contested.get(c.id, 0),
                                 "human": human.get(c.id, 0)} for c in list_captures(session)]


def manifest_rows(session: Session, capture_id: str) -> list[ManifestEntry]:
    return list(session.scalars(select(ManifestEntry).where(ManifestEntry.capture_id == capture_id)
                                .order_by(ManifestEntry.id)))


def host_count(session: Session, capture_id: str) -> int:
    return session.scalar(select(func.count()).select_from(Host).where(Host.capture_id == capture_id)) or 0


def finding_count_by_entity(session: Session, capture_id: str) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for (entities,) in session.execute(select(Finding.entities).where(Finding.capture_id == capture_id)):
        for entity in entities or ():
            out[str(entity)] += 1
    return out


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


# --- the host inventory ---------------------------------------------------------------------

@dataclass
class HostQuery:
    """What the inventory shows: filter text, one (question, label) or (question, mark)
    filter, sort column, direction and page."""

    text: str = ""
    question: str = ""
    label: str = ""
    mark: str = ""  # contested | human | stale
    sort: str = "ip"  # ip | mac | a question key
    desc: bool = False
    page: int = 1
    per_page: int = 50

    def params(self, **changes) -> dict:
        """Query parameters of this view with `changes` applied (defaults left out)."""
        values = {"q": self.text, "question": self.question, "label": self.label, "mark": self.mark,
                  "sort": self.sort, "desc": "1" if self.desc else "", "page": self.page,
                  "per_page": self.per_page}
        values.update(changes)
        defaults = {"q": "", "question": "", "label": "", "mark": "", "sort": "ip", "desc": "",
                    "page": 1, "per_page": 50}
        return {k: v for k, v in values.items() if v not in (None, defaults[k]) and v != ""}


@dataclass
class HostPage:
    rows: list[dict]
    total: int  # hosts matching the filter
    all_hosts: int  # hosts in the capture
    page: int
    pages: int
    query: HostQuery


def _verdict_exists(capture_id: str, *conditions):
    v = aliased(VerdictRow)
    return exists().where(v.capture_id == capture_id, v.entity_key == Host.ip,
                          *[c(v) for c in conditions])


def host_page(session: Session, registry: Registry, capture_id: str, query: HostQuery) -> HostPage:
    """One page of the inventory, filtered and sorted in the database."""
    questions = [a.question for a in registry]
    stmt = select(Host.ip).where(Host.capture_id == capture_id)
    text = " ".join(query.text.split())
    if text:
        o = aliased(ObservationRow)
        stmt = stmt.where(or_(
            Host.ip.icontains(text, autoescape=True),
            exists().where(o.capture_id == capture_id, o.entity == Host.ip, o.kind.in_(SEARCHED_KINDS),
                           o.value.icontains(text, autoescape=True)),
            _verdict_exists(capture_id, lambda v: v.question.in_(questions),
                            lambda v: v.primary_label.icontains(text, autoescape=True))))
    if query.question in questions:
        q = query.question
        if query.mark == "contested":
            stmt = stmt.where(_verdict_exists(capture_id, lambda v: v.question == q, lambda v: v.contested.is_(True)))
        elif query.mark == "human":
            stmt = stmt.where(_verdict_exists(capture_id, lambda v: v.question == q, lambda v: v.basis == Basis.HUMAN))
        elif query.mark == "stale":
            stmt = stmt.where(exists().where(HumanOverride.capture_id == capture_id, HumanOverride.question == q,
                                             HumanOverride.entity_key == Host.ip,
                                             HumanOverride.stale_since.is_not(None)))
        elif query.label:
            stmt = stmt.where(_verdict_exists(capture_id, lambda v: v.question == q,
                                              lambda v: v.primary_label == query.label,
                                              lambda v: v.contested.is_(False)))
    elif query.mark in MARKS:
        if query.mark == "contested":
            stmt = stmt.where(_verdict_exists(capture_id, lambda v: v.question.in_(questions),
                                              lambda v: v.contested.is_(True)))
        elif query.mark == "human":
            stmt = stmt.where(_verdict_exists(capture_id, lambda v: v.question.in_(questions),
                                              lambda v: v.basis == Basis.HUMAN))
        else:
            stmt = stmt.where(exists().where(HumanOverride.capture_id == capture_id,
                                             HumanOverride.entity_key == Host.ip,
                                             HumanOverride.stale_since.is_not(None)))
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    pages = max(1, -(-total // query.per_page))
    page = min(max(1, query.page), pages)

    order = []
    if query.sort in questions:
        # answered labels by name, then contested, then hosts without a verdict; one primary-key
        # lookup per host (a join's plan depends on statistics a fresh capture may not have yet)
        key = (select(case((VerdictRow.primary_label.is_not(None), "0" + func.lower(VerdictRow.primary_label)),
                           (VerdictRow.contested.is_(True), literal("1")), else_=literal("2")))
               .where(VerdictRow.capture_id == capture_id, VerdictRow.question == query.sort,
                      VerdictRow.entity_key == Host.ip).scalar_subquery())
        key = func.coalesce(key, literal("3"))
        order = [key.desc() if query.desc else key]
    elif query.sort == "mac":
        first_mac = (select(func.min(ObservationRow.value))
                     .where(ObservationRow.capture_id == capture_id, ObservationRow.entity == Host.ip,
                            ObservationRow.kind == kinds.MAC.name).scalar_subquery())
        has_mac = case((first_mac.is_(None), literal(1)), else_=literal(0))
        order = [has_mac, first_mac.desc() if query.desc else first_mac]
    position = Host.position.desc() if query.desc and query.sort == "ip" else Host.position
    stmt = stmt.order_by(*order, position).limit(query.per_page).offset((page - 1) * query.per_page)
    ips = list(session.scalars(stmt))
    query.page = page
    return HostPage(_rows(session, registry, capture_id, ips), total, host_count(session, capture_id),
                    page, pages, query)


def _rows(session: Session, registry: Registry, capture_id: str, ips: list[str]) -> list[dict]:
    if not ips:
        return []
    macs: dict[str, list[str]] = defaultdict(list)
    vendors: dict[str, list[str]] = defaultdict(list)
    for entity, kind, value in session.execute(
            select(ObservationRow.entity, ObservationRow.kind, ObservationRow.value)
            .where(ObservationRow.capture_id == capture_id, ObservationRow.entity.in_(ips),
                   ObservationRow.kind.in_((kinds.MAC.name, kinds.OUI_VENDOR.name)))
            .order_by(ObservationRow.value)):
        target = macs if kind == kinds.MAC.name else vendors
        if value not in target[entity]:
            target[entity].append(value)
    verdicts: dict[str, dict[str, dict]] = defaultdict(dict)
    for row in session.scalars(select(VerdictRow).where(VerdictRow.capture_id == capture_id,
                                                        VerdictRow.entity_key.in_(ips))):
        verdicts[row.entity_key][row.question] = row.document
    order = [a.question for a in registry]
    return [{"ip": ip, "macs": macs.get(ip, []), "vendors": vendors.get(ip, []),
             "verdicts": {q: verdicts[ip][q] for q in order if q in verdicts[ip]}} for ip in ips]


# --- one host -------------------------------------------------------------------------------

def host_facts(session: Session, capture_id: str, ip: str) -> list[dict]:
    """The host's facts grouped by kind (FACT_ORDER first), each group at most FACTS_PER_KIND
    rows (most-seen first) with the number left out."""
    rows = session.execute(select(ObservationRow.kind, ObservationRow.value, ObservationRow.source,
                                  ObservationRow.grade, ObservationRow.first_frame, ObservationRow.last_frame,
                                  ObservationRow.count)
                           .where(ObservationRow.capture_id == capture_id, ObservationRow.entity == ip))
    groups: dict[str, list[dict]] = defaultdict(list)
    for kind, value, source, grade, first, last, count in rows:
        groups[kind].append({"value": value, "source": source, "grade": grade, "first_frame": first,
                             "last_frame": last, "count": count})
    rank = {kind: i for i, kind in enumerate(FACT_ORDER)}
    out = []
    for kind in sorted(groups, key=lambda k: (rank.get(k, len(rank)), k)):
        facts = sorted(groups[kind], key=lambda f: (-f["count"], f["first_frame"], f["value"]))
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


# --- topology -------------------------------------------------------------------------------

def topology(session: Session, registry: Registry, capture_id: str, colour_by: str,
             limit: int = TOPOLOGY_NODES) -> dict:
    """Hosts and conversations as a graph: the `limit` busiest hosts (bytes both ways), the
    conversations among them (one edge per pair), nodes coloured by their stored verdict on
    `colour_by`."""
    adj = registry.get(colour_by)
    size = Conversation.bytes_fwd + Conversation.bytes_rev
    traffic: dict[str, int] = defaultdict(int)
    for end in (Conversation.src, Conversation.dst):
        for host, total in session.execute(select(end, func.sum(size)).where(Conversation.capture_id == capture_id)
                                           .group_by(end)):
            traffic[host] += int(total or 0)  # PostgreSQL sums bigints as numeric
    hosts = session.scalars(select(Host.ip).where(Host.capture_id == capture_id)).all()
    ranked = sorted(hosts, key=lambda ip: (-traffic.get(ip, 0), ip))[:limit]
    pairs: dict[tuple[str, str], list[int]] = {}
    for src, dst, n, total in session.execute(
            select(Conversation.src, Conversation.dst, func.count(), func.sum(size))
            .where(Conversation.capture_id == capture_id, Conversation.src.in_(ranked), Conversation.dst.in_(ranked))
            .group_by(Conversation.src, Conversation.dst)):
        if src != dst:
            entry = pairs.setdefault((src, dst) if src < dst else (dst, src), [0, 0])
            entry[0] += n
            entry[1] += int(total or 0)
    shown = set(ranked)
    rows = session.execute(select(VerdictRow.entity_key, VerdictRow.primary_label, VerdictRow.contested,
                                  VerdictRow.basis)
                           .where(VerdictRow.capture_id == capture_id, VerdictRow.question == colour_by))
    answer = {ip: (label, contested, basis) for ip, label, contested, basis in rows if ip in shown}
    colours = _colours(adj.labels, adj.unknown_label,
                       sorted({a[0] for a in answer.values() if a[0] and not a[1]}, key=str.casefold))
    nodes = []
    for ip in ranked:
        label, contested, basis = answer.get(ip, (None, False, None))
        nodes.append({"data": {"id": ip, "name": ip, "answer": "⚠ contested" if contested else (label or "—"),
                               "colour": CONTESTED_COLOUR if contested else colours.get(label, UNKNOWN_COLOUR),
                               "contested": bool(contested), "human": basis == Basis.HUMAN,
                               "bytes": traffic.get(ip, 0)}})
    edges = [{"data": {"id": f"{a}|{z}", "source": a, "target": z, "conversations": n, "bytes": b}}
             for (a, z), (n, b) in sorted(pairs.items())]
    used = {n["data"]["answer"] for n in nodes}
    legend = [{"label": label, "colour": colour} for label, colour in colours.items() if label in used]
    if "⚠ contested" in used:
        legend.append({"label": "⚠ contested", "colour": CONTESTED_COLOUR})
    return {"question": adj.question, "title": adj.title, "nodes": nodes, "edges": edges, "legend": legend,
            "hosts": len(hosts), "shown": len(nodes)}


def _colours(vocabulary: tuple[str, ...], unknown: str, present: list[str]) -> dict[str, str]:
    """A stable colour per label: vocabulary labels by their position, others after them."""
    out: dict[str, str] = {}
    order = [label for label in vocabulary if label != unknown]
    order += [label for label in present if label not in order and label != unknown]
    for i, label in enumerate(order):
        out[label] = PALETTE[i % len(PALETTE)]
    out[unknown] = UNKNOWN_COLOUR
    return out
