"""The web pages of networks over time: the list (with a create form) and one network's page
(its captures in order, the change timeline with "mark reviewed", the presence grid and the
network inventory with carried / stale answers and "re-affirm" / "clear"). Reads through
`present.read.networks`, writes through `adjudicate.networks` and `adjudicate.annotations` as
the actor resolved server-side; nothing here computes an answer."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse

from ...adjudicate import annotations, networks
from ...adjudicate.actor import Actor
from ...adjudicate.contract import Key
from ...adjudicate.registry import get_registry
from ...errors import TracePcapError
from ...ingest import find_capture
from ..deps import Analyst, DbDep, RegistryDep, SessionDep, SettingsDep, Viewer
from ..read import networks as read
from ..read.change_summary import change_summary
from . import views
from .routes import _page, render

router = APIRouter(include_in_schema=False)
ViewerActor = Annotated[Actor, Viewer]
AnalystActor = Annotated[Actor, Analyst]
FormText = Annotated[str, Form()]
GRID_PAGE = 100
STEP_SHOWN = 12  # high and medium changes listed per capture; the rest load when opened


def network_context(session, network, grid_offset: int = 0, inventory_offset: int = 0,
                    opened: tuple[str, ...] = ()) -> dict:
    """The page: the change summary first, then its lists each behind a disclosure - captures,
    the timeline (the first high and medium changes of each capture listed, the rest and the
    low ones - devices coming and going - counted and loaded when opened), one page of the
    grid and inventory. `opened`: the lists shown open (the one a pager link or an action
    brought the page back to)."""
    shared = read.devices_of(session, network)
    captures = shared[0]
    detail = read.detail_of(network, captures)
    changes = read.change_documents(session, network.id, severities=("high", "medium"), captures=captures,
                                    detail=False)
    counts = read.change_counts(session, network.id)
    into: dict[str, list[read.Change]] = {}
    for e in changes:
        into.setdefault(e.capture_id, []).append(e)
    timeline = []
    for c in detail.capture_list[1:]:
        events = into.get(c.id, [])
        timeline.append({"capture": c, "events": events[:STEP_SHOWN], "more": len(events[STEP_SHOWN:]),
                         "low": counts.get((c.id, "low"), 0)})
    return {"network": detail, "timeline": timeline, "change_total": sum(counts.values()), "opened": opened,
            "summary": change_summary(session, network.id, captures),
            "grid": read.presence(session, network, grid_offset, GRID_PAGE, shared),
            "inventory": read.inventory(session, network, inventory_offset, GRID_PAGE, shared), "page_size": GRID_PAGE,
            "titles": {a.question: a.title for a in get_registry()}}


def _opened(request: Request) -> tuple[str, ...]:
    """The lists a request comes back to: a presence page link opens the grid, a devices page
    link the inventory."""
    return tuple(name for param, name in (("grid", "presence"), ("devices", "inventory"))
                 if param in request.query_params)


def _offset(request: Request, name: str) -> int:
    try:
        return max(0, int(request.query_params.get(name, 0)))
    except ValueError:
        return 0


@router.get("/networks", response_class=HTMLResponse)
def networks_page(request: Request, settings: SettingsDep, db: DbDep) -> HTMLResponse:
    def content(actor: Actor):
        with db.session() as s:
            return "_networks.html", {"networks": read.networks(s)}
    return _page(request, settings, "Networks", "/ui/networks", content)


@router.get("/networks/{nid}", response_class=HTMLResponse)
def network_page(request: Request, nid: str, settings: SettingsDep, db: DbDep) -> HTMLResponse:
    grid, inv, opened = _offset(request, "grid"), _offset(request, "devices"), _opened(request)

    def content(actor: Actor):
        with db.session() as s:
            return "_network.html", network_context(s, networks.find_network(s, nid), grid, inv, opened)
    query = f"?{request.url.query}" if request.url.query else ""
    return _page(request, settings, "Network", f"/ui/networks/{nid}{query}", content)


@router.get("/ui/networks", response_class=HTMLResponse)
def networks_partial(request: Request, session: SessionDep, actor: ViewerActor) -> HTMLResponse:
    return render(request, "_networks.html", {"networks": read.networks(session), "viewer": views.Viewer.of(actor)})


@router.get("/ui/networks/{nid}", response_class=HTMLResponse)
def network_partial(request: Request, nid: str, session: SessionDep, actor: ViewerActor) -> HTMLResponse:
    context = network_context(session, networks.find_network(session, nid), _offset(request, "grid"),
                              _offset(request, "devices"), _opened(request))
    return render(request, "_network.html", context | {"viewer": views.Viewer.of(actor)})


@router.get("/ui/networks/{nid}/changes/{cid}/more", response_class=HTMLResponse)
def more_changes(request: Request, nid: str, cid: str, session: SessionDep, actor: ViewerActor) -> HTMLResponse:
    """The high and medium changes into one capture beyond those the page lists."""
    network = networks.find_network(session, nid)
    events = read.change_documents(session, network.id, find_capture(session, cid).id, severities=("high", "medium"))
    return render(request, "_network_changes.html", {"events": events[STEP_SHOWN:], "network": {"id": network.id},
                                                      "viewer": views.Viewer.of(actor)})


@router.get("/ui/networks/{nid}/changes/{cid}/low", response_class=HTMLResponse)
def low_changes(request: Request, nid: str, cid: str, session: SessionDep, actor: ViewerActor) -> HTMLResponse:
    """The low-severity changes into one capture (devices appearing and disappearing)."""
    network = networks.find_network(session, nid)
    events = read.change_documents(session, network.id, find_capture(session, cid).id, severities=("low",))
    return render(request, "_network_changes.html", {"events": events, "network": {"id": network.id},
                                                      "viewer": views.Viewer.of(actor)})


@router.post("/ui/networks", response_class=HTMLResponse)
def create(request: Request, db: DbDep, actor: AnalystActor, name: FormText = "") -> HTMLResponse:
    error = None
    try:
        with db.session(write=True) as s:
            networks.create_network(s, name, actor=actor)
    except TracePcapError as err:
        error = str(err)
    with db.session() as s:
        return render(request, "_networks.html", {"networks": read.networks(s), "viewer": views.Viewer.of(actor),
                                                   "error": error}, status=200 if error is None else 422)


@router.post("/ui/networks/{nid}/changes/{change_id}/review", response_class=HTMLResponse)
def review(request: Request, nid: str, change_id: int, db: DbDep, actor: AnalystActor) -> HTMLResponse:
    with db.session(write=True) as s:
        network = networks.find_network(s, nid)
        change = networks.changes.mark_reviewed(s, network.id, change_id, actor=actor)
        event = next(e for e in read.change_documents(s, network.id, change.capture_id) if e.id == change.id)
    return render(request, "_network_change.html", {"e": event, "network": {"id": network.id},
                                                    "viewer": views.Viewer.of(actor)})


def _answer_action(request: Request, nid: str, db, registry, actor: Actor, capture: str, question: str,
                   entity: str, action) -> HTMLResponse:
    error = None
    try:
        with db.session(write=True) as s:
            key = Key(question, find_capture(s, capture).id, entity)
            action(s, key)
    except TracePcapError as err:
        error = str(err)
    with db.session() as s:
        network = networks.find_network(s, nid)
        context = network_context(s, network, _offset(request, "grid"), _offset(request, "devices"),
                                  ("inventory",))  # re-affirm and clear are inventory actions
    return render(request, "_network.html", context | {"viewer": views.Viewer.of(actor), "error": error},
                  status=200 if error is None else 422)


@router.post("/ui/networks/{nid}/reaffirm", response_class=HTMLResponse)
def reaffirm(request: Request, nid: str, db: DbDep, registry: RegistryDep, actor: AnalystActor,
             capture: FormText = "", question: FormText = "", entity: FormText = "") -> HTMLResponse:
    return _answer_action(request, nid, db, registry, actor, capture, question, entity,
                          lambda s, key: networks.reaffirm(s, registry, key, actor=actor))


@router.post("/ui/networks/{nid}/clear", response_class=HTMLResponse)
def clear(request: Request, nid: str, db: DbDep, registry: RegistryDep, actor: AnalystActor,
          capture: FormText = "", question: FormText = "", entity: FormText = "") -> HTMLResponse:
    return _answer_action(request, nid, db, registry, actor, capture, question, entity,
                          lambda s, key: annotations.clear_override(s, registry, key, actor=actor))


def search_context(session, q: str) -> dict:
    return {"q": q, "hits": read.search(session, q) if q.strip() else []}


@router.get("/search", response_class=HTMLResponse)
def search_page(request: Request, settings: SettingsDep, db: DbDep,
                q: Annotated[str, Query(max_length=200)] = "") -> HTMLResponse:
    def content(actor: Actor):
        with db.session() as s:
            return "_search.html", search_context(s, q)
    return _page(request, settings, "Search", f"/ui/search?{request.url.query}", content)


@router.get("/ui/search", response_class=HTMLResponse)
def search_partial(request: Request, session: SessionDep, actor: ViewerActor,
                   q: Annotated[str, Query(max_length=200)] = "") -> HTMLResponse:
    return render(request, "_search.html", search_context(session, q))
