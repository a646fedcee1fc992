"""Networks over time: a named, ordered series of captures of one site; human answers carried
forward through it (`carry`), going stale where the evidence under them moves, re-affirmed or
cleared by a human; and typed changes between consecutive captures (`changes`).

Every write here takes the actor resolved by CurrentActor and is audited. `refresh` is the one
recomputation: called after a capture joins, leaves, is re-analysed or deleted, and after any
human action on a capture of a network (the annotation functions call `after_human_action`)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound
from ...store.models import CarryMark, Dismissal, HumanOverride, ManualEvidence, Network, NetworkCapture
from ..actor import Actor
from ..contract import Key, Verdict
from ..ledger.audit import AuditAction, record, utc_now
from ..ledger.keyed import of_key
from ..ledger.locking import take_turn
from ..ledger.naming import canonical
from ..ledger.staleness import identity_facts
from ..registry import Registry
from ..runner import rerun, rerun_many, stored_verdict
from . import baseline, carry, changes
from .membership import attach, create_network, detach, find_network, list_networks, network_of, ordered_captures


def refresh(session: Session, registry: Registry, network_id: str, *, reanalysed: set[str] = frozenset(),
            left: list[str] = (), answered: Key | set[Key] | None = None,
            evidence_of: int | None = None) -> set[Key]:
    """Recompute what is carried (writing only the difference) and the changes of pairs that
    are new or involve a re-analysed capture; re-adjudicate the keys whose carried answers
    changed, and recompute the answer-changed events of those keys and of `answered` (the key a
    human just answered, or the keys a bulk import answered). `left`: captures that just left the
    network (their copies go). `evidence_of`: the human acted on that one piece of analyst
    evidence (or a copy of it): only its copies are recomputed (`carry.apply`)."""
    captures = ordered_captures(session, network_id)
    touched = carry.apply(session, captures, list(left), evidence_of=evidence_of)
    rerun_many(session, registry, touched)
    answers_of: dict[str, set[str] | None] = {}
    for key in touched | ({answered} if isinstance(answered, Key) else set(answered or ())):
        answers_of.setdefault(key.capture_id, set()).add(key.entity_key)
    baseline.recompute(session, network_id, captures, set(reanalysed), answers_of)
    return touched


def after_human_action(session: Session, registry: Registry, capture_id: str,
                       key: Key | set[Key] | None = None, *, evidence_of: int | None = None) -> None:
    """A human changed an answer on `capture_id` (of `key`; `evidence_of`: by acting on that
    piece of evidence only): carry it on through its network, if any."""
    if (network_id := network_of(session, capture_id)) is not None:
        refresh(session, registry, network_id, answered=key, evidence_of=evidence_of)


def add_capture(session: Session, registry: Registry, network: Network, capture_id: str, *, actor: Actor) -> None:
    attach(session, network, capture_id, actor=actor)
    refresh(session, registry, network.id)


def remove_capture(session: Session, registry: Registry, network: Network, capture_id: str, *, actor: Actor) -> None:
    """The capture leaves the network; the answers carried into it go, its own stay."""
    detach(session, network, capture_id, actor=actor)
    refresh(session, registry, network.id, left=[capture_id])


def rehome_before_delete(session: Session, registry: Registry, capture_id: str) -> str | None:
    """Before a capture of a network is deleted: each human answer given on it that is carried
    into a later capture becomes that capture's own (author, time and text kept, the note saying
    where it came from), so deleting a capture loses nothing a human wrote. Returns the network."""
    network_id = network_of(session, capture_id)
    if network_id is None:
        return None
    order = [c.id for c in ordered_captures(session, network_id)]
    later = order[order.index(capture_id) + 1:]
    rehomed: list[Key] = []
    for model in carry.MODELS.values():
        for native in session.scalars(select(model).where(model.capture_id == capture_id, model.carried_from.is_(None))):
            copies = {row.capture_id: row for row in session.scalars(select(model).where(
                model.carried_id == native.id, model.carried_from == capture_id, model.capture_id.in_(later)))}
            first = next((copies[c] for c in later if c in copies), None)
            if first is None:
                continue
            first.carry_note = f"given on capture {capture_id}, since deleted; now this capture's own. {first.carry_note}"
            first.carried_from = first.carried_id = None
            rehomed.append(Key(first.question, first.capture_id, first.entity_key))
            if model is HumanOverride:
                first.facts_snapshot = identity_facts(session, first.capture_id, first.entity_key)
                first.stale_since = first.stale_detail = first.stale_capture = None
                first.carry_note = None
    session.flush()
    for key in rehomed:
        if key.question in registry:
            rerun(session, registry, key)
    return network_id


@canonical(True)
def reaffirm(session: Session, registry: Registry, key: Key, *, actor: Actor) -> Verdict:
    """A human says the answer still holds here: the stale mark goes and the evidence here
    becomes the baseline (later captures are checked against it)."""
    take_turn(session, registry, key)
    row = session.scalar(of_key(HumanOverride, key))
    if row is None:
        raise NotFound(f"no human answer on {key.question} for {key.entity_key} in capture {key.capture_id}")
    before = {"label": row.label, "stale_since": row.stale_since.isoformat() if row.stale_since else None,
              "stale_detail": row.stale_detail, "carried_from": row.carried_from}
    if row.carried_from:
        mark = session.scalar(select(CarryMark).where(CarryMark.capture_id == key.capture_id,
                                                      CarryMark.kind == "override", CarryMark.origin_id == row.carried_id))
        if mark is None:
            session.add(CarryMark(capture_id=key.capture_id, kind="override", origin_id=row.carried_id,
                                  action=carry.MarkAction.REAFFIRMED, actor=actor.name, at=utc_now()))
        else:
            mark.action, mark.actor, mark.at = carry.MarkAction.REAFFIRMED, actor.name, utc_now()
        session.flush()
    else:
        row.facts_snapshot = identity_facts(session, key.capture_id, key.entity_key)
        row.stale_since = row.stale_detail = None
    record(session, AuditAction.OVERRIDE_REAFFIRMED, actor, key=key, before=before,
           after={"label": row.label, "author": row.actor})
    network_id = network_of(session, key.capture_id)
    if network_id is not None:
        refresh(session, registry, network_id)
    rerun(session, registry, key)
    return stored_verdict(session, key)


def stop_carrying(session: Session, row: HumanOverride | ManualEvidence | Dismissal, *, actor: Actor) -> None:
    """A human removed a carried answer in its capture: it is no longer carried here or later."""
    kind = next(k for k, m in carry.MODELS.items() if isinstance(row, m))
    mark = session.scalar(select(CarryMark).where(CarryMark.capture_id == row.capture_id, CarryMark.kind == kind,
                                                  CarryMark.origin_id == row.carried_id))
    if mark is None:
        session.add(CarryMark(capture_id=row.capture_id, kind=kind, origin_id=row.carried_id,
                              action=carry.MarkAction.CLEARED, actor=actor.name, at=utc_now()))
    else:
        mark.action, mark.actor, mark.at = carry.MarkAction.CLEARED, actor.name, utc_now()
    session.flush()


def require_member(session: Session, network: Network, capture_id: str) -> None:
    nc = session.get(NetworkCapture, capture_id)
    if nc is None or nc.network_id != network.id:
        raise InvalidAnnotation(f"capture {capture_id} is not in network {network.name!r}")


__all__ = ["add_capture", "after_human_action", "attach", "changes", "create_network", "detach", "find_network",
           "list_networks", "network_of", "ordered_captures", "reaffirm", "refresh", "rehome_before_delete",
           "remove_capture", "require_member", "stop_carrying"]
