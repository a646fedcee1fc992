"""The capture as a graph: hosts, the conversations among them, and each host's stored
answer to one question. Colours are the page's: a node and a legend entry carry a `tone`,
the position of their label in a stable order (vocabulary first), or "unknown" or
"contested", which the page maps to its palette."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...adjudicate.contract import Basis
from ...adjudicate.registry import Registry
from ...store.models import Conversation, EntityMember, Host, VerdictRow

TOPOLOGY_NODES = 250
CONTESTED = "⚠ contested"
UNKNOWN, CONTESTED_TONE = "unknown", "contested"


def topology(session: Session, registry: Registry, capture_id: str, question: str,
             limit: int = TOPOLOGY_NODES) -> dict:
    """The `limit` busiest hosts (bytes both ways), the conversations among them (one edge per
    pair), each node with its stored verdict on `question`."""
    adj = registry.get(question)
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
    # nodes are addresses (conversations are); each shows its entity's verdict
    entity_of = dict(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
        EntityMember.capture_id == capture_id, EntityMember.member.in_(ranked))).all())
    shown = {entity_of.get(ip, ip) for ip in ranked}
    rows = session.execute(select(VerdictRow.entity_key, VerdictRow.primary_label, VerdictRow.contested,
                                  VerdictRow.basis)
                           .where(VerdictRow.capture_id == capture_id, VerdictRow.question == question))
    by_key = {key: (label, contested, basis) for key, label, contested, basis in rows if key in shown}
    answer = {ip: by_key[entity_of.get(ip, ip)] for ip in ranked if entity_of.get(ip, ip) in by_key}
    tones = _tones(adj.vocabulary, adj.unknown_label,
                   sorted({a[0] for a in answer.values() if a[0] and not a[1]}, key=str.casefold))
    nodes = []
    for ip in ranked:
        label, contested, basis = answer.get(ip, (None, False, None))
        nodes.append({"data": {"id": ip, "name": ip, "answer": CONTESTED if contested else (label or "—"),
                               "tone": CONTESTED_TONE if contested else tones.get(label, UNKNOWN),
                               "contested": bool(contested), "human": basis == Basis.HUMAN,
                               "bytes": traffic.get(ip, 0)}})
    edges = [{"data": {"id": f"{a}|{z}", "source": a, "target": z, "conversations": n, "bytes": b}}
             for (a, z), (n, b) in sorted(pairs.items())]
    used = {n["data"]["answer"] for n in nodes}
    legend = [{"label": label, "tone": tone} for label, tone in tones.items() if label in used]
    if CONTESTED in used:
        legend.append({"label": CONTESTED, "tone": CONTESTED_TONE})
    return {"question": adj.question, "title": adj.title, "nodes": nodes, "edges": edges, "legend": legend,
            "hosts": len(hosts), "shown": len(nodes)}


def _tones(vocabulary: tuple[str, ...], unknown: str, present: list[str]) -> dict[str, int | str]:
    """A stable tone per label: vocabulary labels by their position, others after them; the
    unknown label last."""
    order = [label for label in vocabulary if label != unknown]
    order += [label for label in present if label not in order and label != unknown]
    tones: dict[str, int | str] = {label: i for i, label in enumerate(order)}
    tones[unknown] = UNKNOWN
    return tones
