"""Annotations in bulk: one CSV or JSON document of overrides, evidence and dismissals applied
in one transaction, all or nothing (`adjudicate.annotations.bulk`), as the token's actor."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Depends, Request

from ....adjudicate.annotations import bulk
from ....errors import UsageError
from ...deps import ActorDep, Analyst, CaptureDep, RegistryDep, SessionDep, Viewer
from ..offloop import OffLoopJsonRoute
from ..schemas import BulkOut

router = APIRouter(route_class=OffLoopJsonRoute, prefix="/captures", tags=["annotations"], dependencies=[Viewer])

BULK_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": {"type": "array", "items": {"type": "object", "properties": {
        "kind": {"enum": list(bulk.KINDS)}, "question": {"type": "string", "default": bulk.DEFAULT_QUESTION},
        "entity": {"type": "string"}, "label": {"type": "string"}, "reason": {"type": "string"},
        "weight": {"type": "integer", "minimum": 1, "maximum": 100}}}}},
    "text/csv": {"schema": {"type": "string", "description": "header kind,question,entity,label,reason,weight"}},
}}}


class DocumentTooLarge(UsageError):
    """A bulk document over bulk.MAX_BODY_BYTES."""

    http_status = 413


@dataclass(frozen=True, slots=True)
class Document:
    data: bytes
    content_type: str | None


async def _document(request: Request) -> Document:
    """The body, read whole but never past bulk.MAX_BODY_BYTES (413 as soon as it is)."""
    limit = bulk.MAX_BODY_BYTES
    declared = request.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise DocumentTooLarge(f"the document is larger than the limit of {limit} bytes (Content-Length {declared})")
    data = bytearray()
    async for piece in request.stream():
        data += piece
        if len(data) > limit:
            raise DocumentTooLarge(f"the document is larger than the limit of {limit} bytes")
    return Document(bytes(data), request.headers.get("content-type"))


@router.post("/{cid}/annotations:bulk", response_model=BulkOut, dependencies=[Analyst], openapi_extra=BULK_BODY,
             responses={415: {"description": "neither CSV nor JSON"}})
def bulk_annotations(document: Annotated[Document, Depends(_document)], capture: CaptureDep, session: SessionDep,
                     registry: RegistryDep, actor: ActorDep) -> dict:
    """Apply rows of overrides, evidence and dismissals (CSV with a header line, or JSON) in one
    transaction, each audited as you; every touched verdict is re-adjudicated once. All or
    nothing: any bad row is a 422 whose `details.problems` lists each bad row's number and
    message, and nothing is applied. The body is read before the request takes its turn at
    the database, so a slow sender holds no writer's turn."""
    rows = bulk.parse_rows(document.data, document.content_type)
    return bulk.apply_bulk(session, registry, capture.id, rows, actor=actor).to_document()
