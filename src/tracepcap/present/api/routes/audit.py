"""A capture's audit log: every human action on it, newest first, filtered and paged."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Query

from ....adjudicate.annotations import AuditAction
from ...deps import CaptureDep, PageDep, RegistryDep, SessionDep, Viewer
from ...read.audit import AuditFilter, audit_page
from ...read.trail import TrailEvent
from ..offloop import OffLoopJsonRoute
from ..schemas import CaptureAuditEventOut

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures/{cid}", tags=["audit"], dependencies=[Viewer])


@router.get("/audit", response_model=list[CaptureAuditEventOut])
def capture_audit(capture: CaptureDep, session: SessionDep, registry: RegistryDep, page: PageDep,
                  actor: Annotated[str | None, Query(min_length=1, max_length=255,
                                                     description="the actor's name as shown")] = None,
                  action: Annotated[AuditAction | None, Query(description="e.g. override.set")] = None,
                  question: Annotated[str | None, Query(min_length=1, max_length=64,
                                                        description="a question key, e.g. os-family")] = None,
                  ) -> tuple[TrailEvent, ...]:
    """The capture's audit events newest first, each with the sentence saying what it changed;
    `X-Total-Count` holds the number matching. An unknown question is a 422 naming the known
    ones (events of a question no longer installed stay in the unfiltered log)."""
    if question is not None and question not in {a.question for a in registry}:
        raise HTTPException(422, f"question must be one of {', '.join(a.question for a in registry)} "
                                f"(got {question!r})")
    events = audit_page(session, capture.id, AuditFilter(actor or "", str(action or ""), question or ""),
                        offset=page.offset, limit=page.limit)
    page.total(events.total)
    return events.items
