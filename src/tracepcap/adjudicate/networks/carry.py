"""Carry-forward: the human answers made on one capture of a network (overrides, accepted
node-roles, which are overrides, analyst evidence and dismissals) are copied onto the same
entity in every later capture of it, until a human's own answer there supersedes the copy or a
human clears it. A copy keeps its author, time and origin (`carried_from`, `carried_id`) and says
how the entity was matched (`carry_note`). A carried override goes stale where the evidence under
it moved from where it was given (or last re-affirmed), and stays stale in later captures.

`plan` computes what should be carried from the human's own rows and marks, so deleting,
re-ordering or detaching a capture recomputes it; `apply` writes only the difference (audited
as `*.carried` / `carry.withdrawn` / `override.stale` by "system") and returns the keys whose
verdicts must be re-adjudicated."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...extract.kinds import HOSTNAME_CLAIM
from ...store.models import (
    Capture,
    CarryMark,
    Dismissal,
    Entity,
    EntityMember,
    HumanOverride,
    ManualEvidence,
    ObservationRow,
)
from ..actor import SYSTEM_ACTOR
from ..contract import Key
from ..ledger.audit import AuditAction, record
from . import evidence as ev

MODELS = {"override": HumanOverride, "evidence": ManualEvidence, "dismissal": Dismissal}
CARRIED_ACTION = {"override": AuditAction.OVERRIDE_CARRIED, "evidence": AuditAction.EVIDENCE_CARRIED,
                  "dismissal": AuditAction.DISMISSAL_CARRIED}


class MarkAction(StrEnum):
    """What an analyst did to a carried override on the later capture (`carry_mark.action`)."""

    REAFFIRMED = "reaffirmed"  #: kept as the capture's own answer
    CLEARED = "cleared"  #: withdrawn from this capture


@dataclass
class Copy:
    kind: str
    origin: HumanOverride | ManualEvidence | Dismissal
    capture_id: str
    entity_key: str
    note: str
    stale_capture: str | None = None
    stale_detail: dict | None = None
    stale_since: datetime | None = None


def _locally_administered(mac: str) -> bool:
    try:
        return bool(int(mac.split(":")[0], 16) & 0x02)
    except ValueError:
        return False


def _when(capture: Capture) -> datetime:
    if capture.first_time is not None:
        return datetime.fromtimestamp(capture.first_time, UTC)
    return capture.uploaded_at if capture.uploaded_at.tzinfo else capture.uploaded_at.replace(tzinfo=UTC)


class _Matcher:
    """Finds the entity of one capture in another: the same key (a device by its own MAC, a
    remote host by its address), else, for a device whose MAC is locally administered (a
    randomised MAC), the one entity claiming the same DHCP hostname, and the same DHCP client
    id where both sent an opaque one (not just their MAC)."""

    def __init__(self, session: Session, presence: dict[str, set[str]]) -> None:
        self.session, self.presence = session, presence
        self._names: dict[str, dict[str, set[str]]] = {}

    def _dhcp_identities(self, capture_id: str) -> dict[str, set[str]]:
        """hostname -> entities, in one capture."""
        if capture_id not in self._names:
            names: dict[str, set[str]] = {}
            keys = dict(self.session.execute(select(EntityMember.member, EntityMember.entity_key).where(
                EntityMember.capture_id == capture_id)).all())
            for entity, value in self.session.execute(select(ObservationRow.entity, ObservationRow.value).where(
                    ObservationRow.capture_id == capture_id, ObservationRow.kind == HOSTNAME_CLAIM.name,
                    ObservationRow.source == "dhcp")):
                names.setdefault(value.lower(), set()).add(keys.get(entity, entity))
            self._names[capture_id] = names
        return self._names[capture_id]

    def _by_primary_address(self, capture_id: str, entity: str, seen: ev.EntityEvidence | None
                            ) -> tuple[str, str] | None:
        """A device (keyed by its MAC) whose key is absent here, and whose MAC is not randomised:
        the one entity here holding its primary address as its own primary address. The device
        changed MAC (a replaced router, a swapped NIC), so the carried answer follows the address
        and the MAC change makes it stale."""
        if not entity.startswith("mac-") or seen is None or any(_locally_administered(m) for m in seen.macs):
            return None
        address = next(iter(seen.addresses), None)  # primary first (Entity.addresses' order)
        if address is None:
            return None
        # through the member table's primary key (entity.ip has no index of its own)
        found = self.session.scalars(select(Entity.key).join(EntityMember, (
            EntityMember.capture_id == Entity.capture_id) & (EntityMember.entity_key == Entity.key)).where(
            EntityMember.capture_id == capture_id, EntityMember.member == address, Entity.ip == address)).all()
        if len(found) != 1:
            return None
        (target,) = found
        self.presence.setdefault(capture_id, set()).add(target)
        return target, (f"the same primary address {address} (the device's MAC key {entity} is absent here, "
                        f"so it is matched by its address; a MAC change makes the answer stale)")

    def match(self, capture_id: str, entity: str, seen: ev.EntityEvidence | None) -> tuple[str, str] | None:
        if entity in self.presence.get(capture_id, ()):
            how = "the same MAC" if entity.startswith("mac-") else "the same key"
            return entity, how
        if (by_address := self._by_primary_address(capture_id, entity, seen)) is not None:
            return by_address
        if seen is None or not seen.dhcp_names or not any(_locally_administered(m) for m in seen.macs):
            return None
        names = self._dhcp_identities(capture_id)
        found = {e for n in seen.dhcp_names for e in names.get(n, ())}
        if len(found) != 1:
            return None  # absent, or more than one claimant: no match is better than a wrong one
        (target,) = found
        theirs = ev.load(self.session, capture_id, {target})[target]
        mine_ids = {c for c in seen.client_ids if not c.startswith("ethernet ")}
        their_ids = {c for c in theirs.client_ids if not c.startswith("ethernet ")}
        if mine_ids and their_ids and not mine_ids & their_ids:
            return None
        how = f"DHCP hostname {', '.join(sorted(seen.dhcp_names & theirs.dhcp_names))}"
        if mine_ids & their_ids:
            how += f" and DHCP client id {', '.join(sorted(mine_ids & their_ids))}"
        how += (f" (MAC {', '.join(sorted(seen.macs))} is locally administered, so randomised MACs are "
                f"matched by name; here {', '.join(sorted(theirs.macs)) or 'no MAC'})")
        self.presence.setdefault(capture_id, set()).add(target)
        return target, how


def plan(session: Session, captures: list[Capture], evidence_of: int | None = None) -> dict[tuple, Copy]:
    """What should be carried into the captures, in their order. Keyed by the slot a copy
    takes: (kind, capture, origin id). `evidence_of`: the plan of that one piece of analyst
    evidence only. Evidence copies take no key slot and no human answer stops them but a
    cleared copy, so one piece's plan is the same alone as among all the others'; what the
    matcher reads (which entities each capture holds) is still read for all origins."""
    ids = [c.id for c in captures]
    position = {cid: i for i, cid in enumerate(ids)}
    by_id = {c.id: c for c in captures}
    natives = {kind: session.scalars(select(model).where(model.capture_id.in_(ids), model.carried_from.is_(None)))
               .all() for kind, model in MODELS.items()} if ids else {k: [] for k in MODELS}
    own_override = {(o.capture_id, o.question, o.entity_key) for o in natives["override"]}
    own_dismissal = {(d.capture_id, d.question, d.entity_key, d.label_key) for d in natives["dismissal"]}
    marks = {(m.kind, m.origin_id, m.capture_id): m.action for m in session.scalars(
        select(CarryMark).where(CarryMark.capture_id.in_(ids)))} if ids else {}
    entities = {r.entity_key for rows in natives.values() for r in rows}
    presence = ev.group_hosts(session, ids, entities)
    matcher = _Matcher(session, presence)
    if evidence_of is not None:
        natives = {kind: [r for r in rows if kind == "evidence" and r.id == evidence_of]
                   for kind, rows in natives.items()}
        entities = {r.entity_key for rows in natives.values() for r in rows}
    # the evidence of every origin entity in every capture, read at once (a few queries in all)
    cache: dict[tuple[str, str], ev.EntityEvidence] = ev.load_many(session, ids, entities) if entities else {}

    def evidence(capture_id: str, entity: str) -> ev.EntityEvidence:
        if (capture_id, entity) not in cache:  # an entity the matcher found: read alone
            cache[(capture_id, entity)] = ev.load(session, capture_id, {entity}).get(entity, ev.EntityEvidence(entity))
        return cache[(capture_id, entity)]

    out: dict[tuple, Copy] = {}
    slots: dict[tuple, tuple] = {}  # an override's or dismissal's key slot -> the copy holding it
    origins = sorted(((kind, r) for kind, rows in natives.items() for r in rows),
                     key=lambda kr: (position[kr[1].capture_id], kr[1].id))
    for kind, origin in origins:
        entity, last_seen = origin.entity_key, origin.capture_id
        baseline = evidence(origin.capture_id, entity)
        base_name = by_id[origin.capture_id].name
        stale: tuple[str, list[dict]] | None = None
        for cid in ids[position[origin.capture_id] + 1:]:
            mark = marks.get((kind, origin.id, cid))
            if mark == MarkAction.CLEARED:
                break
            found = matcher.match(cid, entity, evidence(last_seen, entity))
            if found is None:
                continue  # absent here; carried again where it reappears
            target, how = found
            if kind == "override" and (cid, origin.question, target) in own_override:
                break  # a human answered here: that answer carries on from now
            if kind == "dismissal" and (cid, origin.question, target, origin.label_key) in own_dismissal:
                break
            entity, last_seen = target, cid
            note = (f"carried from {by_id[origin.capture_id].name} ({origin.capture_id}), given by "
                    f"{origin.actor} at {_utc(origin.created_at).isoformat(timespec='seconds')}; matched by {how}")
            copy = Copy(kind, origin, cid, target, note)
            if kind == "override":
                now = evidence(cid, target)
                if mark == MarkAction.REAFFIRMED:
                    baseline, base_name, stale = now, by_id[cid].name, None
                elif stale is None and (changes := ev.differences(origin.question, origin.label, baseline, now)):
                    stale = (cid, changes)
                if stale is not None:
                    since = by_id[stale[0]]
                    copy.stale_capture, copy.stale_since = since.id, _when(since)
                    copy.stale_detail = {"since": since.id, "since_name": since.name, "baseline": base_name,
                                         "changes": stale[1],
                                         "gone": [[c["kind"], v] for c in stale[1] for v in c["gone"]],
                                         "new": [[c["kind"], v] for c in stale[1] for v in c["new"]]}
            if kind in ("override", "dismissal"):
                slot = (kind, cid, origin.question, target) + ((origin.label_key,) if kind == "dismissal" else ())
                if slot in slots:  # two origins matched onto one entity: the later origin holds it
                    out.pop(slots[slot], None)
                slots[slot] = (kind, cid, origin.id)
            out[(kind, cid, origin.id)] = copy
    return out


def _copy_fields(c: Copy) -> dict:
    o = c.origin
    common = {"question": o.question, "capture_id": c.capture_id, "entity_key": c.entity_key, "label": o.label,
              "actor": o.actor, "created_at": o.created_at, "carried_from": o.capture_id, "carried_id": o.id,
              "carry_note": c.note}
    if c.kind == "override":
        return common | {"rationale": o.rationale, "updated_at": o.updated_at, "facts_snapshot": None,
                         "stale_since": c.stale_since, "stale_detail": c.stale_detail, "stale_capture": c.stale_capture}
    if c.kind == "evidence":
        return common | {"weight": o.weight, "reason": o.reason, "actor_subject": o.actor_subject,
                         "updated_at": o.updated_at}
    return common | {"label_key": o.label_key, "reason": o.reason}


def _described(kind: str, fields: dict) -> dict:
    return {"label": fields["label"], "author": fields["actor"], "at": fields["created_at"].isoformat(),
            "from_capture": fields["carried_from"], "note": fields["carry_note"], "kind": kind}


def apply(session: Session, captures: list[Capture], extra: list[str] = (), *,
          evidence_of: int | None = None) -> set[Key]:
    """Bring the carried copies in `captures` (and none in `extra`, captures that left the
    network) to the plan; return the keys whose verdicts changed. `evidence_of`: only the
    copies of that one piece of analyst evidence (a human added, edited or deleted it, or
    removed one of its copies): nothing else's plan moved."""
    desired = plan(session, captures, evidence_of)
    ids = [c.id for c in captures] + list(extra)
    touched: set[Key] = set()
    existing: dict[tuple, object] = {}
    for kind, model in MODELS.items():
        if not ids or (evidence_of is not None and kind != "evidence"):
            continue
        stmt = select(model).where(model.capture_id.in_(ids), model.carried_from.isnot(None))
        if evidence_of is not None:
            stmt = stmt.where(model.carried_id == evidence_of)
        for row in session.scalars(stmt):
            existing[(kind, row.capture_id, row.carried_id)] = row
    for slot, row in existing.items():
        if slot not in desired:
            touched.add(Key(row.question, row.capture_id, row.entity_key))
            record(session, AuditAction.CARRY_WITHDRAWN, SYSTEM_ACTOR,
                   key=Key(row.question, row.capture_id, row.entity_key), flush=False,
                   before={"kind": slot[0], "label": row.label, "author": row.actor, "from_capture": row.carried_from})
            session.delete(row)
    session.flush()
    for slot, copy in desired.items():
        fields = _copy_fields(copy)
        key = Key(fields["question"], copy.capture_id, copy.entity_key)
        row = existing.get(slot)
        if row is None:
            session.add(MODELS[copy.kind](**fields))
            record(session, CARRIED_ACTION[copy.kind], SYSTEM_ACTOR, key=key, after=_described(copy.kind, fields),
                   flush=False)
            touched.add(key)
            if copy.stale_capture == copy.capture_id:
                _record_stale(session, key, fields)
            continue
        changed = {name: value for name, value in fields.items() if getattr(row, name) != value
                   and not (isinstance(value, datetime) and _same_time(getattr(row, name), value))}
        if not changed:
            continue
        touched.add(Key(row.question, row.capture_id, row.entity_key))
        touched.add(key)
        went_stale = copy.kind == "override" and "stale_capture" in changed and copy.stale_capture == copy.capture_id
        for name, value in changed.items():
            setattr(row, name, value)
        if went_stale:
            _record_stale(session, key, fields)
    session.flush()
    return touched


def _record_stale(session: Session, key: Key, fields: dict) -> None:
    record(session, AuditAction.OVERRIDE_STALE, SYSTEM_ACTOR, key=key, flush=False,
           before={"label": fields["label"], "baseline": fields["stale_detail"]["baseline"]},
           after={"label": fields["label"], **fields["stale_detail"]})


def _utc(at: datetime) -> datetime:
    """A time with its offset: a row just written holds one, the same row read back from
    SQLite does not, and a note must read the same either way."""
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _same_time(a: datetime | None, b: datetime) -> bool:
    if a is None:
        return False
    a = a if a.tzinfo else a.replace(tzinfo=UTC)
    b = b if b.tzinfo else b.replace(tzinfo=UTC)
    return a == b
