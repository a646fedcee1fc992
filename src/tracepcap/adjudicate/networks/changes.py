"""Changes between consecutive captures of a network, as typed events with a severity and
the frames that witness them: device appeared / disappeared, address moved to another MAC,
gateway changed, answer changed, new service served, new tunnel endpoint, new cleartext login,
new finding. Computed from what each capture's analysis stored (facts, verdicts, findings) and
kept per pair of captures, so adding a capture computes one pair."""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from ...extract.kinds import CREDENTIAL, IP_MAC_BINDING, MAC, SERVED, TUNNEL_ENDPOINT
from ...store.models import (Capture, ChangeReview, Conversation, Finding, Host, Locality, NetworkCapture,
                             NetworkChange, ObservationRow, VerdictRow)
from ..actor import Actor
from ..annotations.audit import AuditAction, record, utc_now
from ..contract import Basis
from .evidence import machine_answer


class ChangeKind:
    APPEARED = "device-appeared"
    DISAPPEARED = "device-disappeared"
    ADDRESS_MOVED = "address-moved"
    GATEWAY_CHANGED = "gateway-changed"
    ANSWER_CHANGED = "answer-changed"
    NEW_SERVICE = "new-service"
    NEW_TUNNEL = "new-tunnel"
    NEW_CLEARTEXT_LOGIN = "new-cleartext-login"
    NEW_FINDING = "new-finding"


SEVERITY = {ChangeKind.APPEARED: "low", ChangeKind.DISAPPEARED: "low", ChangeKind.ADDRESS_MOVED: "high",
            ChangeKind.GATEWAY_CHANGED: "high", ChangeKind.ANSWER_CHANGED: "medium",
            ChangeKind.NEW_SERVICE: "medium", ChangeKind.NEW_TUNNEL: "high",
            ChangeKind.NEW_CLEARTEXT_LOGIN: "high"}
GATEWAY_WORDS = ("gateway", "router")
UNKNOWN = {"unknown", ""}


@dataclass
class Snapshot:
    """What one capture's analysis says, as far as changes are concerned."""

    capture: Capture
    devices: dict[str, str] = field(default_factory=dict)  # entity -> locality, for non-remote entities
    first_frame: dict[str, int] = field(default_factory=dict)
    bindings: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))  # ip -> mac -> frame
    served: dict[str, dict[str, int]] = field(default_factory=lambda: defaultdict(dict))
    tunnels: dict[tuple[str, str], int] = field(default_factory=dict)
    logins: dict[tuple[str, str], int] = field(default_factory=dict)
    answers: dict[tuple[str, str], str] = field(default_factory=dict)  # (entity, question) -> machine answer
    gateway_entities: set[str] = field(default_factory=set)
    gateway_mac: str | None = None
    gateway_mac_frame: int | None = None
    upstream: tuple[str, int, int] | None = None  # (address, clients, first frame)
    findings: dict[tuple, tuple[str, str, list]] = field(default_factory=dict)


