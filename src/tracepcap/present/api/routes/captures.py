"""Captures: upload (streamed, analyzed in the background), list, read, delete."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from fastapi.concurrency import run_in_threadpool
from pydantic import AfterValidator

from ....adjudicate import annotations
from ....store.models import CaptureStatus
from ....text import SEARCH
from ...deps import (
    ActorDep,
    Admin,
    Analyst,
    CaptureDep,
    DbDep,
    PageDep,
    RegistryDep,
    SessionDep,
    SettingsDep,
    Viewer,
    WorkerDep,
)
from ...read.captures import CaptureFields, capture_fields, capture_total, findings
from ...read.captures import list_captures as captures
from ...read.manifest import manifest
from ...read.notices import notice_counts
from ..offloop import OffLoopJsonRoute
from ..schemas import CaptureCreated, CaptureDetail, CaptureOut
from ..upload import FIELD, receive_capture, upload_slot

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures", tags=["captures"])

UPLOAD_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": [FIELD],
    "properties": {FIELD: {"type": "string", "format": "binary", "description": "pcap or pcapng, gzip'd or not"}},
}}}}}


@router.post("", status_code=status.HTTP_202_ACCEPTED, response_model=CaptureCreated,
             dependencies=[Analyst], openapi_extra=UPLOAD_BODY,
             responses={200: {"model": CaptureCreated, "description": "the same bytes were uploaded before"}})
async def upload(request: Request, response: Response, actor: ActorDep, db: DbDep, settings: SettingsDep,
                 worker: WorkerDep) -> CaptureCreated:
    """Store the upload and queue its analysis; 202 at once (poll the capture for its status),
    or 200 with the existing capture when these bytes were uploaded before (queued again when
    its analysis had stalled). 408 when the client sends too slowly, 503 with Retry-After when
    every upload slot is taken."""
    async with upload_slot(request.app.state.upload_slots, settings):
        capture, created = await receive_capture(request, db, settings, actor.name)
    if created:
        worker.submit(capture.id)
    elif capture.status == CaptureStatus.ANALYZING and await run_in_threadpool(worker.requeue_stalled, capture.id):
        capture.status = CaptureStatus.QUEUED
    response.status_code = status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK
    response.headers["Location"] = f"{request.url.path.rstrip('/')}/{capture.id}"
    return CaptureCreated(id=capture.id, name=capture.name, sha256=capture.sha256, size=capture.size,
                          status=capture.status)


@router.get("", response_model=list[CaptureOut], dependencies=[Viewer])
def list_captures(session: SessionDep, page: PageDep,
                  q: Annotated[str | None, Query(description="part of the name, or the start of the id or sha256 "
                                                 f"(at most {SEARCH.max_chars} characters)"),
                               AfterValidator(SEARCH.validator)] = None) -> list[CaptureFields]:
    """Captures, newest first, with their analysis status and progress, a page at a time;
    `X-Total-Count` holds the number of matching captures."""
    page.total(capture_total(session, q or ""))
    return [capture_fields(c) for c in captures(session, q or "", offset=page.offset, limit=page.limit)]


@router.get("/{cid}", response_model=CaptureDetail, dependencies=[Viewer])
def read_capture(capture: CaptureDep, session: SessionDep) -> CaptureDetail:
    """One capture (by id, unique id prefix or sha256) with its manifest and findings."""
    return CaptureDetail.model_validate({**asdict(capture_fields(capture)), "manifest": manifest(session, capture.id),
                                         "findings": findings(session, capture.id),
                                         "notice_counts": notice_counts(session, capture.id)})


@router.delete("/{cid}", status_code=status.HTTP_204_NO_CONTENT, dependencies=[Admin])
def delete_capture(capture: CaptureDep, session: SessionDep, settings: SettingsDep, actor: ActorDep,
                   worker: WorkerDep, registry: RegistryDep) -> Response:
    """Delete the capture, everything derived from it and its stored file; the audit log keeps
    the deletion and every earlier human action. A capture waiting for analysis leaves the
    queue; one being analyzed has its analysis stopped (this is how a runaway one is ended)."""
    worker.cancel(capture.id)
    annotations.delete_capture(session, settings.capture_dir, capture.id, actor=actor, registry=registry)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
