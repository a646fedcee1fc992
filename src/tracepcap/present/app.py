"""The composition root: `create_app(settings, db=None, registry=None)` builds the served app.

The API's routers per resource under /api (`api/`), the web UI at / (`web/`), the middleware
and the shared dependencies (`deps.py`): `api/` and `web/` are sibling leaves that never
import each other; only this module knows both. OpenAPI schema at /api/openapi.json, docs at
/api/docs. On start-up temporary files of uploads an earlier run never finished are removed, the
background analysis worker starts (with TRACEPCAP_DASK_SCHEDULER its analyses run on the
Dask cluster: dask_analysis.py) and every capture an earlier run left `queued` or `analyzing`
is queued again; on shutdown the worker stops after the capture it
is on.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
from fastapi import Depends, FastAPI

from .. import __version__
from ..adjudicate.registry import Registry, get_registry
from ..analysis import analyze
from ..dask_analysis import DaskAnalyses
from ..ingest import sweep_stale_uploads
from ..ingest.lease import any_stalled, requeue_stalled
from ..settings import Settings, get_settings
from ..store import Database, open_database
from ..store.staging import drop_stages
from .api import errors
from .api.body_limit import BodyLimit
from .api.docs import mount_docs
from .api.known_query import known_query
from .api.request_guard import RequestGuard
from .api.request_text import plain_parameters
from .api.routes import (
    adjudications,
    annotations,
    applications,
    audit,
    captures,
    credentials,
    exports,
    frames,
    hosts,
    meta,
    networks,
    notices,
    software,
)
from .api.schemas import ErrorOut
from .api.turns import Turns
from .auth import TokenVerifier
from .read.captures import unfinished_captures
from .web import mount_web
from .worker import AnalysisWorker

log = logging.getLogger(__name__)
PREFIX = "/api"
ERRORS = {status: {"model": ErrorOut} for status in (400, 401, 403, 404, 408, 413, 415, 422, 503)}


def create_app(settings: Settings | None = None, db: Database | None = None,
               registry: Registry | None = None) -> FastAPI:
    """The app for `settings` (default: from the environment). A `db` passed in stays the
    caller's to dispose; one opened here is disposed at shutdown."""
    settings = settings or get_settings()
    settings.check_dask()  # a scheduler that may not be used stops the server at start, said so
    registry = registry or get_registry()
    owns_db = db is None
    db = db or open_database(settings.database_url)
    # with a Dask scheduler each capture's whole analysis runs on the cluster, and the worker
    # has a waiting thread per worker thread of the cluster (dask_analysis.py)
    remote = DaskAnalyses(settings, db, registry) if settings.dask_cluster is not None else None
    worker = AnalysisWorker(remote.analyze if remote is not None else
                            lambda capture_id, cancelled: analyze(db, settings, capture_id, registry,
                                                                  cancelled=cancelled),
                            threads=remote.slots if remote is not None else settings.analysis_workers,
                            sweep=lambda busy, capture_id: _requeue(db, settings, busy, capture_id),
                            sweep_seconds=min(60.0, settings.analysis_lease_seconds / 2))

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        sweep_stale_uploads(settings.capture_dir)
        _app.state.turns = Turns(db.pool_size, one_writer=db.is_sqlite)  # bound to the serving loop
        worker.start()
        with db.session(write=True) as session:
            drop_stages(session)  # rows staged by analyses this server's last run left unfinished
            unfinished = unfinished_captures(session)
        for capture_id in unfinished:
            worker.submit(capture_id)
        if unfinished:
            log.info("re-queued %d captures whose analysis had not finished", len(unfinished))
        try:
            yield
        finally:
            if remote is not None:
                remote.close()  # first: its threads stop waiting for the tasks, which finish on their own
            worker.stop()
            if owns_db:
                db.dispose()

    app = FastAPI(title="TracePcap", version=__version__, lifespan=lifespan,
                  docs_url=None, openapi_url=f"{PREFIX}/openapi.json", redoc_url=None,
                  dependencies=[Depends(plain_parameters), Depends(known_query)],
                  description="Packet captures in; hosts, verdicts with their reasons, and the "
                              "human actions on them out.")
    app.state.settings, app.state.db, app.state.registry, app.state.worker = settings, db, registry, worker
    app.state.verifier = TokenVerifier(settings) if settings.auth == "oidc" else None
    app.state.upload_slots = anyio.CapacityLimiter(settings.max_concurrent_uploads)
    app.dependency_overrides[get_settings] = lambda: settings
    errors.install(app)
    for module in (meta, captures, hosts, notices, software, credentials, applications, adjudications, annotations,
                   exports, frames, audit, networks):
        app.include_router(module.router, prefix=PREFIX, responses=ERRORS)
    docs = mount_docs(app, f"{PREFIX}/docs")
    mount_web(app)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)  # inside the guard: foreign hosts first
    app.add_middleware(RequestGuard, settings=settings,  # outermost: its headers go on every answer
                       docs_paths=(docs,))
    return app


def _requeue(db: Database, settings: Settings, busy: set[str], capture_id: str | None) -> list[str]:
    """Stalled captures (ingest/lease.py) back to queued, in a unit of work of their own (a
    writing one only when a read found one)."""
    with db.session() as session:
        if not any_stalled(session, settings.analysis_lease_seconds, capture_id=capture_id, exclude=busy):
            return []
    with db.session(write=True) as session:
        return requeue_stalled(session, settings.analysis_lease_seconds, capture_id=capture_id, exclude=busy)
