"""The web UI: HTML pages and the htmx partials they load and post to.

Handlers resolve the same dependencies as the API (session, registry, capture, question, key,
and the actor from `ActorDep`, never from a form) and call the same services: reads from
`present.read` (stored verdicts among them), writes through `adjudicate.annotations`. Uploads go
from the browser to the API's `POST /api/captures`. Nothing here computes an answer.

Pages (`/`, `/captures/{cid}`, `/captures/{cid}/hosts/{entity}`, `/captures/{cid}/frames/{n}`) render their content in place
when auth is off. With OIDC a page navigation carries no token, so the page is a shell whose
content the browser loads from the matching `/ui/...` partial with its bearer token.

A write action answers with the re-rendered panel: on success the new verdict (and an
`HX-Trigger` so the host's other panels refresh), on a refused action the panel with the
service's message and the status the error carries.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

import jinja2
from fastapi import APIRouter, FastAPI, Form, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.orm import Session

from ...adjudicate import annotations
from ...adjudicate.actor import Actor
from ...adjudicate.contract import Basis, Key
from ...errors import InvalidAnnotation, TracePcapError
from ...ingest import find_capture
from ...settings import Settings
from ..deps import Analyst, CaptureDep, DbDep, KeyDep, RegistryDep, SessionDep, SettingsDep, Viewer, current_actor
from ..read.audit import AuditFilter
from ..read.captures import UNFINISHED
from ..read.frames import frame_spec, wireshark_filter
from ..read.hosts import MARKS
from ..read.topology import topology as topology_of
from . import views
from .graph import topology_json

HERE = Path(__file__).parent
STATIC = HERE / "static"
PANEL = "/ui/captures/{cid}/hosts/{entity}/panels/{question}"
PANEL_HEADER = "X-TracePcap-Panel"  # marks a panel answer the page may swap in even on 4xx
VERDICTS_CHANGED = "tp-verdicts-changed"

ViewerActor = Annotated[Actor, Viewer]
AnalystActor = Annotated[Actor, Analyst]
FormText = Annotated[str, Form()]

router = APIRouter(include_in_schema=False)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "templates"),
                             autoescape=jinja2.select_autoescape(("html",)),
                             trim_blocks=True, lstrip_blocks=True)
    version = str(int(max(p.stat().st_mtime for p in STATIC.rglob("*") if p.is_file())))
    env.globals.update(who=views.who, answer_state=views.answer_state, static=lambda path: f"/static/{path}?v={version}",
                       Basis=Basis, UNFINISHED=UNFINISHED)
    env.globals.update(frame_spec=frame_spec, wireshark_filter=wireshark_filter)
    env.filters["analyst_text"] = _analyst_text
    return env


def _analyst_text(reason: str) -> str:
    """An analyst vote's reason without the runner's "[analyst-provided by X] " prefix (the
    panel shows the author as a tag)."""
    if reason.startswith("[analyst-provided by ") and "] " in reason:
        return reason.split("] ", 1)[1]
    return reason


ENV = _environment()


def render(request: Request, template: str, context: dict, *, status: int = 200,
           headers: dict[str, str] | None = None) -> HTMLResponse:
    html = ENV.get_template(template).render(request=request, **context)
    return HTMLResponse(html, status_code=status, headers=headers)


def _auth(settings: Settings) -> dict:
    """What the browser needs to log in: the issuer and the public client it logs in as."""
    return {"mode": settings.auth, "issuer": (settings.oidc_issuer or "").rstrip("/"),
            "client_id": settings.oidc_client_id}


def _page(request: Request, settings: Settings, title: str, content_url: str,
          content: Callable[[Actor], tuple[str, dict]] | None, *, scripts: tuple[str, ...] = ()) -> HTMLResponse:
    """A whole page. Auth off: `content(actor)` gives the template and context rendered in
    place. OIDC: a shell that loads `content_url` once the browser holds a token."""
    context: dict[str, Any] = {"title": title, "auth": _auth(settings), "scripts": scripts,
                               "content_template": None, "content_url": content_url, "message": None}
    if settings.auth == "off" and content is not None:
        actor = current_actor(request, settings, None)
        try:
            template, extra = content(actor)
        except TracePcapError as err:
            context.update(message=str(err))
            return render(request, "page.html", context | {"content_url": None}, status=err.http_status)
        context.update(extra, content_template=template, viewer=views.Viewer.of(actor))
    return render(request, "page.html", context)


def _query_string(request: Request) -> str:
    return f"?{request.url.query}" if request.url.query else ""


# --- pages ----------------------------------------------------------------------------------

def _capture_list_query(request: Request) -> tuple[str, int]:
    """The captures list's search text and page from the query string."""
    try:
        page = int(request.query_params.get("page", 1))
    except ValueError:
        page = 1
    return request.query_params.get("q", "")[:200], page


