"""The conductor: run the stages in order for one stored capture.

Ingest stored the bytes; here Extract walks them and later stages turn facts into verdicts.
The capture's final status is set here and only here: done, partial (something could not be
read, the manifest says what) or failed (with the error). A failed capture's error is a
sentence for its user: an internal error names its kind and points to the log, where the
traceback and any SQL or driver text go (they can hold data and mean nothing to a user).
A capture deleted while it is analyzed stops at the next progress tick, quietly.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import delete, insert, update

from .adjudicate.registry import Registry, get_registry
from .adjudicate.runner import adjudicate_capture
from .errors import AnalysisCancelled, InternalError, TracePcapError
from .extract import extract_capture
from .ingest import capture_path
from .scan import CaptureContext, scan_capture
from .settings import Settings
from .store import Database
from .store.models import Capture, CaptureStatus, ManifestEntry

log = logging.getLogger(__name__)


DELETED = "deleted"  # what analyze returns when the capture went away meanwhile


def analyze(db: Database, settings: Settings, capture_id: str, registry: Registry | None = None, *,
            cancelled: Callable[[], bool] = lambda: False, raise_failure: bool = False) -> CaptureStatus | str:
    """Analyze the capture (extract, scan, adjudicate); return its final status, or DELETED.

    `cancelled` is asked at every progress tick of the walk; True stops it. With
    `raise_failure` (the CLI) a failure is raised after it is recorded: the input's own error
    as it is, anything else as InternalError, so the exit code says which.
    """
    registry = registry or get_registry()
    with db.session() as s:
        capture = s.get(Capture, capture_id)
        if capture is None:
            log.info("capture %s was deleted before its analysis began", capture_id)
            return DELETED
        sha = capture.sha256
    try:
        result = extract_capture(db, capture_id, capture_path(settings.capture_dir, sha),
                                 settings.extract_limits, cancelled=cancelled)
        adjudicated = _scan_and_adjudicate(db, registry, capture_id)  # on a partial capture too
        complete = result.complete and adjudicated
    except Exception as err:  # noqa: BLE001 - the named boundary of one analysis job
        if not _exists(db, capture_id):
            log.info("capture %s was deleted while it was analyzed", capture_id)
            return DELETED
        if isinstance(err, TracePcapError):
            failure = err
        else:
            log.exception("analysis of capture %s failed", capture_id)
            failure = InternalError(f"internal error ({type(err).__name__}) while analyzing; "
                                    "the server log has the details")
        status = _finish(db, capture_id, CaptureStatus.FAILED, str(failure))
        if raise_failure and not isinstance(err, AnalysisCancelled):
            raise failure from err
        return status
    return _finish(db, capture_id, CaptureStatus.DONE if complete else CaptureStatus.PARTIAL, result.partial)


def _exists(db: Database, capture_id: str) -> bool:
    with db.session() as s:
        return s.get(Capture, capture_id) is not None


def _scan_and_adjudicate(db: Database, registry: Registry, capture_id: str) -> bool:
    """Votes, then verdicts; each failure becomes a manifest row. True when nothing failed."""
    with db.session() as s:
        report = scan_capture(s, capture_id, registry.signals(), CaptureContext.load(s, capture_id))
    failures = adjudicate_capture(db, registry, capture_id)
    if db.engine.dialect.name == "postgresql":  # fresh statistics after bulk inserts, or the
        with db.engine.connect() as conn:  # planner reads a just-analyzed capture slowly
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                "ANALYZE observation, conversation, host, vote, verdict")
    rows = [("scan", "partial", report.votes, "; ".join(f"{k}: {v}" for k, v in report.failures.items()))]
    rows += [(f"adjudicate:{q}", "failed", 0, err) for q, err in failures.items()]
    with db.session() as s:
        s.execute(delete(ManifestEntry).where(ManifestEntry.capture_id == capture_id,
                                              ManifestEntry.extractor.like("scan%")
                                              | ManifestEntry.extractor.like("adjudicate:%")))
        s.execute(insert(ManifestEntry), [
            {"capture_id": capture_id, "extractor": name, "version": "1",
             "status": status if err else "completed", "facts": n, "error": err or None}
            for name, status, n, err in rows])
    return not report.failures and not failures


def _finish(db: Database, capture_id: str, status: CaptureStatus, error: str | None) -> CaptureStatus | str:
    # one UPDATE, not read-then-write: a deletion committing meanwhile matches no row
    values = {"status": status, "error": error}
    if status != CaptureStatus.FAILED:
        values["progress_bytes"] = Capture.size
    with db.session() as s:
        matched = s.execute(update(Capture).where(Capture.id == capture_id).values(**values)).rowcount
    return status if matched else DELETED
