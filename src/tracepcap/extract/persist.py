"""Run Extract on a stored capture and write its facts, conversations, hosts and manifest.

Short transactions throughout: progress and conversation batches commit as the walk goes,
so readers (the API, the web UI) see progress and never wait on a long write. During an
analysis the rows go to a staging capture (`rows_to`, see `store/staging.py`): the capture's
own rows stay whole until the analysis swaps the new ones in.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import delete, insert

from ..errors import AnalysisCancelled
from ..limits import Limits
from ..store import Database
from ..store.bulk import insert_rows
from ..store.models import (
    Capture,
    CaptureStatus,
    Conversation,
    Host,
    ManifestEntry,
    Notice,
    NoticeCount,
    ObservationRow,
)
from .frame_index import FrameIndex, index_path
from .parallel import run_extract
from .pipeline import ExtractResult, extract

BATCH = 5000
PROGRESS_SECONDS = 0.5


def extract_capture(db: Database, capture_id: str, path: Path, limits: Limits = Limits(), *,
                    cancelled: Callable[[], bool] = lambda: False,
                    rows_to: str | None = None, workers: int = 1,
                    scheduler: str | None = None,
                    progress: Callable[[int, int], None] | None = None) -> ExtractResult:
    """Replace the Extract output under `rows_to` (default: the capture itself) with a fresh
    walk of `path`; return the result. Progress goes on the capture, whose status is left at
    "analyzing": the conductor sets the final one. The walk raises AnalysisCancelled at the
    first progress tick after `cancelled()` turns True. `workers` > 1 or a Dask `scheduler`
    shards the walk (extract/parallel.py); the result is the same. `progress(done, total)`, if
    given, hears every tick too (bytes read of the file), unthrottled: the terminal's bar."""
    rows_to = rows_to or capture_id
    with db.session(write=True) as s:
        for table in (ObservationRow, Conversation, Host, ManifestEntry, Notice, NoticeCount):
            s.execute(delete(table).where(table.capture_id == rows_to))
        capture = s.get(Capture, capture_id)
        capture.status, capture.progress_bytes, capture.error = CaptureStatus.ANALYZING, 0, None
        capture.heartbeat_at = datetime.now(UTC)  # its lease (ingest/lease.py)

    batch: list[dict] = []
    last_progress = [0.0]

    def flush() -> None:
        if batch:
            with db.session(write=True) as s:
                insert_rows(s, Conversation, batch)
            batch.clear()

    def on_conversation(row: dict) -> None:
        row["capture_id"] = rows_to
        batch.append(row)
        if len(batch) >= BATCH:
            flush()

    def on_progress(done: int, total: int) -> None:
        if cancelled():
            raise AnalysisCancelled(f"the analysis of capture {capture_id} was cancelled")
        if progress is not None:
            progress(done, total)
        now = time.monotonic()
        if now - last_progress[0] >= PROGRESS_SECONDS or done >= total:
            last_progress[0] = now
            with db.session(write=True) as s:
                capture = s.get(Capture, capture_id)
                if capture is None:  # deleted by another process than ours
                    raise AnalysisCancelled(f"capture {capture_id} was deleted while analyzed")
                capture.progress_bytes, capture.heartbeat_at = done, datetime.now(UTC)

    if workers > 1 or scheduler:
        # a sharded walk records no frame index: the first frame request builds it (load_or_build)
        result = run_extract(path, capture_id, limits=limits, workers=workers, scheduler=scheduler,
                             on_conversation=on_conversation, on_progress=on_progress)
    else:
        index = FrameIndex()
        result = extract(path, capture_id, limits=limits, on_conversation=on_conversation,
                         on_progress=on_progress, recorder=index)
        index.format, index.frames = result.format, result.packets
        index.save(index_path(path))  # the witness frames' random access (frame_index.py)
    flush()
    with db.session(write=True) as s:
        insert_rows(s, ObservationRow, (
            {"capture_id": rows_to, "entity": o.entity, "kind": o.kind, "value": o.value,
             "source": o.source, "grade": str(o.grade), "first_frame": o.witness.first_frame,
             "last_frame": o.witness.last_frame, "count": o.witness.count,
             "first_time": o.witness.first_time, "last_time": o.witness.last_time,
             "extractor": o.witness.extractor, "extractor_version": o.witness.extractor_version}
            for o in result.observations))
        insert_rows(s, Host, ({"capture_id": rows_to, "ip": ip, "position": i}
                              for i, ip in enumerate(result.hosts)))
        s.execute(insert(ManifestEntry), [
            {"capture_id": rows_to, "extractor": m.extractor, "version": m.version,
             "status": m.status, "facts": m.facts, "error": m.error} for m in result.manifest])
        insert_rows(s, Notice, ({"capture_id": rows_to, "kind": n.kind, "entity": n.entity, "frame": n.frame,
                                 "text": n.text} for n in result.notices))
        insert_rows(s, NoticeCount, ({"capture_id": rows_to, "kind": kind, "count": count}
                                     for kind, count in result.notice_counts.items()))
        capture = s.get(Capture, rows_to)
        capture.format = result.format
        capture.packets = result.packets
        capture.conversations = result.conversations
        capture.first_time, capture.last_time = result.first_time, result.last_time
        capture.analyzed_at = datetime.now(UTC)
    return result