@router.get("/", response_class=HTMLResponse)
def captures_page(request: Request, settings: SettingsDep, db: DbDep) -> HTMLResponse:
    def content(actor: Actor):
        with db.session() as s:
            return "_captures.html", views.captures_context(s, *_capture_list_query(request))
    return _page(request, settings, "Captures", f"/ui/captures{_query_string(request)}", content)


@router.get("/captures/{cid}", response_class=HTMLResponse)
def capture_page(request: Request, cid: str, settings: SettingsDep, db: DbDep,
                 registry: RegistryDep) -> HTMLResponse:
    query = _host_query(request)

    def content(actor: Actor):
        with db.session() as s:
            capture = find_capture(s, cid)
            return "_capture.html", views.capture_context(s, registry, capture, query)
    return _page(request, settings, "Capture", f"/ui/captures/{cid}{_query_string(request)}", content,
                 scripts=("vendor/cytoscape-3.35.0.min.js",))


def _audit_query(request: Request) -> tuple[AuditFilter, int]:
    """The audit page's filter and page from the query string; unusable values are ignored."""
    p = request.query_params
    try:
        page = max(1, int(p.get("page", 1)))
    except ValueError:
        page = 1
    return AuditFilter(p.get("actor", "")[:255], p.get("action", "")[:64], p.get("question", "")[:64]), page


@router.get("/captures/{cid}/audit", response_class=HTMLResponse)
def audit_page(request: Request, cid: str, settings: SettingsDep, db: DbDep,
               registry: RegistryDep) -> HTMLResponse:
    f, page = _audit_query(request)

    def content(actor: Actor):
        with db.session() as s:
            return "_audit.html", views.audit_context(s, registry, find_capture(s, cid), f, page)
    return _page(request, settings, "Audit log", f"/ui/captures/{cid}/audit{_query_string(request)}", content)


@router.get("/captures/{cid}/hosts/{entity}", response_class=HTMLResponse)
def host_page(request: Request, cid: str, entity: str, settings: SettingsDep, db: DbDep,
              registry: RegistryDep) -> HTMLResponse:
    def content(actor: Actor):
        with db.session() as s:
            capture = find_capture(s, cid)
            return "_host.html", views.host_context(s, registry, capture, entity, views.Viewer.of(actor))
    return _page(request, settings, entity, f"/ui/captures/{cid}/hosts/{entity}", content)


@router.get("/captures/{cid}/frames/{n}", response_class=HTMLResponse)
def frame_page(request: Request, cid: str, n: int, settings: SettingsDep, db: DbDep) -> HTMLResponse:
    def content(actor: Actor):
        with db.session() as s:
            return "_frame.html", views.frame_context(s, settings, find_capture(s, cid), n)
    return _page(request, settings, f"Frame {n}", f"/ui/captures/{cid}/frames/{n}", content)


@router.get("/auth/callback", response_class=HTMLResponse)
def auth_callback(request: Request, settings: SettingsDep) -> HTMLResponse:
    """Where the issuer sends the browser back with a code; auth.js finishes the login."""
    return _page(request, settings, "Signing in", "", None)


# --- partials -------------------------------------------------------------------------------

@router.get("/ui/captures", response_class=HTMLResponse)
def captures_partial(request: Request, session: SessionDep, actor: ViewerActor) -> HTMLResponse:
    return render(request, "_captures.html", views.captures_context(session, *_capture_list_query(request))
                  | {"viewer": views.Viewer.of(actor)})


@router.get("/ui/captures/list", response_class=HTMLResponse)
def capture_list_partial(request: Request, session: SessionDep, actor: ViewerActor) -> HTMLResponse:
    context = views.captures_context(session, *_capture_list_query(request))
    listed = context["capture_list"]
    push = "/" + (f"?{urlencode(p)}" if (p := {k: v for k, v in (("q", listed["q"]), ("page", listed["page"]))
                                                if v and v != 1}) else "")
    return render(request, "_capture_list.html", context | {"viewer": views.Viewer.of(actor)},
                  # a search or a page link moves the address; the list's own refresh does not
                  headers={"HX-Push-Url": push} if request.headers.get("HX-Request") and
                  request.headers.get("HX-Trigger") != "capture-list" else None)


def _host_query(request: Request) -> views.HostQuery:
    """The inventory view from the query string; anything unusable falls back to its default."""
    p = request.query_params

    def number(name: str, default: int, allowed=None) -> int:
        try:
            value = int(p.get(name, default))
        except ValueError:
            return default
        return value if (allowed is None or value in allowed) and value >= 1 else default
    return views.HostQuery(text=p.get("q", "")[:200], question=p.get("question", ""), label=p.get("label", ""),
                             mark=p.get("mark", "") if p.get("mark", "") in MARKS else "",
                             locality=p.get("locality", "") if p.get("locality", "") in views.LOCALITIES else "",
                             sort=p.get("sort", "ip") or "ip", desc=p.get("desc", "") == "1",
                             page=number("page", 1), per_page=number("per_page", 50, views.PER_PAGE_CHOICES),
                             min_packets=number("min_packets", 0), port=p.get("port", "")[:9])


