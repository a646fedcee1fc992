"""Human answers rest on the entity's identity facts: an override snapshots them, and a
re-analysis that moves them marks the answer stale (`mark_stale`, called by the conductor)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...extract.kinds import MAC, SERVED
from ...store.entities import members_of
from ...store.models import EntityMember, HumanOverride, ObservationRow
from ..actor import SYSTEM_ACTOR
from ..contract import Key
from .audit import AuditAction, record, utc_now

IDENTITY_KINDS = (MAC.name, SERVED.name)  # the facts a human answer about a host rests on
CHUNK = 500  # names in one IN (...) list


def identity_facts(session: Session, capture_id: str, entity: str) -> dict[str, list[str]]:
    """The entity's identity facts now (all its addresses' and MACs'): what a human answer is
    checked against later."""
    rows = session.execute(select(ObservationRow.kind, ObservationRow.value).distinct().where(
        ObservationRow.capture_id == capture_id,
        ObservationRow.entity.in_(members_of(session, capture_id, entity)),
        ObservationRow.kind.in_(IDENTITY_KINDS)))
    out: dict[str, list[str]] = {kind: [] for kind in IDENTITY_KINDS}
    for kind, value in rows:
        out[kind].append(value)
    return {kind: sorted(values) for kind, values in out.items()}


def identity_facts_many(session: Session, capture_id: str, entities: set[str]) -> dict[str, dict[str, list[str]]]:
    """`identity_facts` of many entities, in two queries."""
    names: dict[str, str] = {e: e for e in entities}  # member -> its entity
    wanted = sorted(entities)
    for start in range(0, len(wanted), CHUNK):
        names.update(session.execute(select(EntityMember.member, EntityMember.entity_key).where(
            EntityMember.capture_id == capture_id, EntityMember.entity_key.in_(wanted[start:start + CHUNK]))).all())
    facts: dict[str, dict[str, set[str]]] = {e: {kind: set() for kind in IDENTITY_KINDS} for e in entities}
    members = sorted(names)
    for start in range(0, len(members), CHUNK):
        for entity, kind, value in session.execute(select(ObservationRow.entity, ObservationRow.kind,
                                                          ObservationRow.value).distinct().where(
                ObservationRow.capture_id == capture_id, ObservationRow.entity.in_(members[start:start + CHUNK]),
                ObservationRow.kind.in_(IDENTITY_KINDS))):
            facts[names[entity]][kind].add(value)
    return {e: {kind: sorted(values) for kind, values in by_kind.items()} for e, by_kind in facts.items()}


def mark_stale(session: Session, capture_id: str) -> int:
    """After re-analysis: flag human answers whose identity facts moved, once each, with an
    audit event by "system" saying what moved. Returns how many went stale."""
    count = 0
    for o in session.scalars(select(HumanOverride).where(HumanOverride.capture_id == capture_id,
                                                         HumanOverride.stale_since.is_(None))):
        if o.facts_snapshot is None:
            continue
        now_facts = identity_facts(session, capture_id, o.entity_key)
        was = {(k, v) for k, values in o.facts_snapshot.items() for v in values}
        is_ = {(k, v) for k, values in now_facts.items() for v in values}
        if was == is_:
            continue
        o.stale_since = utc_now()
        o.stale_detail = {"gone": sorted(was - is_), "new": sorted(is_ - was)}
        record(session, AuditAction.OVERRIDE_STALE, SYSTEM_ACTOR,
               key=Key(o.question, capture_id, o.entity_key),
               before={"label": o.label, "facts": o.facts_snapshot},
               after={"label": o.label, "facts": now_facts, "gone": o.stale_detail["gone"],
                      "new": o.stale_detail["new"]})
        count += 1
    session.flush()
    return count
