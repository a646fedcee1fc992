"""What a human answer about an entity rests on, read from one capture: its MACs (on-link
entities only: a routed host's frames carry its router's MAC), the addresses bound to it, the
services it served, the REPORTED identity facts it gave and the machine's own answers. Each
fact keeps its first frame, so every staleness and change names its witness."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...extract.kinds import DEVICE_MODEL, DHCP_CLIENT_ID, HOSTNAME_CLAIM, IP_MAC_BINDING, MAC, OS_VERSION, SERVED
from ...store.models import Entity, EntityMember, Locality, ObservationRow, VerdictRow
from ..contract import Basis, Verdict
from ..registry import get_registry

#: REPORTED facts that say who a device is; a new one under a carried answer may contradict it
REPORTED_IDENTITY = (HOSTNAME_CLAIM, OS_VERSION, DEVICE_MODEL)
UNKNOWN = {"unknown", ""}
KINDS = (MAC, SERVED, IP_MAC_BINDING, DHCP_CLIENT_ID) + REPORTED_IDENTITY


@dataclass
class EntityEvidence:
    entity: str
    present: bool = False
    on_link: bool = False
    macs: dict[str, int] = field(default_factory=dict)  # value -> first frame
    addresses: dict[str, int] = field(default_factory=dict)  # for a MAC-keyed device: bound addresses
    served: dict[str, int] = field(default_factory=dict)
    reported: dict[tuple[str, str], int] = field(default_factory=dict)  # (kind, value) -> first frame
    dhcp_names: set[str] = field(default_factory=set)
    client_ids: set[str] = field(default_factory=set)
    machine: dict[str, str] = field(default_factory=dict)  # question -> the machine's own answer

    def document(self) -> dict:
        return {"mac": sorted(self.macs), "addresses": sorted(self.addresses), "served": sorted(self.served),
                "reported": sorted(f"{k} {v}" for k, v in self.reported), "machine": dict(sorted(self.machine.items()))}


def _mac_of_key(entity: str) -> str | None:
    """The MAC a device key names (`mac-aa-bb-cc-dd-ee-ff`), None for an address key."""
    if entity.startswith("mac-"):
        return entity[4:].replace("-", ":")
    return None


def machine_answer(primary: str | None, basis: str, document: dict | None) -> str | None:
    """The machine's own answer of a stored verdict: its label unless a human answered, then
    the machine's best live candidate (the verdict still carries them)."""
    if basis != Basis.HUMAN:
        return primary
    if document is None:
        return None
    live = Verdict.from_document(document).live
    return live[0].label if live else None


def load(session: Session, capture_id: str, entities: set[str] | None = None) -> dict[str, EntityEvidence]:
    """The evidence of `entities` (every host when None) in one capture."""
    return {e: found for (_, e), found in load_many(session, [capture_id], entities).items()}


