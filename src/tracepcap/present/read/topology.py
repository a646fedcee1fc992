"""The capture as a graph that scales: hosts grouped by subnet, the local network apart from
the remote, groups too big to draw host by host drawn as one node until opened, and each
host's stored answer to one question.

Grouping. A host is *local* when Scan placed it on-link or local-routed, *remote* when it
placed it remote (before Scan stored a locality: local when its address is private). Local
hosts group by their /24 (IPv6: /64), and, when the capture holds `vlan` facts (a trunk port's
802.1Q tags), by VLAN then subnet: "VLAN 20 · 10.0.20.0/24", the group carrying its `vlan`. An
address seen on several VLANs goes with the one most of its frames carried; a local address
seen untagged groups by subnet alone; VLAN groups come first among the local ones, in VLAN
order; remote hosts never group by VLAN (their packets carry the tag of whichever local host
they talked to). Remote hosts group by /24 (/48), coarsened to /16 (/32) and then /8 (/16)
while there are more than REMOTE_GROUPS groups: a thousand remote hosts stay a few dozen
nodes. A device without an address (a MAC-only entity: one that sent DHCP from 0.0.0.0, or
forged answers in another's name) is drawn by its device key, under "devices without an
address" of its zone. No organisation or ASN data ships with TracePcap, so remote groups are by prefix
only.

Opening. A group is drawn host by host (open) or as one node (closed) that names its host
count and opens on a click. A capture of at most COLLAPSE_ABOVE hosts is drawn whole; a bigger
one opens with every group of several hosts closed (groups of one host are drawn as that host).
`opened` and `closed` (group ids) override the default; an open group draws its `limit`
busiest hosts and counts the rest.

Findings. A host whose entity a finding of Scan names carries the finding kinds, the worst
severity and a title naming each finding; `spoofer` when an impersonation finding
(IMPERSONATION: dns-spoofing, ip-mac-conflict, whose first entity is the one impersonated)
names it among those sending in another's name. A closed group carries how many of its hosts
are named and which kinds, so a spoofer among a thousand hosts still shows.

Edges join what is drawn: host to host, host to group, group to group, one per pair, with the
conversations and bytes between them; the `EDGES` heaviest are kept and each carries a
`width` by its bytes (log scale). A closed group carries the `mix` of its hosts' answers (a pie
on the page). `label` keeps only hosts with that answer ("⚠ contested" for
contested ones). Colours are the page's: a node and a legend entry carry a `tone`, the
position of their label among the labels present in a stable order (vocabulary first), or
"unknown" or "contested".

The result is frozen dataclasses (`Topology`); the web route turns it into the page's JSON
(web/graph.py: each node's fields under "data", as cytoscape takes them).
"""

from __future__ import annotations

import ipaddress
import math
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...adjudicate.contract import Basis
from ...adjudicate.registry import Registry
from ...extract.kinds import VLAN
from ...store.models import Conversation, Entity, EntityMember, Host, Locality, ObservationRow, VerdictRow
from .captures import SEVERITY_ORDER, FindingEntry, by_severity, findings

TOPOLOGY_NODES = 250  # hosts drawn one by one, at most (default)
COLLAPSE_ABOVE = 100  # a capture of more hosts opens with every subnet group of several hosts closed
REMOTE_GROUPS = 40  # remote prefixes are coarsened until there are at most this many
EDGES = 1500
PIE = 6  # a closed group's answers: its five commonest, the rest as one slice
CONTESTED = "⚠ contested"
UNKNOWN, CONTESTED_TONE = "unknown", "contested"
LOCAL, REMOTE = "local", "remote"
NO_ADDRESS = "devices without an address"
# findings whose first entity is the one impersonated and the others the ones sending in its name
IMPERSONATION = frozenset({"dns-spoofing", "ip-mac-conflict"})
PREFIXES = {4: (24, 16, 8), 6: (48, 32, 16)}
LOCAL_PREFIX = {4: 24, 6: 64}


@dataclass
class _Group:
    id: str
    name: str
    zone: str
    members: list[str] = field(default_factory=list)
    localities: Counter = field(default_factory=Counter)
    bytes: int = 0
    vlan: str | None = None


@dataclass(frozen=True, slots=True)
class ZoneNode:
    """The local network or the remote one: the frame its groups are drawn in."""

    id: str
    name: str
    zone: str
    kind: str = "zone"


