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
nodes. A host key that is no address (a device key) groups under "devices without an address"
of its zone. No organisation or ASN data ships with TracePcap, so remote groups are by prefix
only.

Opening. A group is drawn host by host (open) or as one node (closed). By default local groups
are open, busiest first, while at most `limit` hosts are drawn, then groups of one host;
other remote groups are closed; a capture of at most SMALL hosts is drawn whole. `opened` and
`closed` (group ids) override the default; an open group draws its `limit` busiest hosts and
counts the rest.

Edges join what is drawn: host to host, host to group, group to group, one per pair, with the
conversations and bytes between them; the `EDGES` heaviest are kept and each carries a
`width` by its bytes (log scale). A closed group carries the `mix` of its hosts' answers (a pie
on the page). `label` keeps only hosts with that answer ("⚠ contested" for
contested ones). Colours are the page's: a node and a legend entry carry a `tone`, the
position of their label among the labels present in a stable order (vocabulary first), or
"unknown" or "contested".
"""

from __future__ import annotations

import ipaddress
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...adjudicate.contract import Basis
from ...adjudicate.registry import Registry
from ...extract.kinds import VLAN
from ...store.models import Conversation, EntityMember, Host, Locality, ObservationRow, VerdictRow

TOPOLOGY_NODES = 250  # hosts drawn one by one, at most (default)
SMALL = 60  # a capture of at most this many hosts is drawn whole
REMOTE_GROUPS = 40  # remote prefixes are coarsened until there are at most this many
EDGES = 1500
PIE = 6  # a closed group's answers: its five commonest, the rest as one slice
CONTESTED = "⚠ contested"
UNKNOWN, CONTESTED_TONE = "unknown", "contested"
LOCAL, REMOTE = "local", "remote"
NO_ADDRESS = "devices without an address"
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


def _address(key: str):
    """(version, key) for an address, None for a key that is none (a device key)."""
    if key.count(".") == 3 and key.replace(".", "").isdigit():
        return 4, key
    try:
        return ipaddress.ip_address(key).version, key
    except ValueError:
        return None


def _private(address) -> bool:
    return ipaddress.ip_address(address[1]).is_private


def _zone(address, locality: str | None) -> str:
    if locality in (Locality.ON_LINK, Locality.LOCAL_ROUTED):
        return LOCAL
    if locality == Locality.REMOTE:
        return REMOTE
    return LOCAL if address is not None and _private(address) else REMOTE


def _network(address, bits: int) -> str:
    version, text = address
    if version == 4 and bits % 8 == 0:  # the common case without building objects
        kept = text.split(".")[:bits // 8]
        return ".".join(kept + ["0"] * (4 - len(kept))) + f"/{bits}"
    return str(ipaddress.ip_network(f"{text}/{bits}", strict=False))


def _groups(hosts: list[tuple[str, str | None]], traffic: dict[str, int],
            vlan_of: dict[str, str] | None = None) -> dict[str, _Group]:
    """Group id -> group, each host in exactly one; `vlan_of`: address -> its VLAN."""
    vlan_of = vlan_of or {}
    placed: list[tuple[str, str | None, object, str]] = [
        (key, locality, address, _zone(address, locality)) for key, locality in hosts
        for address in (_address(key),)]
    remote = [p for p in placed if p[3] == REMOTE and p[2] is not None]
    level = 0
    while level < 2 and len({_network(a, PREFIXES[a[0]][level]) for _, _, a, _ in remote}) > REMOTE_GROUPS:
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


def _vlans(session: Session, capture_id: str) -> dict[str, str]:
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


def _open_groups(groups: dict[str, _Group], total: int, opened: set[str], closed: set[str], limit: int) -> set[str]:
    if total <= SMALL:
        default = set(groups)
    else:
        default, drawn = set(), 0
        ranked = sorted(groups.values(), key=lambda g: (g.zone != LOCAL, -g.bytes, g.id))
        for group in [g for g in ranked if g.zone == LOCAL] + [g for g in ranked if len(g.members) == 1]:
            if group.id not in default and drawn + len(group.members) <= limit:
                default.add(group.id)
                drawn += len(group.members)
    return (default | (opened & set(groups))) - closed


def _width(n_bytes: int, most: int) -> float:
    """1..8 px by bytes, on a log scale up to the heaviest edge."""
    if most <= 1 or n_bytes <= 1:
        return 1.0
    return round(1 + 7 * math.log(n_bytes) / math.log(most), 2)


def topology(session: Session, registry: Registry, capture_id: str, question: str, *,
             opened: tuple[str, ...] | set[str] = (), closed: tuple[str, ...] | set[str] = (), label: str = "",
             limit: int = TOPOLOGY_NODES) -> dict:
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
    every = list(session.execute(select(Host.ip, Host.locality).where(Host.capture_id == capture_id)))
    answer = {key: (lbl, contested, basis) for key, lbl, contested, basis in session.execute(
        select(VerdictRow.entity_key, VerdictRow.primary_label, VerdictRow.contested, VerdictRow.basis)
        .where(VerdictRow.capture_id == capture_id, VerdictRow.question == question))}

    # nodes are addresses (conversations are); each shows its entity's verdict
    entity_of = dict(session.execute(select(EntityMember.member, EntityMember.entity_key)
                                     .where(EntityMember.capture_id == capture_id)).all())
    answer = {ip: answer[entity_of.get(ip, ip)] for ip, _ in every if entity_of.get(ip, ip) in answer}

    def shown_label(key: str) -> str:
        lbl, contested, _ = answer.get(key, (None, False, None))
        return CONTESTED if contested else (lbl or "—")

    counts = Counter(shown_label(key) for key, _ in every)
    hosts = [(key, loc) for key, loc in every if not label or shown_label(key) == label]
    tones = _tones(adj.vocabulary, adj.unknown_label,
                   sorted({lbl for lbl in counts if lbl not in (CONTESTED, "—")}, key=str.casefold))

    def tone(lbl: str):
        return CONTESTED_TONE if lbl == CONTESTED else tones.get(lbl, UNKNOWN)

    groups = _groups(hosts, traffic, _vlans(session, capture_id))
    open_ids = _open_groups(groups, len(every), set(opened), set(closed), limit)
    node_of: dict[str, str] = {}
    nodes: list[dict] = []
    for zone, title in ((LOCAL, "Local network"), (REMOTE, "Remote")):
        if any(g.zone == zone for g in groups.values()):
            nodes.append({"data": {"id": f"zone:{zone}", "kind": "zone", "name": title, "zone": zone}})
    out_groups, drawn = [], 0
    # drawn and listed local first; VLAN groups by VLAN (10 before 20), then the rest busiest first
    for group in sorted(groups.values(), key=lambda g: (g.zone != LOCAL, g.vlan is None,
                                                        _vlan_ids(g.vlan), -g.bytes, g.id)):
        gid = f"g:{group.id}"
        is_open = group.id in open_ids
        members = group.members[:limit] if is_open else []
        drawn += len(members)
        shares = Counter(shown_label(k) for k in group.members).most_common()
        dominant = shares[0][0]
        mix = [{"label": lbl, "tone": tone(lbl), "hosts": n} for lbl, n in shares[:PIE - 1]]
        if len(shares) >= PIE:
            mix.append({"label": "other answers", "tone": UNKNOWN, "hosts": sum(n for _, n in shares[PIE - 1:])})
        places = ", ".join(f"{n} {place}" for place, n in sorted(group.localities.items()))
        data = {"id": gid, "group": group.id, "kind": "group" if is_open else "aggregate", "parent": f"zone:{group.zone}",
                "zone": group.zone, "hosts": len(group.members), "shown": len(members), "bytes": group.bytes,
                "name": f"{group.name} · {len(group.members)} host{'s' if len(group.members) != 1 else ''}"
                        + (f" ({len(members)} shown)" if is_open and len(members) < len(group.members) else ""),
                "answer": dominant, "tone": tone(dominant), "mix": mix, "localities": places}
        listed = {"id": group.id, "name": group.name, "zone": group.zone, "hosts": len(group.members),
                  "open": is_open, "bytes": group.bytes, "localities": places}
        if group.vlan is not None:  # only on a trunk's capture: an untagged one's JSON is as it was
            data["vlan"] = listed["vlan"] = group.vlan
        nodes.append({"data": data})
        out_groups.append(listed)
        for key in group.members:
            node_of[key] = gid
        for key in members:
            node_of[key] = key
            lbl, contested, basis = answer.get(key, (None, False, None))
            nodes.append({"data": {"id": key, "kind": "host", "parent": gid, "name": key, "answer": shown_label(key),
                                   "tone": tone(shown_label(key)), "contested": bool(contested),
                                   "human": basis == Basis.HUMAN, "bytes": traffic.get(key, 0)}})
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
    edges = [{"data": {"id": f"{a}|{z}", "source": a, "target": z, "conversations": n, "bytes": b,
                       "width": _width(b, most)}} for (a, z), (n, b) in heaviest]
    used = {lbl for lbl in counts}
    legend = [{"label": lbl, "tone": t} for lbl, t in tones.items() if lbl in used]
    if CONTESTED in used:
        legend.append({"label": CONTESTED, "tone": CONTESTED_TONE})
    return {"question": adj.question, "title": adj.title, "nodes": nodes, "edges": edges, "legend": legend,
            "labels": [{"label": lbl, "hosts": n} for lbl, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))],
            "label": label, "groups": out_groups, "hosts": len(every), "matching": len(hosts), "shown": drawn,
            "pairs": len(pairs), "edges_shown": len(edges)}


def _tones(vocabulary: tuple[str, ...], unknown: str, present: list[str]) -> dict[str, int | str]:
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