@router.get("/ui/captures/{cid}", response_class=HTMLResponse)
def capture_partial(request: Request, capture: CaptureDep, session: SessionDep, registry: RegistryDep,
                    actor: ViewerActor) -> HTMLResponse:
    context = views.capture_context(session, registry, capture, _host_query(request))
    return render(request, "_capture.html", context | {"viewer": views.Viewer.of(actor)})


@router.get("/ui/captures/{cid}/hosts", response_class=HTMLResponse)
def hosts_partial(request: Request, capture: CaptureDep, session: SessionDep, registry: RegistryDep,
                  actor: ViewerActor) -> HTMLResponse:
    query = _host_query(request)
    context = views.hosts_context(session, registry, capture, query)
    push = f"/captures/{capture.id}"
    if params := query.params():
        push += f"?{urlencode(params)}"
    return render(request, "_hosts.html", context | {"viewer": views.Viewer.of(actor)},
                  headers={"HX-Push-Url": push})


@router.get("/ui/captures/{cid}/topology")
def topology(capture: CaptureDep, session: SessionDep, registry: RegistryDep, actor: ViewerActor,
             colour_by: Annotated[str | None, Query(max_length=64)] = None,
             label: Annotated[str, Query(max_length=200)] = "",
             open_: Annotated[list[str], Query(alias="open", max_length=200)] = [],  # noqa: B006 (FastAPI copies it)
             closed: Annotated[list[str], Query(max_length=200)] = []) -> JSONResponse:  # noqa: B006
    """The graph (read/topology.py): coloured by one question's answers, only hosts with
    `label` if given, the groups in `open` drawn host by host and those in `closed` as one node;
    the JSON of web/graph.py."""
    question = colour_by or next(iter(registry)).question
    return JSONResponse(topology_json(topology_of(session, registry, capture.id, question, opened=set(open_[:500]),
                                                  closed=set(closed[:500]), label=label)))


@router.get("/ui/captures/{cid}/frames/{n}", response_class=HTMLResponse)
def frame_partial(request: Request, capture: CaptureDep, n: int, session: SessionDep, settings: SettingsDep,
                  actor: ViewerActor) -> HTMLResponse:
    return render(request, "_frame.html", views.frame_context(session, settings, capture, n))


@router.get("/ui/captures/{cid}/audit", response_class=HTMLResponse)
def audit_partial(request: Request, capture: CaptureDep, session: SessionDep, registry: RegistryDep,
                  actor: ViewerActor) -> HTMLResponse:
    f, page = _audit_query(request)
    return render(request, "_audit.html", views.audit_context(session, registry, capture, f, page))


@router.get("/ui/captures/{cid}/hosts/{entity}", response_class=HTMLResponse)
def host_partial(request: Request, capture: CaptureDep, entity: str, session: SessionDep, registry: RegistryDep,
                 actor: ViewerActor) -> HTMLResponse:
    return render(request, "_host.html", views.host_context(session, registry, capture, entity,
                                                            views.Viewer.of(actor)))


@router.get("/ui/captures/{cid}/hosts/{entity}/headline", response_class=HTMLResponse)
def headline_partial(request: Request, capture: CaptureDep, entity: str, session: SessionDep,
                     registry: RegistryDep, actor: ViewerActor) -> HTMLResponse:
    return render(request, "_headline.html", views.headline_context(session, registry, capture, entity))


# --- the adjudication panel -----------------------------------------------------------------

def _panel(request: Request, session: Session, registry, key: Key, actor: Actor, *, error: str | None = None,
           form: dict | None = None, status: int = 200, changed: bool = False) -> HTMLResponse:
    context = views.panel_context(session, registry, key, views.Viewer.of(actor),
                                  error=error, form=form)
    headers = {PANEL_HEADER: key.question}
    if changed:
        headers["HX-Trigger"] = json.dumps({VERDICTS_CHANGED: {"question": key.question}})
    return render(request, "_panel.html", {"p": context}, status=status, headers=headers)


def _act(request: Request, db, registry, key: Key, actor: Actor, form: dict,
         action: Callable[[Session], object]) -> HTMLResponse:
    """Run one annotation service call in its own unit of work (all of it or none of it), then
    answer with the panel as stored: the new verdict, or the service's message."""
    try:
        with db.session(write=True) as s:
            action(s)
    except TracePcapError as err:
        with db.session() as s:
            return _panel(request, s, registry, key, actor, error=str(err), form=form, status=err.http_status)
    with db.session() as s:
        return _panel(request, s, registry, key, actor, changed=True)