def load_many(session: Session, capture_ids: list[str], entities: set[str] | None = None
              ) -> dict[tuple[str, str], EntityEvidence]:
    """The evidence of `entities` (every entity when None) in each of the captures, keyed by
    (capture, entity key): a handful of queries whatever the number of captures. An entity's
    facts are held per address or MAC (its `entity_member` names) and gathered onto its key."""
    out: dict[tuple[str, str], EntityEvidence] = {}
    wanted = sorted(entities) if entities is not None else None

    def limited(stmt, column):
        return stmt if wanted is None else stmt.where(column.in_(wanted))

    owned: dict[tuple[str, str], set[str]] = {}
    for cid, key, locality, addresses, macs in session.execute(limited(select(
            Entity.capture_id, Entity.key, Entity.locality, Entity.addresses, Entity.macs).where(
            Entity.capture_id.in_(capture_ids)), Entity.key)):
        e = EntityEvidence(key, present=True, on_link=locality == Locality.ON_LINK or key.startswith("mac-"))
        if key.startswith("mac-"):
            e.addresses = {a: 0 for a in addresses or ()}
        owned[(cid, key)] = set(macs or ())
        out[(cid, key)] = e
    # member name (address or MAC key) -> its entity's evidence
    by_member: dict[tuple[str, str], EntityEvidence] = {(cid, key): e for (cid, key), e in out.items()}
    for cid, member, key in session.execute(limited(select(
            EntityMember.capture_id, EntityMember.member, EntityMember.entity_key).where(
            EntityMember.capture_id.in_(capture_ids)), EntityMember.entity_key)):
        if (e := out.get((cid, key))) is not None:
            by_member[(cid, member)] = e
    members = sorted({m for _, m in by_member})
    stmt = select(ObservationRow.capture_id, ObservationRow.entity, ObservationRow.kind, ObservationRow.value,
                  ObservationRow.source, func.min(ObservationRow.first_frame)).where(
        ObservationRow.capture_id.in_(capture_ids), ObservationRow.kind.in_([k.name for k in KINDS])).group_by(
        ObservationRow.capture_id, ObservationRow.entity, ObservationRow.kind, ObservationRow.value,
        ObservationRow.source)
    if wanted is not None:
        stmt = stmt.where(ObservationRow.entity.in_(members))
    for cid, entity, kind, value, source, frame in session.execute(stmt):
        e = by_member.get((cid, entity))
        if e is None:
            continue
        if kind in (IP_MAC_BINDING.name, MAC.name):
            if kind == IP_MAC_BINDING.name and entity in e.addresses:
                e.addresses[entity] = min(frame, e.addresses[entity]) if e.addresses[entity] else frame
            if e.on_link and (not owned.get((cid, e.entity)) or value in owned[(cid, e.entity)]):
                e.macs[value] = min(frame, e.macs.get(value, frame))
        elif kind == SERVED.name:
            e.served[value] = min(frame, e.served.get(value, frame))
        elif kind == DHCP_CLIENT_ID.name:
            e.client_ids.add(value)
        else:
            if kind == HOSTNAME_CLAIM.name and source == "dhcp":
                e.dhcp_names.add(value.lower())
            e.reported[(kind, value)] = min(frame, e.reported.get((kind, value), frame))
    for (cid, key), e in out.items():
        for mac in owned.get((cid, key), ()):
            e.macs.setdefault(mac, 0)
    human: set[tuple[str, str]] = set()
    # every question named: the verdict's primary key (capture, question, entity) is then looked
    # up, not the capture's whole range scanned
    questions = [a.question for a in get_registry()]
    for cid, entity, question, primary, basis in session.execute(limited(select(
            VerdictRow.capture_id, VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label,
            VerdictRow.basis).where(VerdictRow.capture_id.in_(capture_ids), VerdictRow.question.in_(questions)),
            VerdictRow.entity_key)):
        if (cid, entity) not in out:
            continue
        if basis == Basis.HUMAN:
            human.add((cid, entity))
        elif primary is not None:
            out[(cid, entity)].machine[question] = primary
    if human:  # a human answered: the machine's own answer is in the document, read in one query
        for cid, entity, question, primary, basis, document in session.execute(select(
                VerdictRow.capture_id, VerdictRow.entity_key, VerdictRow.question, VerdictRow.primary_label,
                VerdictRow.basis, VerdictRow.document).where(
                VerdictRow.capture_id.in_(sorted({c for c, _ in human})), VerdictRow.question.in_(questions),
                VerdictRow.basis == Basis.HUMAN,
                VerdictRow.entity_key.in_(sorted({e for _, e in human})))):
            if (cid, entity) in out and (label := machine_answer(primary, basis, document)) is not None:
                out[(cid, entity)].machine[question] = label
    return out


def _set_change(what: str, was: dict, now: dict, text: str) -> dict | None:
    gone, new = sorted(set(was) - set(now)), sorted(set(now) - set(was))
    if not gone and not new:
        return None
    parts = [f"{v} new (frame {now[v]})" for v in new] + [f"{v} gone" for v in gone]
    return {"kind": what, "text": f"{text}: " + ", ".join(parts), "gone": gone, "new": new,
            "frames": sorted({now[v] for v in new if now[v]})}


def differences(question: str, label: str, baseline: EntityEvidence, now: EntityEvidence) -> list[dict]:
    """How the evidence under a human answer (`label` for `question`) moved from `baseline` to
    `now`, each change with its facts and frames; empty when nothing moved."""
    out = []
    if (baseline.on_link or now.on_link) and (c := _set_change("mac", baseline.macs, now.macs, "MAC")):
        out.append(c)
    if c := _set_change("addresses", baseline.addresses, now.addresses, "addresses"):
        out.append(c)
    if c := _set_change("served", baseline.served, now.served, "services served"):
        out.append(c)
    was, is_ = baseline.machine.get(question), now.machine.get(question)
    if was and is_ and was != is_ and not {was.lower(), is_.lower()} & UNKNOWN:
        out.append({"kind": "machine-answer", "text": f"the machine's own {question} answer moved: {was} → {is_}",
                    "gone": [was], "new": [is_], "frames": []})
    contradicting = []
    for (kind, value), frame in sorted(now.reported.items()):
        if (kind, value) in baseline.reported:
            continue
        if kind == HOSTNAME_CLAIM.name and question == "hostname" and value.lower() == label.lower():
            continue  # agrees with the answer
        contradicting.append((kind, value, frame))
    if contradicting:
        out.append({"kind": "reported", "text": "new REPORTED identity facts: " + ", ".join(
            f"{k} {v} (frame {f})" for k, v, f in contradicting),
            "gone": [], "new": [f"{k} {v}" for k, v, _ in contradicting],
            "frames": sorted({f for *_, f in contradicting})})
    return out


def group_hosts(session: Session, capture_ids: list[str], entities: set[str]) -> dict[str, set[str]]:
    """Which of `entities` (entity keys) each capture holds."""
    out: dict[str, set[str]] = defaultdict(set)
    if not entities or not capture_ids:
        return out
    for cid, key in session.execute(select(Entity.capture_id, Entity.key).where(
            Entity.capture_id.in_(capture_ids), Entity.key.in_(sorted(entities)))):
        out[cid].add(key)
    return out
