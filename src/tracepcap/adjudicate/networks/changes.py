"""What one capture of a network shows, as far as changes are concerned (`snapshot`), the
change kinds, and the answer-changed events between two captures. The events themselves -
device appeared / disappeared / returned, address moved to another MAC, gateway changed, new
service served, new application used, new tunnel endpoint, new cleartext login, traffic peak,
new finding - are computed against the network's whole history in `baseline.py`.

The subject of an event is the device (its entity key: `mac-..` for an on-link device, the
address for a remote or routed host): a device's facts are held per address or MAC (its
`entity_member` names) and gathered onto its key, so a device with IPv4 and IPv6 addresses
appears once. An address-moved event is the exception: its subject is the address whose MAC
changed (its detail names the device holding it now)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...extract.extractors.credentials import SESSION_TOKENS
from ...extract.kinds import (
    APPLICATION_USED,
    CREDENTIAL,
    INITIATED,
    IP_MAC_BINDING,
    MAC,
    OUI_VENDOR,
    SERVED,
    TUNNEL_ENDPOINT,
)
from ...keys import claim_of, mac_key
from ...store.models import (
    Capture,
    ChangeReview,
    Conversation,
    Entity,
    EntityMember,
    Finding,
    Locality,
    NetworkChange,
    ObservationRow,
    VerdictRow,
)
from ..actor import Actor
from ..contract import Basis
from ..ledger.audit import AuditAction, record, utc_now
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
    NEW_APPLICATION = "new-application"
    TRAFFIC_PEAK = "traffic-peak"


SEVERITY = {ChangeKind.APPEARED: "low", ChangeKind.DISAPPEARED: "low", ChangeKind.ADDRESS_MOVED: "high",
            ChangeKind.GATEWAY_CHANGED: "high", ChangeKind.ANSWER_CHANGED: "medium",
            ChangeKind.NEW_SERVICE: "medium", ChangeKind.NEW_TUNNEL: "high",
            ChangeKind.NEW_CLEARTEXT_LOGIN: "high", ChangeKind.NEW_APPLICATION: "medium",
            ChangeKind.TRAFFIC_PEAK: "high"}
GATEWAY_WORDS = ("gateway", "router")
UNKNOWN = {"unknown", ""}

#: Applications whose first use by a device is a change worth a look, by the port it opened
#: connections to (`initiated` facts are measured from handshakes, so a port here is one the
#: device really used as a client). Only ports that name an application whose appearance
#: matters (cleartext logins, remote control, peer-to-peer, anonymity, tunnels, mail, file
#: transfer): a new web or DNS peer is not a change.
APPLICATIONS = {"tcp/21": "FTP", "tcp/23": "telnet", "tcp/22": "SSH", "tcp/3389": "RDP", "tcp/5900": "VNC",
                "tcp/5985": "WinRM", "tcp/5986": "WinRM", "tcp/445": "SMB", "tcp/139": "NetBIOS session",
                "tcp/25": "SMTP", "tcp/110": "POP3", "tcp/143": "IMAP", "tcp/6667": "IRC", "tcp/6697": "IRC",
                "tcp/9001": "Tor", "tcp/9030": "Tor", "tcp/1194": "OpenVPN", "udp/1194": "OpenVPN",
                "udp/51820": "WireGuard", "tcp/1723": "PPTP", "udp/500": "IKE", "udp/4500": "IPsec NAT-T",
                "tcp/6969": "BitTorrent tracker", "udp/6969": "BitTorrent tracker", "tcp/69": "TFTP",
                "udp/69": "TFTP", "tcp/512": "rexec", "tcp/513": "rlogin", "tcp/514": "rsh",
                **{f"tcp/{p}": "BitTorrent" for p in range(6881, 6890)},
                **{f"udp/{p}": "BitTorrent DHT" for p in range(6881, 6890)}}
#: the ones that are high severity when first used: cleartext logins, peer-to-peer, anonymity
HIGH_APPLICATIONS = frozenset(("FTP", "telnet", "TFTP", "rexec", "rlogin", "rsh", "BitTorrent", "BitTorrent DHT",
                               "BitTorrent tracker", "Tor", "IRC"))
#: a traffic peak: a device moving at least PEAK_FACTOR times the bytes it moved in the previous
#: capture, and at least PEAK_FLOOR bytes (so a quiet device waking up is not a peak)
PEAK_FACTOR = 10
PEAK_FLOOR = 10 * 1000 * 1000


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
    effective: dict[tuple[str, str], str] = field(default_factory=dict)  # (entity, question) -> stored answer
    human: set[tuple[str, str]] = field(default_factory=set)  # (entity, question) a human answered
    applications: dict[str, dict[str, tuple[str, int]]] = field(default_factory=lambda: defaultdict(dict))
    # entity -> application -> (port, first frame)
    traffic: dict[str, int] = field(default_factory=dict)  # entity -> bytes both ways over its conversations
    largest: dict[str, tuple[int, str, int, int]] = field(default_factory=dict)
    # entity -> (bytes, peer, bytes the device sent, first frame) of its largest conversation pair
    holder: dict[str, str] = field(default_factory=dict)  # address -> the entity holding it
    vendors: dict[str, str] = field(default_factory=dict)  # device -> its MAC's registry vendor


def snapshot(session: Session, capture: Capture, *, answers_only: bool = False,
             entities: set[str] | None = None) -> Snapshot:
    """What `capture`'s analysis stored, per device. `answers_only`: just the answers (of
    `entities`, every entity when None) - what a human action can change."""
    snap = Snapshot(capture)
    cid = capture.id
    _answers(session, snap, entities)
    if answers_only:
        return snap
    locality = dict(session.execute(select(Entity.key, Entity.locality).where(Entity.capture_id == cid)).all())
    snap.devices = {e: loc or "" for e, loc in locality.items() if loc != Locality.REMOTE}
    snap.holder = dict(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
        EntityMember.capture_id == cid)).all())
    key_of = snap.holder.get
    routed_macs: dict[str, set[str]] = defaultdict(set)
    mac_frame: dict[str, int] = {}
    for member, kind, value, frame in session.execute(select(
            ObservationRow.entity, ObservationRow.kind, ObservationRow.value, func.min(ObservationRow.first_frame)).where(
            ObservationRow.capture_id == cid, ObservationRow.kind.in_(
                [IP_MAC_BINDING.name, SERVED.name, TUNNEL_ENDPOINT.name, CREDENTIAL.name, MAC.name,
                 INITIATED.name, APPLICATION_USED.name, OUI_VENDOR.name])).group_by(
            ObservationRow.entity, ObservationRow.kind, ObservationRow.value)):
        entity = key_of(member, member)  # facts are held per address or MAC: gathered onto the device
        if (claim := claim_of(member)) is not None:
            member = claim[0]  # a claimant's facts sent as another's address: a binding of that address
        if kind == INITIATED.name:
            if (app := APPLICATIONS.get(value)) is not None:
                was = snap.applications[entity].get(app)
                if was is None or frame < was[1]:
                    snap.applications[entity][app] = (value, frame)
            continue
        if kind == APPLICATION_USED.name:  # "BitTorrent DHT udp/6881": recognised by its payload
            app, _, port = value.rpartition(" ")
            app = app or value
            was = snap.applications[entity].get(app)
            if was is None or frame < was[1]:
                snap.applications[entity][app] = (port, frame)
            continue
        if kind == OUI_VENDOR.name:
            if value:
                snap.vendors.setdefault(entity, value)
            continue
        snap.first_frame[entity] = min(frame, snap.first_frame.get(entity, frame))
        if kind == IP_MAC_BINDING.name:
            snap.bindings[member][value] = frame  # the address is the subject of a binding
        elif kind == SERVED.name:
            snap.served[entity][value] = min(frame, snap.served[entity].get(value, frame))
        elif kind == TUNNEL_ENDPOINT.name:
            snap.tunnels[(entity, value)] = min(frame, snap.tunnels.get((entity, value), frame))
        elif kind == CREDENTIAL.name:
            if value.split(" ", 1)[0] not in SESSION_TOKENS:  # a cookie is a session's token, no login
                snap.logins[(entity, value)] = min(frame, snap.logins.get((entity, value), frame))
        elif member.startswith("mac-"):
            continue
        elif locality.get(entity) == Locality.ON_LINK:  # the MAC an on-link address sends from binds it too
            snap.bindings[member][value] = min(frame, snap.bindings[member].get(value, frame))
        elif locality.get(entity) in (Locality.REMOTE, Locality.LOCAL_ROUTED):
            # a MAC carrying off-link hosts' addresses: a router's (not 0.0.0.0 of a DHCP client)
            routed_macs[value].add(member)
            mac_frame[value] = min(frame, mac_frame.get(value, frame))
    # a MAC claiming an on-link address that no device owns (a shadow answering ARP for another's
    # address) is on the link all the same: a device of its own for appearing and disappearing
    owned = {member for member in snap.holder if member.startswith("mac-")}
    for address, macs in snap.bindings.items():
        for mac, frame in macs.items():
            if (shadow := mac_key(mac)) not in owned:
                snap.devices.setdefault(shadow, f"on-link, owns no address (claims {address})")
                snap.first_frame[shadow] = min(frame, snap.first_frame.get(shadow, frame))
    if routed_macs:
        snap.gateway_mac = max(routed_macs, key=lambda m: (len(routed_macs[m]), m))
        snap.gateway_mac_frame = mac_frame[snap.gateway_mac]
    remote = select(EntityMember.member).join(Entity, (Entity.capture_id == EntityMember.capture_id)
                                              & (Entity.key == EntityMember.entity_key)).where(
        EntityMember.capture_id == cid, Entity.locality == Locality.REMOTE)
    top = session.execute(select(Conversation.dst, func.count(func.distinct(Conversation.src)).label("n"),
                                 func.min(Conversation.first_frame)).where(
        Conversation.capture_id == cid, Conversation.dst.in_(remote)).group_by(Conversation.dst).order_by(
        func.count(func.distinct(Conversation.src)).desc(), Conversation.dst).limit(1)).first()
    if top is not None and top[1] >= 2:
        snap.upstream = (top[0], top[1], top[2])
    _traffic(session, snap)
    for kind, severity, entities, summary, frames in session.execute(select(
            Finding.kind, Finding.severity, Finding.entities, Finding.summary, Finding.frames).where(
            Finding.capture_id == cid)):
        snap.findings[(kind, tuple(sorted(map(str, entities))))] = (severity, summary, list(frames)[:10])
    return snap


def _answers(session: Session, snap: Snapshot, entities: set[str] | None) -> None:
    """The stored (effective) answer of each question, a human's where one answered, and the
    machine's own answer under it."""
    cid = snap.capture.id
    stmt = select(VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label, VerdictRow.basis).where(
        VerdictRow.capture_id == cid)
    if entities is not None:
        stmt = stmt.where(VerdictRow.entity_key.in_(sorted(entities)))
    for entity, question, primary, basis in session.execute(stmt):
        if primary and any(w in primary.lower() for w in GATEWAY_WORDS):
            snap.gateway_entities.add(entity)
        if primary and primary.lower() not in UNKNOWN:
            snap.effective[(entity, question)] = primary
        if basis == Basis.HUMAN:
            snap.human.add((entity, question))
        elif primary and primary.lower() not in UNKNOWN:
            snap.answers[(entity, question)] = primary
    if snap.human:  # the machine's own answer under a human one: in the documents, read in one query
        stmt = select(VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label, VerdictRow.basis,
                      VerdictRow.document).where(VerdictRow.capture_id == cid, VerdictRow.basis == Basis.HUMAN)
        if entities is not None:
            stmt = stmt.where(VerdictRow.entity_key.in_(sorted(entities)))
        for entity, question, primary, basis, document in session.execute(stmt):
            label = machine_answer(primary, basis, document)
            if label and label.lower() not in UNKNOWN:
                snap.answers[(entity, question)] = label


