"""Stored verdicts, read back as typed `Verdict`s (the runner wrote them with
`Verdict.to_document`). The one reader of the verdict table's documents in Present."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from sqlalchemy import Select, Text, cast, select
from sqlalchemy.orm import Session

from ...adjudicate.contract import Verdict
from ...adjudicate.registry import Registry
from ...adjudicate.runner import Key, stored_verdict
from ...errors import NotFound
from ...store.models import Capture, Entity, VerdictRow
from .paging import page
from .shapes import Page


def require_verdict(session: Session, key: Key) -> Verdict:
    """The stored verdict of `key`; NotFound (saying the capture's status) when there is none,
    e.g. while the capture is analyzed or when its question failed."""
    verdict = stored_verdict(session, key)
    if verdict is None:
        status = session.scalar(select(Capture.status).where(Capture.id == key.capture_id))
        raise NotFound(f"no {key.question} verdict for {key.entity_key} in capture {key.capture_id} "
                       f"yet (capture status: {status})")
    return verdict


def verdict_page(session: Session, capture_id: str, question: str, *, offset: int,
                 limit: int | None) -> Page[Verdict]:
    """One question's verdicts, in host order."""
    stmt = (select(VerdictRow.document).join(Entity, (Entity.capture_id == VerdictRow.capture_id)
                                             & (Entity.key == VerdictRow.entity_key))
            .where(VerdictRow.capture_id == capture_id, VerdictRow.question == question))
    total, rows = page(session, stmt, (Entity.position,), offset, limit)
    return Page.of((Verdict.from_document(r.document) for r in rows), total, offset, limit)


def host_verdicts(session: Session, registry: Registry, capture_id: str,
                  entities: list[str]) -> Mapping[str, Mapping[str, Verdict]]:
    """entity -> question -> verdict for the given entities, questions in registry order
    (verdicts of questions no longer registered are left out)."""
    order = [a.question for a in registry]
    # the questions named, so each verdict is one primary-key lookup (capture, question, key)
    # instead of a walk over all the capture's verdicts
    stmt = select(VerdictRow.entity_key, VerdictRow.question, VerdictRow.document).where(
        VerdictRow.capture_id == capture_id, VerdictRow.question.in_(order), VerdictRow.entity_key.in_(entities))
    found: dict[str, dict[str, dict]] = defaultdict(dict)
    for entity, question, document in session.execute(stmt):
        found[entity][question] = document
    return {entity: {q: Verdict.from_document(docs[q]) for q in order if q in docs}
            for entity, docs in found.items()}


def documents_by_host_position(capture_id: str) -> Select:
    """(host position, question, stored document as its JSON text) of every verdict, by host
    position: what the capture document streams (the stored document is
    `Verdict.to_document()`'s output, written by `json.dumps`)."""
    return (select(Entity.position, VerdictRow.question, cast(VerdictRow.document, Text))
            .join(Entity, (Entity.capture_id == VerdictRow.capture_id) & (Entity.key == VerdictRow.entity_key))
            .where(Entity.capture_id == capture_id).order_by(Entity.position))
