"""A capture's listings beside its inventory: the credentials page (logins, secrets masked:
they are never stored; an analyst's Reveal re-reads one from the stored capture, audited), the
software page (every device's, or one
device's with `?device=`) and the applications panel the capture page loads. Reads through
`present.read`; nothing here computes an answer."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from ...adjudicate.actor import Actor
from ...adjudicate.annotations import record_reveal
from ...errors import TracePcapError
from ...ingest import find_capture
from ...store.models import Capture
from ..deps import Analyst, CaptureDep, DbDep, SessionDep, SettingsDep, Viewer
from ..read.applications import applications
from ..read.captures import capture_fields
from ..read.credentials import credentials, reveal
from ..read.hosts import require_host
from ..read.software import software
from . import views
from .routes import _page, render

router = APIRouter(include_in_schema=False)
ViewerActor = Annotated[Actor, Viewer]
AnalystActor = Annotated[Actor, Analyst]
Device = Annotated[str | None, Query(max_length=64)]
PER_PAGE = 200
DEVICES_SHOWN = 8  # per application in the panel; the API lists up to 100


def _paged(items: list, page: int) -> dict:
    pages = max(1, -(-len(items) // PER_PAGE))
    page = min(max(1, page), pages)
    return {"rows": items[(page - 1) * PER_PAGE:page * PER_PAGE], "total": len(items), "page": page, "pages": pages,
            "first": (page - 1) * PER_PAGE + 1}


def _page_number(request: Request) -> int:
    try:
        return int(request.query_params.get("page", 1))
    except ValueError:
        return 1


def credentials_context(session: Session, capture: Capture, device: str | None, page: int, actor: Actor) -> dict:
    key = require_host(session, capture.id, device) if device else None
    return {"capture": capture_fields(capture), "device": key, "viewer": views.Viewer.of(actor),
            "listing": _paged(credentials(session, capture.id, device=key), page)}


def software_context(session: Session, capture: Capture, device: str | None, page: int) -> dict:
    key = require_host(session, capture.id, device) if device else None
    return {"capture": capture_fields(capture), "device": key,
            "listing": _paged(software(session, capture.id, key), page)}


def _query(request: Request) -> str:
    return f"?{request.url.query}" if request.url.query else ""


@router.get("/captures/{cid}/credentials", response_class=HTMLResponse)
def credentials_page(request: Request, cid: str, settings: SettingsDep, db: DbDep, device: Device = None) -> HTMLResponse:
    page = _page_number(request)

    def content(actor: Actor):
        with db.session() as s:
            return "_credentials.html", credentials_context(s, find_capture(s, cid), device, page, actor)
    return _page(request, settings, "Credentials", f"/ui/captures/{cid}/credentials{_query(request)}", content)


@router.get("/ui/captures/{cid}/credentials", response_class=HTMLResponse)
def credentials_partial(request: Request, capture: CaptureDep, session: SessionDep, actor: ViewerActor,
                        device: Device = None) -> HTMLResponse:
    return render(request, "_credentials.html", credentials_context(session, capture, device, _page_number(request),
                                                                    actor))


@router.post("/ui/captures/{cid}/credentials/{credential_id}/reveal", response_class=HTMLResponse)
def reveal_secret(request: Request, cid: str, credential_id: int, settings: SettingsDep, db: DbDep,
                  actor: AnalystActor) -> HTMLResponse:
    """An analyst's Reveal: the secret read again from the stored capture, shown in its cell,
    the reveal audited (`credential.revealed`) in the same unit of work."""
    try:
        with db.session(write=True) as s:
            capture = find_capture(s, cid)
            found = reveal(s, settings.capture_dir, capture, credential_id, settings.extract_limits)
            record_reveal(s, actor, capture.id, credential=found.id, protocol=found.protocol, user=found.user,
                          server=found.server, port=found.port, frame=found.frame, shown=found.secret is not None)
    except TracePcapError as err:
        return render(request, "_credential_secret.html", {"error": str(err)}, status=err.http_status)
    return render(request, "_credential_secret.html", {"revealed": found})


@router.get("/captures/{cid}/software", response_class=HTMLResponse)
def software_page(request: Request, cid: str, settings: SettingsDep, db: DbDep, device: Device = None) -> HTMLResponse:
    page = _page_number(request)

    def content(actor: Actor):
        with db.session() as s:
            return "_software.html", software_context(s, find_capture(s, cid), device, page)
    return _page(request, settings, "Software", f"/ui/captures/{cid}/software{_query(request)}", content)


@router.get("/ui/captures/{cid}/software", response_class=HTMLResponse)
def software_partial(request: Request, capture: CaptureDep, session: SessionDep, actor: ViewerActor,
                     device: Device = None) -> HTMLResponse:
    return render(request, "_software.html", software_context(session, capture, device, _page_number(request)))


@router.get("/ui/captures/{cid}/applications", response_class=HTMLResponse)
def applications_partial(request: Request, capture: CaptureDep, session: SessionDep,
                         actor: ViewerActor) -> HTMLResponse:
    """The capture page's applications panel (loaded once the page is shown)."""
    found = applications(session, capture.id)
    total = sum(a.bytes for a in found)
    return render(request, "_applications.html", {"capture": capture_fields(capture), "applications": found,
                                                  "total_bytes": total, "shown": DEVICES_SHOWN})