def _traffic(session: Session, snap: Snapshot) -> None:
    """Bytes each device moved (both ways, over every conversation it took part in) and its
    largest exchange with one peer, with that exchange's first frame."""
    pairs: dict[tuple[str, str], list[int]] = {}
    for src, dst, fwd, rev, frame in session.execute(select(
            Conversation.src, Conversation.dst, func.sum(Conversation.bytes_fwd), func.sum(Conversation.bytes_rev),
            func.min(Conversation.first_frame)).where(Conversation.capture_id == snap.capture.id).group_by(
            Conversation.src, Conversation.dst)):
        fwd, rev = int(fwd or 0), int(rev or 0)  # PostgreSQL sums BIGINT as NUMERIC
        for me, peer, sent, received in ((src, dst, fwd, rev), (dst, src, rev, fwd)):
            entity = snap.holder.get(me, me)
            if entity not in snap.devices:
                continue
            pair = pairs.setdefault((entity, peer), [0, 0, frame])
            pair[0] += sent + received
            pair[1] += sent
            pair[2] = min(pair[2], frame)
    for (entity, peer), (total, sent, frame) in pairs.items():
        snap.traffic[entity] = snap.traffic.get(entity, 0) + total
        if total > snap.largest.get(entity, (-1,))[0]:
            snap.largest[entity] = (total, peer, sent, frame)