@dataclass(frozen=True, slots=True)
class Slice:
    """One answer's share of a closed group's hosts (a pie slice on the page)."""

    label: str
    tone: int | str
    hosts: int


@dataclass(frozen=True, slots=True)
class GroupNode:
    """A group of hosts: drawn as the frame of its hosts (kind "group", open) or as one node
    (kind "aggregate", closed) carrying its host count in `name` and the `mix` of their
    answers. `findings`: the finding kinds naming its hosts, `severity` the worst of them,
    `flagged` how many of its hosts findings name, `spoofer` whether one of them sent in
    another host's name; `title` says so in words."""

    id: str
    group: str
    kind: str
    parent: str
    zone: str
    hosts: int
    shown: int
    bytes: int
    name: str
    answer: str
    tone: int | str
    mix: tuple[Slice, ...]
    localities: str
    vlan: str | None
    findings: tuple[str, ...]
    severity: str | None
    flagged: int
    spoofer: bool
    title: str


@dataclass(frozen=True, slots=True)
class HostNode:
    """A host drawn on its own, coloured by its answer (`tone`); `findings` the kinds of the
    findings naming it (most severe first), `severity` the worst, `spoofer` whether one names
    it as sending in another host's name, `title` its answer and each finding in words."""

    id: str
    parent: str
    name: str
    answer: str
    tone: int | str
    contested: bool
    human: bool
    bytes: int
    findings: tuple[str, ...]
    severity: str | None
    spoofer: bool
    title: str
    kind: str = "host"


@dataclass(frozen=True, slots=True)
class Edge:
    """The conversations and bytes between two drawn nodes; `width` 1..8 px by bytes."""

    id: str
    source: str
    target: str
    conversations: int
    bytes: int
    width: float


@dataclass(frozen=True, slots=True)
class LegendEntry:
    label: str
    tone: int | str


@dataclass(frozen=True, slots=True)
class LabelCount:
    label: str
    hosts: int


@dataclass(frozen=True, slots=True)
class GroupEntry:
    """A group as the list under the graph names it, open or closed."""

    id: str
    name: str
    zone: str
    hosts: int
    open: bool
    bytes: int
    localities: str
    vlan: str | None
    flagged: int


@dataclass(frozen=True, slots=True)
class Topology:
    """The graph of one question's answers: `nodes` (zones, groups, hosts) and `edges`, the
    `legend` and `labels` (answers and their host counts), the `groups`; `hosts` in the
    capture, `matching` the `label` filter, `shown` drawn one by one; `pairs` of drawn nodes
    that talked and `edges_shown` of them kept; `collapsed`: the capture has more than
    COLLAPSE_ABOVE hosts, so its groups open closed; `flagged`: hosts findings name."""

    question: str
    title: str
    nodes: tuple[ZoneNode | GroupNode | HostNode, ...]
    edges: tuple[Edge, ...]
    legend: tuple[LegendEntry, ...]
    labels: tuple[LabelCount, ...]
    label: str
    groups: tuple[GroupEntry, ...]
    hosts: int
    matching: int
    shown: int
    pairs: int
    edges_shown: int
    collapsed: bool
    flagged: int


Address = tuple[int, str]  # (IP version, the address as text)


def _address(key: str) -> Address | None:
    """(version, key) for an address, None for a key that is none (a device key)."""
    if key.count(".") == 3 and key.replace(".", "").isdigit():
        return 4, key
    try:
        return ipaddress.ip_address(key).version, key
    except ValueError:
        return None


def _private(address: Address) -> bool:
    return ipaddress.ip_address(address[1]).is_private


def _zone(address: Address | None, locality: str | None) -> str:
    if locality in (Locality.ON_LINK, Locality.LOCAL_ROUTED):
        return LOCAL
    if locality == Locality.REMOTE:
        return REMOTE
    return LOCAL if address is not None and _private(address) else REMOTE