def snapshot(session: Session, capture: Capture) -> Snapshot:
    snap = Snapshot(capture)
    cid = capture.id
    locality = dict(session.execute(select(Host.ip, Host.locality).where(Host.capture_id == cid)).all())
    snap.devices = {e: loc or "" for e, loc in locality.items() if loc != Locality.REMOTE}
    routed_macs: dict[str, set[str]] = defaultdict(set)
    mac_frame: dict[str, int] = {}
    for entity, kind, value, frame in session.execute(select(
            ObservationRow.entity, ObservationRow.kind, ObservationRow.value, func.min(ObservationRow.first_frame)).where(
            ObservationRow.capture_id == cid, ObservationRow.kind.in_(
                [IP_MAC_BINDING.name, SERVED.name, TUNNEL_ENDPOINT.name, CREDENTIAL.name, MAC.name])).group_by(
            ObservationRow.entity, ObservationRow.kind, ObservationRow.value)):
        snap.first_frame[entity] = min(frame, snap.first_frame.get(entity, frame))
        if kind == IP_MAC_BINDING.name:
            snap.bindings[entity][value] = frame
        elif kind == SERVED.name:
            snap.served[entity][value] = frame
        elif kind == TUNNEL_ENDPOINT.name:
            snap.tunnels[(entity, value)] = frame
        elif kind == CREDENTIAL.name:
            snap.logins[(entity, value)] = frame
        elif locality.get(entity) == Locality.ON_LINK:  # the MAC an on-link address sends from binds it too
            snap.bindings[entity][value] = min(frame, snap.bindings[entity].get(value, frame))
        elif not entity.startswith("mac-"):
            routed_macs[value].add(entity)  # a MAC carrying off-link addresses: a router's
            mac_frame[value] = min(frame, mac_frame.get(value, frame))
    if routed_macs:
        snap.gateway_mac = max(routed_macs, key=lambda m: (len(routed_macs[m]), m))
        snap.gateway_mac_frame = mac_frame[snap.gateway_mac]
    human = []
    for entity, question, primary, basis in session.execute(select(
            VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label, VerdictRow.basis).where(
            VerdictRow.capture_id == cid)):
        if primary and any(w in primary.lower() for w in GATEWAY_WORDS):
            snap.gateway_entities.add(entity)
        if basis == Basis.HUMAN:
            human.append((entity, question))
        elif primary and primary.lower() not in UNKNOWN:
            snap.answers[(entity, question)] = primary
    if human:  # the machine's own answer under a human one: in the documents, read in one query
        for entity, question, primary, basis, document in session.execute(select(
                VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label, VerdictRow.basis,
                VerdictRow.document).where(VerdictRow.capture_id == cid, VerdictRow.basis == Basis.HUMAN)):
            label = machine_answer(primary, basis, document)
            if label and label.lower() not in UNKNOWN:
                snap.answers[(entity, question)] = label
    remote = select(Host.ip).where(Host.capture_id == cid, Host.locality == Locality.REMOTE)
    top = session.execute(select(Conversation.dst, func.count(func.distinct(Conversation.src)).label("n"),
                                 func.min(Conversation.first_frame)).where(
        Conversation.capture_id == cid, Conversation.dst.in_(remote)).group_by(Conversation.dst).order_by(
        func.count(func.distinct(Conversation.src)).desc(), Conversation.dst).limit(1)).first()
    if top is not None and top[1] >= 2:
        snap.upstream = (top[0], top[1], top[2])
    for kind, severity, entities, summary, frames in session.execute(select(
            Finding.kind, Finding.severity, Finding.entities, Finding.summary, Finding.frames).where(
            Finding.capture_id == cid)):
        snap.findings[(kind, tuple(sorted(map(str, entities))))] = (severity, summary, list(frames)[:10])
    return snap


def _signature(*parts: object) -> str:
    return hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()


def diff(before: Snapshot, after: Snapshot) -> list[dict]:
    """The change events from `before` to `after`, the later capture."""
    out: list[dict] = []

    def add(kind: str, entity: str | None, summary: str, frames: list, detail: dict, subject: str = "",
            severity: str | None = None) -> None:
        out.append({"kind": kind, "severity": severity or SEVERITY[kind], "entity_key": entity, "summary": summary,
                    "frames": sorted({f for f in frames if f}), "detail": detail,
                    "signature": _signature(before.capture.id, after.capture.id, kind, entity, subject)})

    later, earlier = after.capture.name, before.capture.name
    for entity in sorted(set(after.devices) - set(before.devices)):
        add(ChangeKind.APPEARED, entity, f"{entity} appeared ({after.devices[entity] or 'locality unknown'})",
            [after.first_frame.get(entity)], {"locality": after.devices[entity]})
    for entity in sorted(set(before.devices) - set(after.devices)):
        add(ChangeKind.DISAPPEARED, entity, f"{entity} is not in {later} (last seen in {earlier})", [],
            {"last_frame_before": before.first_frame.get(entity)})
    for ip, macs in sorted(after.bindings.items()):
        was = before.bindings.get(ip)
        if not was:
            continue
        new = sorted(set(macs) - set(was))
        if new:
            still = sorted(set(macs) & set(was))
            text = (f"{ip} is now also claimed by {', '.join(new)} besides {', '.join(still)} (ARP/ND)"
                    if still else f"{ip} moved from {', '.join(sorted(was))} to {', '.join(new)}")
            add(ChangeKind.ADDRESS_MOVED, ip, text, [macs[m] for m in new],
                {"was": sorted(was), "now": sorted(macs), "new": new}, subject=",".join(new))
    gw = []
    if before.gateway_mac and after.gateway_mac and before.gateway_mac != after.gateway_mac:
        gw.append(f"the MAC carrying off-link traffic moved from {before.gateway_mac} to {after.gateway_mac}")
    if before.upstream and after.upstream and before.upstream[0] != after.upstream[0]:
        gw.append(f"clients' traffic leaves through {after.upstream[0]} ({after.upstream[1]} clients) instead of "
                  f"{before.upstream[0]} ({before.upstream[1]} clients)")
    if before.gateway_entities and after.gateway_entities and before.gateway_entities != after.gateway_entities:
        gw.append(f"the gateway answer moved from {', '.join(sorted(before.gateway_entities))} to "
                  f"{', '.join(sorted(after.gateway_entities))}")
    if gw:
        frames = [after.upstream[2] if after.upstream else None, after.gateway_mac_frame]
        add(ChangeKind.GATEWAY_CHANGED, after.upstream[0] if after.upstream else after.gateway_mac,
            "gateway changed: " + "; ".join(gw), frames,
            {"mac": [before.gateway_mac, after.gateway_mac],
             "upstream": [before.upstream and before.upstream[0], after.upstream and after.upstream[0]],
             "entities": [sorted(before.gateway_entities), sorted(after.gateway_entities)]},
            subject=f"{after.gateway_mac}|{after.upstream and after.upstream[0]}")
    for (entity, question), label in sorted(after.answers.items()):
        was = before.answers.get((entity, question))
        if was and was != label:
            add(ChangeKind.ANSWER_CHANGED, entity, f"{question} of {entity}: {was} → {label}",
                [], {"question": question, "was": was, "now": label}, subject=f"{question}|{label}")
    for entity, services in sorted(after.served.items()):
        new = sorted(set(services) - set(before.served.get(entity, {})))
        if new:
            add(ChangeKind.NEW_SERVICE, entity, f"{entity} serves {', '.join(new)} (new since {earlier})",
                [services[s] for s in new], {"new": new, "was": sorted(before.served.get(entity, {}))},
                subject=",".join(new))
    for (entity, value), frame in sorted(after.tunnels.items()):
        if (entity, value) not in before.tunnels:
            add(ChangeKind.NEW_TUNNEL, entity, f"{entity} is a tunnel endpoint: {value}", [frame],
                {"tunnel": value}, subject=value)
    for (entity, value), frame in sorted(after.logins.items()):
        if (entity, value) not in before.logins:
            add(ChangeKind.NEW_CLEARTEXT_LOGIN, entity, f"cleartext login from {entity}: {value}", [frame],
                {"login": value}, subject=value)
    for (kind, entities), (severity, summary, frames) in sorted(after.findings.items()):
        if (kind, entities) not in before.findings:
            add(ChangeKind.NEW_FINDING, entities[0] if entities else None, f"new finding {kind}: {summary}",
                frames, {"finding": kind, "entities": list(entities)}, subject=f"{kind}|{','.join(entities)}",
                severity=severity)
    return out