def _chosen(label: str, other: str) -> str:
    """The label picked in a dropdown, or the free text typed under "Other…"."""
    return other if label == views.OTHER else label


def _weight(text: str) -> int:
    try:
        return int(text)
    except (TypeError, ValueError):
        raise InvalidAnnotation(f"evidence weight must be a whole number 1..100 (got {text!r})") from None


@router.get(PANEL, response_class=HTMLResponse)
def panel(request: Request, key: KeyDep, session: SessionDep, registry: RegistryDep,
          actor: ViewerActor) -> HTMLResponse:
    annotations.check_key(session, registry, key)
    return _panel(request, session, registry, key, actor)


@router.put(PANEL + "/override", response_class=HTMLResponse)
def set_override(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep, actor: AnalystActor,
                 label: FormText = "", label_other: FormText = "", rationale: FormText = "") -> HTMLResponse:
    form = {"action": "override", "label": label, "label_other": label_other, "rationale": rationale}
    return _act(request, db, registry, key, actor, form, lambda s: annotations.set_override(
        s, registry, key, _chosen(label, label_other), rationale, actor=actor))


@router.post(PANEL + "/resolve", response_class=HTMLResponse)
def resolve(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep, actor: AnalystActor,
            label: FormText = "") -> HTMLResponse:
    """One click on a contested verdict's candidate: an override with that label."""
    return _act(request, db, registry, key, actor, {"action": "resolve", "label": label},
                lambda s: annotations.resolve(s, registry, key, label, actor=actor))


@router.delete(PANEL + "/override", response_class=HTMLResponse)
def clear_override(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep,
                   actor: AnalystActor) -> HTMLResponse:
    return _act(request, db, registry, key, actor, {"action": "revert"},
                lambda s: annotations.clear_override(s, registry, key, actor=actor))


@router.post(PANEL + "/accept", response_class=HTMLResponse)
def accept(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep, actor: AnalystActor) -> HTMLResponse:
    return _act(request, db, registry, key, actor, {"action": "accept"},
                lambda s: annotations.accept(s, registry, key, actor=actor))


@router.post(PANEL + "/evidence", response_class=HTMLResponse)
def add_evidence(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep, actor: AnalystActor,
                 label: FormText = "", label_other: FormText = "", weight: FormText = "",
                 reason: FormText = "") -> HTMLResponse:
    form = {"action": "evidence", "label": label, "label_other": label_other, "weight": weight, "reason": reason}
    return _act(request, db, registry, key, actor, form, lambda s: annotations.add_evidence(
        s, registry, key, _chosen(label, label_other), _weight(weight), reason, actor=actor))


@router.put(PANEL + "/evidence/{evidence_id}", response_class=HTMLResponse)
def edit_evidence(request: Request, key: KeyDep, evidence_id: int, db: DbDep, registry: RegistryDep,
                  actor: AnalystActor, label: FormText = "", weight: FormText = "",
                  reason: FormText = "") -> HTMLResponse:
    form = {"action": "edit", "id": str(evidence_id), "label": label, "weight": weight, "reason": reason}
    return _act(request, db, registry, key, actor, form, lambda s: annotations.edit_evidence(
        s, registry, key, evidence_id, actor=actor, label=label, weight=_weight(weight), reason=reason))


@router.delete(PANEL + "/evidence/{evidence_id}", response_class=HTMLResponse)
def delete_evidence(request: Request, key: KeyDep, evidence_id: int, db: DbDep, registry: RegistryDep,
                    actor: AnalystActor) -> HTMLResponse:
    return _act(request, db, registry, key, actor, {"action": "delete", "id": str(evidence_id)},
                lambda s: annotations.delete_evidence(s, registry, key, evidence_id, actor=actor))


@router.post(PANEL + "/dismissals", response_class=HTMLResponse)
def dismiss(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep, actor: AnalystActor,
            label: FormText = "", reason: FormText = "") -> HTMLResponse:
    form = {"action": "dismiss", "label": label, "reason": reason}
    return _act(request, db, registry, key, actor, form,
                lambda s: annotations.dismiss(s, registry, key, label, reason, actor=actor))


@router.delete(PANEL + "/dismissals", response_class=HTMLResponse)
def undismiss(request: Request, key: KeyDep, db: DbDep, registry: RegistryDep, actor: AnalystActor,
              label: Annotated[str, Query()] = "") -> HTMLResponse:
    return _act(request, db, registry, key, actor, {"action": "restore", "label": label},
                lambda s: annotations.undismiss(s, registry, key, label, actor=actor))


def mount_web(app: FastAPI) -> None:
    """Serve the web UI from `app` (built by the API's `create_app`): pages, partials and
    the static files (ours and the vendored htmx and cytoscape.js)."""
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
