"""The conductor: run the stages in order for one stored capture.

Ingest stored the bytes; here Extract walks them and later stages turn facts into verdicts.
The capture's final status is set here and only here: done, partial (something could not be
read, the manifest says what) or failed (with the error).
"""

from __future__ import annotations

import logging

from .errors import TracePcapError
from .extract import extract_capture
from .ingest import capture_path
from .settings import Settings
from .store import Database
from .store.models import Capture

log = logging.getLogger(__name__)


def analyze(db: Database, settings: Settings, capture_id: str) -> str:
    """Analyze the capture; return its final status."""
    with db.session() as s:
        sha = s.get(Capture, capture_id).sha256
    try:
        result = extract_capture(db, capture_id, capture_path(settings.capture_dir, sha))
    except TracePcapError as err:
        return _finish(db, capture_id, "failed", str(err))
    except Exception as err:  # noqa: BLE001 - the named boundary of one analysis job
        log.exception("analysis of capture %s failed", capture_id)
        return _finish(db, capture_id, "failed", f"internal error: {type(err).__name__}: {err}")
    return _finish(db, capture_id, "done" if result.complete else "partial", result.partial)


def _finish(db: Database, capture_id: str, status: str, error: str | None) -> str:
    with db.session() as s:
        capture = s.get(Capture, capture_id)
        capture.status, capture.error = status, error
        if status != "failed":
            capture.progress_bytes = capture.size
    return status
