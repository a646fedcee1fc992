"""Run Extract on a stored capture and write its facts, conversations, hosts and manifest.

Short transactions throughout: progress and conversation batches commit as the walk goes,
so readers (the API, the web UI) see progress and never wait on a long write.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import delete, insert

from ..store import Database
from ..store.bulk import insert_rows
from ..store.models import Capture, Conversation, Host, ManifestEntry, ObservationRow
from .pipeline import ExtractResult, extract
from .settings import Limits

BATCH = 5000
PROGRESS_SECONDS = 0.5


def extract_capture(db: Database, capture_id: str, path: Path, limits: Limits = Limits()) -> ExtractResult:
    """Replace the capture's Extract output with a fresh walk of `path`; return the result.
    The capture's status is left at "analyzing": the conductor sets the final one."""
    with db.session() as s:
        for table in (ObservationRow, Conversation, Host, ManifestEntry):
            s.execute(delete(table).where(table.capture_id == capture_id))
        capture = s.get(Capture, capture_id)
        capture.status, capture.progress_bytes, capture.error = "analyzing", 0, None

    batch: list[dict] = []
    last_progress = [0.0]

    def flush() -> None:
        if batch:
            with db.session() as s:
                insert_rows(s, Conversation, batch)
            batch.clear()

    def on_conversation(row: dict) -> None:
        row["capture_id"] = capture_id
        batch.append(row)
        if len(batch) >= BATCH:
            flush()

    def on_progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last_progress[0] >= PROGRESS_SECONDS or done >= total:
            last_progress[0] = now
            with db.session() as s:
                s.get(Capture, capture_id).progress_bytes = done

    result = extract(path, capture_id, limits=limits, on_conversation=on_conversation,
                     on_progress=on_progress)
    flush()
    with db.session() as s:
        insert_rows(s, ObservationRow, (
            {"capture_id": capture_id, "entity": o.entity, "kind": o.kind, "value": o.value,
             "source": o.source, "grade": str(o.grade), "first_frame": o.witness.first_frame,
             "last_frame": o.witness.last_frame, "count": o.witness.count,
             "first_time": o.witness.first_time, "last_time": o.witness.last_time,
             "extractor": o.witness.extractor, "extractor_version": o.witness.extractor_version}
            for o in result.observations))
        insert_rows(s, Host, ({"capture_id": capture_id, "ip": ip, "position": i}
                              for i, ip in enumerate(result.hosts)))
        s.execute(insert(ManifestEntry), [
            {"capture_id": capture_id, "extractor": m.extractor, "version": m.version,
             "status": m.status, "facts": m.facts, "error": m.error} for m in result.manifest])
        capture = s.get(Capture, capture_id)
        capture.format = result.format
        capture.packets = result.packets
        capture.conversations = result.conversations
        capture.first_time, capture.last_time = result.first_time, result.last_time
        capture.analyzed_at = datetime.now(UTC)
    return result
