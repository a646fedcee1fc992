"""After each analysis the inventory's entities may regroup (issue 11: an address becomes one
of a device's; an old store's annotations are keyed by address). `carry_to_entities` moves
every annotation whose entity_key names an entity under another key (one of its addresses or
MACs) to that key, each move recorded as an `annotation.moved` audit event by "system". The
audit log itself is never rewritten: `audit.trail` reads an entity's events under all its names."""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from ...store.models import Dismissal, Entity, EntityMember, HumanOverride, ManualEvidence
from ..actor import SYSTEM_ACTOR
from ..contract import Key
from ..ledger.audit import AuditAction, record


def carry_to_entities(session: Session, capture_id: str) -> int:
    """Move annotations keyed by a member name to the entity's key; return how many moved."""
    keys = set(session.scalars(select(Entity.key).where(Entity.capture_id == capture_id)))
    moved = 0
    for model, what in ((HumanOverride, "override"), (ManualEvidence, "evidence"), (Dismissal, "dismissal")):
        stray = session.execute(
            select(model, EntityMember.entity_key)
            .join(EntityMember, (EntityMember.capture_id == model.capture_id)
                  & (EntityMember.member == model.entity_key))
            .where(model.capture_id == capture_id, EntityMember.entity_key != model.entity_key)).all()
        for row, target in stray:
            if row.entity_key in keys or target not in keys:
                continue  # still an entity of its own
            old = row.entity_key
            before = {"kind": what, "entity_key": old, "label": row.label}
            clash = _clash(session, model, row, target)
            if clash is not None:
                # the device already holds the same kind of answer: the newer one stands
                keep_moved = model is HumanOverride and row.updated_at > clash.updated_at
                loser = clash if keep_moved else row
                record(session, AuditAction.ANNOTATION_MOVED, SYSTEM_ACTOR, key=Key(row.question, capture_id, target),
                       before=before | {"dropped": {"entity_key": loser.entity_key, "label": loser.label}},
                       after={"kind": what, "entity_key": target,
                              "label": (row if keep_moved else clash).label,
                              "why": f"{old} is an address or MAC of {target}, which already had this "
                                     f"{what}; the {'moved' if keep_moved else 'existing'} one stands"})
                session.execute(delete(model).where(model.id == loser.id))
                if keep_moved:
                    row.entity_key = target
            else:
                row.entity_key = target
                record(session, AuditAction.ANNOTATION_MOVED, SYSTEM_ACTOR, key=Key(row.question, capture_id, target),
                       before=before, after={"kind": what, "entity_key": target, "label": row.label,
                                             "why": f"{old} is an address or MAC of the device {target}"})
            session.flush()
            moved += 1
    return moved


def _clash(session: Session, model, row, target: str):
    if model is HumanOverride:
        where = (HumanOverride.question == row.question,)
    elif model is Dismissal:
        where = (Dismissal.question == row.question, Dismissal.label_key == row.label_key)
    else:
        return None  # evidence rows are many per key
    return session.scalar(select(model).where(model.capture_id == row.capture_id, model.entity_key == target,
                                              *where))