def _signature(*parts: object) -> str:
    return hashlib.sha1("\x1f".join(map(str, parts)).encode()).hexdigest()


def answer_changes(before: Snapshot, after: Snapshot) -> list[dict]:
    """Answer-changed events: the stored answer (a human's counts as the answer) moved, or the
    machine's own answer moved (under a human one too). One event per question and device."""
    out = []
    keys = sorted(set(after.effective) | set(after.answers))
    for entity, question in keys:
        parts, detail = [], {"question": question}
        was, now = before.effective.get((entity, question)), after.effective.get((entity, question))
        if was and now and was != now:
            who = ("a human's" if (entity, question) in after.human else "the machine's")
            parts.append(f"{was} → {now} ({who} answer here)")
            detail |= {"was": was, "now": now, "human": (entity, question) in after.human,
                       "human_before": (entity, question) in before.human}
        m_was, m_now = before.answers.get((entity, question)), after.answers.get((entity, question))
        if m_was and m_now and m_was != m_now and (m_was, m_now) != (was, now):
            parts.append(f"the machine's own answer {m_was} → {m_now}")
            detail |= {"machine_was": m_was, "machine_now": m_now}
        if not parts:
            continue
        detail.setdefault("was", m_was if "machine_was" in detail else was)
        detail.setdefault("now", m_now if "machine_now" in detail else now)
        out.append({"kind": ChangeKind.ANSWER_CHANGED, "severity": SEVERITY[ChangeKind.ANSWER_CHANGED],
                    "entity_key": entity, "summary": f"{question} of {entity}: " + "; ".join(parts), "frames": [],
                    "detail": detail, "signature": _signature(before.capture.id, after.capture.id,
                                                              ChangeKind.ANSWER_CHANGED, entity,
                                                              f"{question}|{now}|{m_now}")})
    return out


def _addresses(snap: Snapshot) -> dict[str, list[str]]:
    out: dict[str, list[str]] = defaultdict(list)
    for member, entity in snap.holder.items():
        if not member.startswith("mac-") and claim_of(member) is None:
            out[entity].append(member)
    return out


def _name(entity: str, addresses: dict[str, list[str]]) -> str:
    """A device as a person reads it: its key and, for a MAC-keyed device, its addresses."""
    held = [a for a in sorted(addresses.get(entity, ())) if a != entity]
    return f"{entity} ({', '.join(held)})" if held else entity


def _size(n: int) -> str:
    for unit, scale in (("GB", 10 ** 9), ("MB", 10 ** 6), ("kB", 10 ** 3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


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
