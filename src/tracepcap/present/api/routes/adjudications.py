"""Verdicts and the human actions on them, for any registered question.

Every write calls one function of `adjudicate.annotations` (the CLI calls the same ones) as
the current actor and returns the verdict as re-adjudicated at once.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response, status

from ....adjudicate import annotations
from ....store.models import MAX_BIGINT, MAX_INTEGER
from ...deps import ActorDep, Analyst, CaptureDep, KeyDep, QuestionDep, RegistryDep, SessionDep, Viewer
from ...read.trail import TrailEvent
from ...read.trail import trail as read_trail
from ...read.verdicts import require_verdict, verdict_page
from ..offloop import OffLoopJsonRoute
from ..schemas import (
    AuditEventOut,
    DismissalIn,
    EvidenceEditIn,
    EvidenceIn,
    EvidenceOut,
    EvidenceWithVerdict,
    OverrideIn,
    Verdict,
)

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}/adjudications/{question}", tags=["adjudications"],
                   dependencies=[Viewer])
ENTITY = "/{entity}"
EvidenceId = Annotated[int, Path(ge=1, le=MAX_INTEGER, description="the evidence's id")]


@router.get("", response_model=list[Verdict])
def list_verdicts(capture: CaptureDep, question: QuestionDep, session: SessionDep, response: Response,
                  offset: Annotated[int, Query(ge=0, le=MAX_BIGINT)] = 0,
                  limit: Annotated[int | None, Query(ge=1, le=MAX_BIGINT, description="all when absent")] = None,
                  ) -> list[dict]:
    """The question's verdict for every host, in address order; `X-Total-Count` holds how many."""
    verdicts = verdict_page(session, capture.id, question.question, offset=offset, limit=limit)
    response.headers["X-Total-Count"] = str(verdicts.total)
    return [v.to_document() for v in verdicts]


@router.get(ENTITY, response_model=Verdict)
def read_verdict(key: KeyDep, session: SessionDep, registry: RegistryDep) -> dict:
    """The verdict: answer, basis, confidence, candidates with reasons, override, dismissals."""
    annotations.check_key(session, registry, key)
    return require_verdict(session, key).to_document()


@router.put(ENTITY + "/override", response_model=Verdict, dependencies=[Analyst])
def set_override(key: KeyDep, body: OverrideIn, session: SessionDep, registry: RegistryDep,
                 actor: ActorDep) -> dict:
    """Set (or replace) the human answer: it outranks the machine until cleared."""
    return annotations.set_override(session, registry, key, body.label, body.rationale, actor=actor).to_document()


@router.delete(ENTITY + "/override", response_model=Verdict, dependencies=[Analyst])
def clear_override(key: KeyDep, session: SessionDep, registry: RegistryDep, actor: ActorDep) -> dict:
    """Clear the human answer; the machine's answer returns."""
    return annotations.clear_override(session, registry, key, actor=actor).to_document()


@router.post(ENTITY + "/accept", response_model=Verdict, dependencies=[Analyst])
def accept(key: KeyDep, session: SessionDep, registry: RegistryDep, actor: ActorDep) -> dict:
    """Accept the machine's current answer as the human answer (node-role's "confirm")."""
    return annotations.accept(session, registry, key, actor=actor).to_document()


@router.get(ENTITY + "/evidence", response_model=list[EvidenceOut])
def list_evidence(key: KeyDep, session: SessionDep, registry: RegistryDep) -> list:
    """Analyst evidence on this verdict, oldest first."""
    return annotations.list_evidence(session, registry, key)


@router.post(ENTITY + "/evidence", response_model=EvidenceWithVerdict, status_code=status.HTTP_201_CREATED,
             dependencies=[Analyst])
def add_evidence(key: KeyDep, body: EvidenceIn, session: SessionDep, registry: RegistryDep,
                 actor: ActorDep) -> dict:
    """Add a weighted vote for a label; it enters the machine's race tagged with its author."""
    evidence, verdict = annotations.add_evidence(session, registry, key, body.label, body.weight, body.reason,
                                                 actor=actor)
    return {"evidence": EvidenceOut.model_validate(evidence), "verdict": verdict.to_document()}


@router.put(ENTITY + "/evidence/{evidence_id}", response_model=EvidenceWithVerdict, dependencies=[Analyst],
            responses={403: {"description": "the evidence is someone else's"}})
def edit_evidence(key: KeyDep, evidence_id: EvidenceId, body: EvidenceEditIn, session: SessionDep,
                  registry: RegistryDep, actor: ActorDep) -> dict:
    """Change your own evidence (label, weight, reason)."""
    evidence, verdict = annotations.edit_evidence(session, registry, key, evidence_id, actor=actor,
                                                  label=body.label, weight=body.weight, reason=body.reason)
    return {"evidence": EvidenceOut.model_validate(evidence), "verdict": verdict.to_document()}


@router.delete(ENTITY + "/evidence/{evidence_id}", response_model=Verdict, dependencies=[Analyst],
               responses={403: {"description": "the evidence is someone else's"}})
def delete_evidence(key: KeyDep, evidence_id: EvidenceId, session: SessionDep, registry: RegistryDep,
                    actor: ActorDep) -> dict:
    """Delete your own evidence."""
    return annotations.delete_evidence(session, registry, key, evidence_id, actor=actor).to_document()


@router.post(ENTITY + "/dismissals", response_model=Verdict, dependencies=[Analyst])
def dismiss(key: KeyDep, body: DismissalIn, session: SessionDep, registry: RegistryDep, actor: ActorDep) -> dict:
    """Say "it is NOT this label": the label leaves this entity's race."""
    return annotations.dismiss(session, registry, key, body.label, body.reason, actor=actor).to_document()


@router.delete(ENTITY + "/dismissals/{label:path}", response_model=Verdict, dependencies=[Analyst])
def undismiss(key: KeyDep, label: str, session: SessionDep, registry: RegistryDep, actor: ActorDep) -> dict:
    """Take a dismissal back."""
    return annotations.undismiss(session, registry, key, label, actor=actor).to_document()


@router.get(ENTITY + "/trail", response_model=list[AuditEventOut])
def trail(key: KeyDep, session: SessionDep, registry: RegistryDep) -> list[TrailEvent]:
    """Every human action on this verdict, oldest first, each with the sentence saying what it
    changed; cleared overrides and deleted evidence stay in it. For a question that follows
    another's human answer (Device type follows Node role), the events that set or cleared
    that answer are in it too, with `via` naming the question they were taken on."""
    annotations.check_key(session, registry, key)
    return read_trail(session, registry, key)