def _network(address: Address, bits: int) -> str:
    version, text = address
    if version == 4 and bits % 8 == 0:  # the common case without building objects
        kept = text.split(".")[:bits // 8]
        return ".".join(kept + ["0"] * (4 - len(kept))) + f"/{bits}"
    return str(ipaddress.ip_network(f"{text}/{bits}", strict=False))


def _groups(hosts: list[tuple[str, str | None]], traffic: dict[str, int],
            vlan_of: Mapping[str, str] | None = None) -> Mapping[str, _Group]:
    """Group id -> group, each host in exactly one; `vlan_of`: address -> its VLAN."""
    vlan_of = vlan_of or {}
    placed: list[tuple[str, str | None, Address | None, str]] = [
        (key, locality, address, _zone(address, locality)) for key, locality in hosts
        for address in (_address(key),)]
    remote = [p for p in placed if p[3] == REMOTE and p[2] is not None]
    level = 0
    while level < 2 and len({_network(a, PREFIXES[a[0]][level]) for _, _, a, _ in remote if a}) > REMOTE_GROUPS:
        level += 1
    groups: dict[str, _Group] = {}
    for key, locality, address, zone in placed:
        if address is None:
            gid, name = f"{zone}:devices", NO_ADDRESS
        else:
            bits = LOCAL_PREFIX[address[0]] if zone == LOCAL else PREFIXES[address[0]][level]
            name = _network(address, bits)
            gid = f"{zone}:{name}"
        vlan = vlan_of.get(key) if zone == LOCAL else None
        if vlan is not None:
            gid, name = f"{zone}:vlan-{vlan}:{name}", f"VLAN {vlan} · {name}"
        group = groups.setdefault(gid, _Group(gid, name, zone, vlan=vlan))
        group.members.append(key)
        group.localities[locality or "undecided"] += 1
        group.bytes += traffic.get(key, 0)
    for group in groups.values():
        group.members.sort(key=lambda k: (-traffic.get(k, 0), k))
    return groups


def _vlans(session: Session, capture_id: str) -> Mapping[str, str]:
    """Address -> the VLAN most of its frames carried (ties: the lowest), from `vlan` facts."""
    best: dict[str, tuple[int, str]] = {}
    for entity, value, count in session.execute(
            select(ObservationRow.entity, ObservationRow.value, ObservationRow.count)
            .where(ObservationRow.capture_id == capture_id, ObservationRow.kind == VLAN.name)):
        have = best.get(entity)
        if have is None or (count, _vlan_order(value)) > (have[0], _vlan_order(have[1])):
            best[entity] = (count, value)
    return {entity: value for entity, (_, value) in best.items()}


def _vlan_ids(value: str | None) -> tuple[int, ...]:
    """"100.30" -> (100, 30); () for no VLAN."""
    return tuple(int(part) for part in value.split(".") if part.isdigit()) if value else ()


def _vlan_order(value: str) -> tuple:
    """Negated ids, so that of two VLANs seen as often the lower one compares larger and wins."""
    return tuple(-int(part) if part.isdigit() else 0 for part in value.split("."))


def _open_groups(groups: Mapping[str, _Group], total: int, opened: set[str], closed: set[str], limit: int) -> set[str]:
    """The groups drawn host by host: all of a capture of at most COLLAPSE_ABOVE hosts; of a
    bigger one only the groups of one host (a closed group of one says no less), while at most
    `limit` hosts are drawn; then `opened` and `closed` as asked."""
    if total <= COLLAPSE_ABOVE:
        default = set(groups)
    else:
        default = set([g.id for g in sorted(groups.values(), key=lambda g: (g.zone != LOCAL, -g.bytes, g.id))
                       if len(g.members) == 1][:limit])
    return (default | (opened & set(groups))) - closed


def _width(n_bytes: int, most: int) -> float:
    """1..8 px by bytes, on a log scale up to the heaviest edge."""
    if most <= 1 or n_bytes <= 1:
        return 1.0
    return round(1 + 7 * math.log(n_bytes) / math.log(most), 2)


def _flags(found: list[FindingEntry], entity_of: Mapping[str, str],
           keys: list[str]) -> Mapping[str, tuple[FindingEntry, ...]]:
    """Host key -> the findings naming its entity (or the key itself), most severe first."""
    named: dict[str, list[FindingEntry]] = defaultdict(list)
    for finding in found:
        for entity in finding.entities:
            named[entity].append(finding)
    out: dict[str, tuple[FindingEntry, ...]] = {}
    for key in keys:
        entity = entity_of.get(key, key)
        hits = dict.fromkeys(named.get(entity, []) + (named.get(key, []) if key != entity else []))
        if hits:
            out[key] = tuple(by_severity(list(hits)))
    return out


def _impersonates(finding: FindingEntry, entity: str) -> bool:
    """`entity` is named by `finding` as the one sending in another's name (not its subject)."""
    return finding.kind in IMPERSONATION and entity in finding.entities[1:] and entity != finding.entities[0]


def _finding_line(finding: FindingEntry, spoofer: bool) -> str:
    role = "sent as another host" if spoofer else "named"
    return f"⚑ {finding.kind} ({finding.severity}, {role}): {finding.summary}"


def topology(session: Session, registry: Registry, capture_id: str, question: str, *,
             opened: tuple[str, ...] | set[str] = (), closed: tuple[str, ...] | set[str] = (), label: str = "",
             limit: int = TOPOLOGY_NODES) -> Topology:
    adj = registry.get(question)
    size = Conversation.bytes_fwd + Conversation.bytes_rev
    talks = [(src, dst, n, int(total or 0)) for src, dst, n, total in session.execute(  # PostgreSQL: numeric
        select(Conversation.src, Conversation.dst, func.count(), func.sum(size))
        .where(Conversation.capture_id == capture_id).group_by(Conversation.src, Conversation.dst))]
    traffic: dict[str, int] = defaultdict(int)
    for src, dst, _, total in talks:
        traffic[src] += total
        if dst != src:
            traffic[dst] += total
    every = [(ip, locality) for ip, locality in session.execute(
        select(Host.ip, Host.locality).where(Host.capture_id == capture_id))]
    known = {ip for ip, _ in every}
    every += [(key, locality) for key, locality in session.execute(  # devices seen by their MAC alone
        select(Entity.key, Entity.locality).where(Entity.capture_id == capture_id, Entity.ip.is_(None))
        .order_by(Entity.key)) if key not in known]
    answer = {key: (lbl, contested, basis) for key, lbl, contested, basis in session.execute(
        select(VerdictRow.entity_key, VerdictRow.primary_label, VerdictRow.contested, VerdictRow.basis)
        .where(VerdictRow.capture_id == capture_id, VerdictRow.question == question))}

    # nodes are addresses (conversations are); each shows its entity's verdict
    entity_of = dict(session.execute(select(EntityMember.member, EntityMember.entity_key)
                                     .where(EntityMember.capture_id == capture_id)).all())
    answer = {ip: answer[entity_of.get(ip, ip)] for ip, _ in every if entity_of.get(ip, ip) in answer}
    flags = _flags(findings(session, capture_id), entity_of, [key for key, _ in every])

    def spoofs(key: str) -> bool:
        return any(_impersonates(f, entity_of.get(key, key)) or _impersonates(f, key) for f in flags.get(key, ()))

    def shown_label(key: str) -> str:
        lbl, contested, _ = answer.get(key, (None, False, None))
        return CONTESTED if contested else (lbl or "—")

    counts = Counter(shown_label(key) for key, _ in every)
    hosts = [(key, loc) for key, loc in every if not label or shown_label(key) == label]
    tones = _tones(adj.vocabulary, adj.unknown_label,
                   sorted({lbl for lbl in counts if lbl not in (CONTESTED, "—")}, key=str.casefold))

    def tone(lbl: str) -> int | str:
        return CONTESTED_TONE if lbl == CONTESTED else tones.get(lbl, UNKNOWN)

    groups = _groups(hosts, traffic, _vlans(session, capture_id))
    collapsed = len(every) > COLLAPSE_ABOVE
    open_ids = _open_groups(groups, len(every), set(opened), set(closed), limit)
    node_of: dict[str, str] = {}
    nodes: list[ZoneNode | GroupNode | HostNode] = []
    for zone, title in ((LOCAL, "Local network"), (REMOTE, "Remote")):
        if any(g.zone == zone for g in groups.values()):
            nodes.append(ZoneNode(f"zone:{zone}", title, zone))
    out_groups: list[GroupEntry] = []
    drawn = 0
    # drawn and listed local first; VLAN groups by VLAN (10 before 20), then the rest busiest first
    for group in sorted(groups.values(), key=lambda g: (g.zone != LOCAL, g.vlan is None,
                                                        _vlan_ids(g.vlan), -g.bytes, g.id)):
        gid = f"g:{group.id}"
        is_open = group.id in open_ids
        members = group.members[:limit] if is_open else []
        drawn += len(members)
        shares = Counter(shown_label(k) for k in group.members).most_common()
        dominant = shares[0][0]
        mix = [Slice(lbl, tone(lbl), n) for lbl, n in shares[:PIE - 1]]
        if len(shares) >= PIE:
            mix.append(Slice("other answers", UNKNOWN, sum(n for _, n in shares[PIE - 1:])))
        places = ", ".join(f"{n} {place}" for place, n in sorted(group.localities.items()))
        flagged = [k for k in group.members if k in flags]
        kinds = tuple(dict.fromkeys(f.kind for k in flagged for f in flags[k]))
        severity = _worst(f.severity for k in flagged for f in flags[k])
        spoofers = [k for k in flagged if spoofs(k)]
        plural = "s" if len(group.members) != 1 else ""
        name = (f"{group.name} · {len(group.members)} host{plural}"
                + (f" ({len(members)} shown)" if is_open and len(members) < len(group.members) else ""))
        if flagged and not is_open:
            name += f"\n⚑ {len(flagged)} with findings: {', '.join(kinds)}"
        title = name.replace("\n", " — ") + ("".join(f"\n⚑ {k} sent as another host" for k in spoofers[:5]))
        nodes.append(GroupNode(gid, group.id, "group" if is_open else "aggregate", f"zone:{group.zone}", group.zone,
                               len(group.members), len(members), group.bytes, name, dominant, tone(dominant),
                               tuple(mix), places, group.vlan, kinds, severity, len(flagged), bool(spoofers), title))
        out_groups.append(GroupEntry(group.id, group.name, group.zone, len(group.members), is_open, group.bytes,
                                     places, group.vlan, len(flagged)))
        for key in group.members:
            node_of[key] = gid
        for key in members:
            node_of[key] = key
            lbl, contested, basis = answer.get(key, (None, False, None))
            found = flags.get(key, ())
            spoofer = spoofs(key)
            host_name = key + (f"\n⚑ {', '.join(dict.fromkeys(f.kind for f in found))}" if found else "")
            host_title = "\n".join([f"{key}: {shown_label(key)}"]
                                   + [_finding_line(f, _impersonates(f, entity_of.get(key, key)) or _impersonates(f, key))
                                      for f in found])
            nodes.append(HostNode(key, gid, host_name, shown_label(key), tone(shown_label(key)), bool(contested),
                                  basis == Basis.HUMAN, traffic.get(key, 0),
                                  tuple(dict.fromkeys(f.kind for f in found)),
                                  found[0].severity if found else None, spoofer, host_title))
    pairs: dict[tuple[str, str], list[int]] = {}
    for src, dst, n, total in talks:
        a, z = node_of.get(src), node_of.get(dst)
        if a is None or z is None or a == z:
            continue
        entry = pairs.setdefault((a, z) if a < z else (z, a), [0, 0])
        entry[0] += n
        entry[1] += total
    heaviest = sorted(pairs.items(), key=lambda kv: (-kv[1][1], kv[0]))[:EDGES]
    most = heaviest[0][1][1] if heaviest else 0
    edges = tuple(Edge(f"{a}|{z}", a, z, n, b, _width(b, most)) for (a, z), (n, b) in heaviest)
    used = set(counts)
    legend = [LegendEntry(lbl, t) for lbl, t in tones.items() if lbl in used]
    if CONTESTED in used:
        legend.append(LegendEntry(CONTESTED, CONTESTED_TONE))
    return Topology(adj.question, adj.title, tuple(nodes), edges, tuple(legend),
                    tuple(LabelCount(lbl, n) for lbl, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
                    label, tuple(out_groups), len(every), len(hosts), drawn, len(pairs), len(edges), collapsed,
                    len(flags))


def _worst(severities) -> str | None:
    rank = {s: i for i, s in enumerate(SEVERITY_ORDER)}
    return min(severities, key=lambda s: rank.get(s, len(rank)), default=None)


def _tones(vocabulary: tuple[str, ...], unknown: str, present: list[str]) -> Mapping[str, int | str]:
    """A tone per label the capture's hosts carry, numbered in a stable order (vocabulary
    labels in vocabulary order, others after them by name; the unknown label apart). Only the
    labels present are numbered: numbering the whole vocabulary wrapped the page's palette, and
    a capture's Switch and Camera, or DNS Server and Phone, came out the same colour."""
    shown = set(present)
    order = [label for label in vocabulary if label != unknown and label in shown]
    order += [label for label in present if label not in order and label != unknown]
    tones: dict[str, int | str] = {label: i for i, label in enumerate(order)}
    tones[unknown] = UNKNOWN
    return tones
