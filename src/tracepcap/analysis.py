"""The conductor: run the stages in order for one stored capture.

Ingest stored the bytes; here Extract walks them and later stages turn facts into verdicts.
Extract and Scan write under a staging capture (`store/staging.py`); one transaction then swaps
the new rows in, re-adjudicates every question with the human answers as they are at that
moment, and sets the capture's final status: done, partial (something could not be read, the
manifest says what) or failed (with the error). Until that commit readers and human writers see
the previous analysis whole; after it, the new one.
"""

from __future__ import annotations

import logging

from sqlalchemy import insert

from .adjudicate.registry import Registry, get_registry
from .adjudicate.runner import adjudicate_held
from .errors import TracePcapError
from .extract import ExtractResult, extract_capture
from .ingest import capture_path
from .scan import CaptureContext, scan_capture
from .scan.run import ScanReport
from .settings import Settings
from .store import Database
from .store.models import Capture, ManifestEntry
from .store.staging import drop_stage, hold_capture, open_stage, swap

log = logging.getLogger(__name__)
DELETED = "deleted"


def analyze(db: Database, settings: Settings, capture_id: str, registry: Registry | None = None) -> str:
    """Analyze the capture (extract, scan, adjudicate); return its final status ("deleted"
    when the capture was deleted meanwhile)."""
    registry = registry or get_registry()
    with db.session(write=True) as s:
        capture = s.get(Capture, capture_id)
        sha, stage = capture.sha256, open_stage(s, capture)
    try:
        result = extract_capture(db, capture_id, capture_path(settings.capture_dir, sha), rows_to=stage)
        with db.session(write=True) as s:
            report = scan_capture(s, stage, registry.signals(), CaptureContext.load(s, stage))
        return _swap_in(db, registry, capture_id, stage, report, result)
    except TracePcapError as err:
        return _fail(db, capture_id, stage, str(err))
    except Exception as err:  # noqa: BLE001 - the named boundary of one analysis job
        log.exception("analysis of capture %s failed", capture_id)
        return _fail(db, capture_id, stage, f"internal error: {type(err).__name__}: {err}")


def _swap_in(db: Database, registry: Registry, capture_id: str, stage: str, report: ScanReport,
             result: ExtractResult) -> str:
    """One transaction: the staged rows replace the capture's, every question is re-adjudicated
    (on a partial capture too), each failure becomes a manifest row, the final status is set."""
    with db.session(write=True) as s:
        capture = hold_capture(s, capture_id)
        if capture is None:
            drop_stage(s, stage)
            return DELETED
        swap(s, capture, stage)
        failures = adjudicate_held(s, registry, capture_id)
        rows = [("scan", "partial", report.votes, "; ".join(f"{k}: {v}" for k, v in report.failures.items()))]
        rows += [(f"adjudicate:{q}", "failed", 0, err) for q, err in failures.items()]
        s.execute(insert(ManifestEntry), [
            {"capture_id": capture_id, "extractor": name, "version": "1",
             "status": status if err else "completed", "facts": n, "error": err or None}
            for name, status, n, err in rows])
        complete = result.complete and not report.failures and not failures
        capture.status, capture.error = ("done" if complete else "partial"), result.partial
        capture.progress_bytes = capture.size
    if db.engine.dialect.name == "postgresql":  # fresh statistics after bulk inserts, or the
        with db.engine.connect() as conn:  # planner reads a just-analyzed capture slowly
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                "ANALYZE observation, conversation, host, vote, verdict")
    return capture.status


def _fail(db: Database, capture_id: str, stage: str, error: str) -> str:
    """The capture keeps the rows of its previous analysis, if any; what was staged goes."""
    with db.session(write=True) as s:
        drop_stage(s, stage)
        capture = s.get(Capture, capture_id)
        if capture is None:
            return DELETED
        capture.status, capture.error = "failed", error
    return "failed"
