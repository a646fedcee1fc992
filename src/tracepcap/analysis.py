"""The conductor: run the stages in order for one stored capture.

Ingest stored the bytes; here Extract walks them and later stages turn facts into verdicts.
The capture's final status is set here and only here: done, partial (something could not be
read, the manifest says what) or failed (with the error).
"""

from __future__ import annotations

import logging

from sqlalchemy import delete, insert

from .adjudicate.registry import Registry, get_registry
from .adjudicate.runner import adjudicate_capture
from .errors import TracePcapError
from .extract import extract_capture
from .ingest import capture_path
from .scan import CaptureContext, scan_capture
from .settings import Settings
from .store import Database
from .store.models import Capture, ManifestEntry

log = logging.getLogger(__name__)


def analyze(db: Database, settings: Settings, capture_id: str, registry: Registry | None = None) -> str:
    """Analyze the capture (extract, scan, adjudicate); return its final status."""
    registry = registry or get_registry()
    with db.session() as s:
        sha = s.get(Capture, capture_id).sha256
    try:
        result = extract_capture(db, capture_id, capture_path(settings.capture_dir, sha))
        extracted, lost = result.complete, result.partial
        del result  # its facts are stored: held through Scan they raised a many-host capture's peak
        adjudicated = _scan_and_adjudicate(db, registry, capture_id)  # on a partial capture too
        complete = extracted and adjudicated
    except TracePcapError as err:
        return _finish(db, capture_id, "failed", str(err))
    except Exception as err:  # noqa: BLE001 - the named boundary of one analysis job
        log.exception("analysis of capture %s failed", capture_id)
        return _finish(db, capture_id, "failed", f"internal error: {type(err).__name__}: {err}")
    return _finish(db, capture_id, "done" if complete else "partial", lost)


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


def _finish(db: Database, capture_id: str, status: str, error: str | None) -> str:
    with db.session() as s:
        capture = s.get(Capture, capture_id)
        capture.status, capture.error = status, error
        if status != "failed":
            capture.progress_bytes = capture.size
    return status
