"""What a handler of the API or the web UI may ask for: a session, the settings, the actor, a capture, a question, a
key, a page. Each resolves one thing, or raises the error that says what was missing.

`ActorDep` wraps `CurrentActor`, the one reader of a token's claims; no handler looks at a
token, a header or a body field to learn who acts. `require(role)` refuses an actor without
the role with 403, after recording the refused attempt in the audit log.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Query, Request, Response
from fastapi.concurrency import contextmanager_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from ..adjudicate import annotations
from ..adjudicate.actor import Actor, CurrentActor
from ..adjudicate.contract import Adjudicator, Key
from ..adjudicate.registry import Registry
from ..errors import NotFound
from ..ingest import find_capture
from ..settings import Settings, get_settings
from ..store import Database
from ..store.models import MAX_BIGINT, Capture
from .auth import Forbidden, Unauthenticated
from .read.hosts import require_host
from .worker import AnalysisWorker

MAX_PAGE = 1000


def _db(request: Request) -> Database:
    return request.app.state.db


def _registry(request: Request) -> Registry:
    return request.app.state.registry


def _worker(request: Request) -> AnalysisWorker:
    return request.app.state.worker


DbDep = Annotated[Database, Depends(_db)]
RegistryDep = Annotated[Registry, Depends(_registry)]
WorkerDep = Annotated[AnalysisWorker, Depends(_worker)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


READ_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))
WEB_PARTIALS = "/ui/"  # the web UI's htmx routes (present/web/routes.py)


async def _session(request: Request, db: DbDep) -> AsyncIterator[Session]:
    """One unit of work per request, committed before the response is sent. The request waits
    for its turn (`turns.py`) in the event loop first; a request that may write gets a writing
    unit of work (on SQLite: one writer at a time, holding the write lock from its first
    statement)."""
    # The web UI's write actions (/ui/...) read through this session and write in a unit of
    # work of their own (`web.routes._act`), so that a refused action is answered with the panel
    # as stored: their dependency session only reads, or the two would wait on each other.
    write = request.method not in READ_METHODS and not request.url.path.startswith(WEB_PARTIALS)
    async with request.app.state.turns.take(write=write), \
            contextmanager_in_threadpool(db.session(write=write)) as session:
        yield session


SessionDep = Annotated[Session, Depends(_session, scope="function")]

_bearer = HTTPBearer(auto_error=False, description="an access token from the OIDC issuer (when auth is on)")


def current_actor(request: Request, settings: SettingsDep,
                  credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> Actor:
    resolve = CurrentActor(settings.oidc_roles_claim)
    if settings.auth == "off":
        return resolve(None)
    if credentials is None:
        raise Unauthenticated("a bearer token is required", error=None)
    claims = request.app.state.verifier.verify(credentials.credentials)
    try:
        return resolve(claims)
    except ValueError as err:
        raise Unauthenticated(f"invalid token: {err}") from err


ActorDep = Annotated[Actor, Depends(current_actor)]


def require(role: str):
    """A dependency that lets the actor through only with `role` (or a role above it)."""
    def check(request: Request, actor: ActorDep, db: DbDep, registry: RegistryDep) -> Actor:
        if not actor.can(role):
            _refuse(request, db, registry, actor, role)
        return actor
    check.__name__ = f"require_{role}"
    return Depends(check)


def _refuse(request: Request, db: Database, registry: Registry, actor: Actor, role: str) -> None:
    """Record `access.denied` (in its own transaction: the request itself fails; at most one
    event a minute per actor, method and route, see `annotations.record_refusal`) and raise 403."""
    params = request.path_params
    with db.session(write=True) as session:
        try:
            capture_id = find_capture(session, params["cid"]).id if "cid" in params else None
        except NotFound:
            capture_id = None
        key = None
        if capture_id and params.get("question") in registry and len(params.get("entity", "")) <= 64:
            key = Key(params["question"], capture_id, params["entity"])
        endpoint = request.scope.get("endpoint")  # names the route whatever prefix it is mounted under
        route = f"{endpoint.__module__}.{endpoint.__qualname__}" if endpoint else request.url.path
        annotations.record_refusal(session, actor, request.method, route, key=key, capture_id=capture_id,
                                   after={"method": request.method, "path": request.url.path,
                                          "required_role": role, "roles": sorted(actor.roles)})
    held = ", ".join(sorted(actor.roles)) or "none"
    raise Forbidden(f"{actor.name} may not {request.method} {request.url.path}: "
                    f"the {role} role is required (roles held: {held})")


Viewer = require("viewer")
Analyst = require("analyst")
Admin = require("admin")


def _capture(cid: str, session: SessionDep) -> Capture:
    return find_capture(session, cid)


def _question(question: str, registry: RegistryDep) -> Adjudicator:
    return registry.get(question)


CaptureDep = Annotated[Capture, Depends(_capture)]
QuestionDep = Annotated[Adjudicator, Depends(_question)]


def _key(capture: CaptureDep, question: QuestionDep, entity: str, session: SessionDep) -> Key:
    """The key of the entity `entity` names (its key, an address or a MAC), canonical."""
    return Key(question.question, capture.id, require_host(session, capture.id, entity))


KeyDep = Annotated[Key, Depends(_key)]


@dataclass(frozen=True, slots=True)
class Page:
    offset: int
    limit: int
    response: Response

    def total(self, count: int) -> None:
        """The size of the whole listing goes in `X-Total-Count`; the body is the page."""
        self.response.headers["X-Total-Count"] = str(count)


def _page(response: Response, offset: Annotated[int, Query(ge=0, le=MAX_BIGINT)] = 0,
          limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100) -> Page:
    return Page(offset, limit, response)


PageDep = Annotated[Page, Depends(_page)]