def recompute(session: Session, network_id: str, captures: list[Capture], stale: set[str] = frozenset()) -> int:
    """Keep one set of changes per consecutive pair: pairs no longer consecutive go, pairs
    involving a capture in `stale` (re-analysed) are recomputed, missing pairs computed.
    Returns how many pairs were computed."""
    pairs = list(zip(captures, captures[1:]))
    wanted = {(a.id, b.id) for a, b in pairs}
    members = {m.capture_id: m for m in session.scalars(select(NetworkCapture).where(
        NetworkCapture.network_id == network_id))}
    stored = {(prev, cur) for prev, cur in session.execute(select(
        NetworkChange.previous_id, NetworkChange.capture_id).where(NetworkChange.network_id == network_id).distinct())}
    # a pair with no events is remembered by its later capture's `changes_from`
    stored |= {(m.changes_from, cid) for cid, m in members.items() if m.changes_from}
    for prev, cur in list(stored):
        if (prev, cur) not in wanted or prev in stale or cur in stale:
            session.execute(delete(NetworkChange).where(NetworkChange.network_id == network_id,
                                                        NetworkChange.previous_id == prev,
                                                        NetworkChange.capture_id == cur))
            stored.discard((prev, cur))
            if cur in members and members[cur].changes_from == prev:
                members[cur].changes_from = None
    snaps: dict[str, Snapshot] = {}

    def snap(c: Capture) -> Snapshot:
        if c.id not in snaps:
            snaps[c.id] = snapshot(session, c)
        return snaps[c.id]
    computed = 0
    for a, b in pairs:
        if (a.id, b.id) in stored:
            continue
        events = diff(snap(a), snap(b))
        session.add_all(NetworkChange(network_id=network_id, capture_id=b.id, previous_id=a.id, **e) for e in events)
        members[b.id].changes_from = a.id
        computed += 1
    session.flush()
    return computed


def mark_reviewed(session: Session, network_id: str, change_id: int, *, actor: Actor) -> NetworkChange:
    from ...errors import NotFound
    change = session.get(NetworkChange, change_id)
    if change is None or change.network_id != network_id:
        raise NotFound(f"no change {change_id} in this network")
    if session.scalar(select(ChangeReview).where(ChangeReview.network_id == network_id,
                                                 ChangeReview.signature == change.signature)) is None:
        session.add(ChangeReview(network_id=network_id, signature=change.signature, actor=actor.name, at=utc_now()))
        session.flush()
        record(session, AuditAction.CHANGE_REVIEWED, actor, capture_id=change.capture_id,
               after={"network": network_id, "change": change.kind, "summary": change.summary,
                      "signature": change.signature})
    return change
