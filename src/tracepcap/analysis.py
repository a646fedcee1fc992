"""The conductor: run the stages in order for one stored capture.

Ingest stored the bytes; here Extract walks them and later stages turn facts into verdicts.
Extract and Scan write under a staging capture (`store/staging.py`), Scan in a short writing
transaction after computing its rows from facts it read (`_scan`); one transaction then swaps
the new rows in, re-adjudicates every question with the human answers as they are at that
moment, and sets the capture's final status: done, partial (the file could not be read to its
end, or a stage hit a bug: the manifest says which) or failed (with the error). Traffic that
violates its protocol is no reason for partial: Extract records it as notices. Until that commit readers and human writers see
the previous analysis whole; after it, the new one.

A failed capture's error is a sentence for its user: an internal error names its kind and
points to the log, where the traceback and any SQL or driver text go (they can hold data and
mean nothing to a user). A capture deleted while it is analyzed stops at the next progress
tick, quietly.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable
from functools import lru_cache

from sqlalchemy import insert
from sqlalchemy.orm import Session

from .adjudicate import networks
from .adjudicate.annotations import carry_to_entities, mark_stale
from .adjudicate.registry import Registry, get_registry
from .adjudicate.runner import Decided, adjudicate_held, machine_answer
from .errors import AnalysisCancelled, InternalError, NotFound, TracePcapError
from .extract import extract_capture
from .ingest import capture_path
from .ingest.lease import beat
from .scan import CaptureContext
from .scan.run import ScanReport, compute_scan, write_scan
from .settings import Settings
from .statuses import ManifestStatus
from .store import Database
from .store.models import Capture, CaptureStatus, ManifestEntry
from .store.staging import drop_stage, hold_capture, open_stage, swap

log = logging.getLogger(__name__)
DELETED = "deleted"  # what analyze returns when the capture went away meanwhile
#: a failure that cannot be recorded (database down, disk full) is tried again after each of
#: these pauses, in seconds; past them the capture stays `analyzing` until its lease runs out
#: (ingest/lease.py), when it is queued again
RECORD_RETRY_SECONDS = (0.5, 1.0, 2.0, 4.0, 8.0)


class FailureNotRecorded(InternalError):
    """The analysis failed and its failure could not be written to the store."""


@lru_cache(maxsize=1)
def _libc_with_trim():
    """glibc, when this process runs on it (malloc_trim is glibc's); else None. Looked up at
    the first large capture: `find_library` runs `ldconfig -p`, a process of its own."""
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


#: captures smaller than this hold too little after their walk for a full collection (tens of
#: milliseconds, a large part of a short command's run) to give anything back
FREE_MEMORY_MIN_BYTES = 16 << 20


def _return_free_memory(capture_bytes: int) -> None:
    """Hand the walk's freed memory (its flow table, stream heads, fact table) back to the
    system before Scan builds its own: glibc's malloc keeps freed pages for reuse, and Scan
    allocates differently, so the two would add up to the analysis's peak RSS."""
    if capture_bytes < FREE_MEMORY_MIN_BYTES:
        return
    gc.collect()
    if (libc := _libc_with_trim()) is not None:
        libc.malloc_trim(0)


def analyze(db: Database, settings: Settings, capture_id: str, registry: Registry | None = None, *,
            cancelled: Callable[[], bool] = lambda: False, raise_failure: bool = False,
            progress: Callable[[str, int, int], None] | None = None, stage_token: str | None = None,
            log_place: str = "the server log") -> CaptureStatus | str:
    """Analyze the capture (extract, scan, adjudicate); return its final status, or DELETED.

    `cancelled` is asked at every progress tick of the walk; True stops it. With
    `raise_failure` (the CLI) a failure is raised after it is recorded: the input's own error
    as it is, anything else as InternalError, so the exit code says which. `progress(stage,
    done, total)`, if given, hears the walk's ticks ("read", bytes of the file) on the same hook
    that records the capture's progress for the web UI, then each later stage's start and end
    ("scan", "adjudicate": 0 or 1 of 1). `stage_token` names the staging capture in advance
    (store/staging.py `open_stage`: a dispatcher that loses this analysis drops it), and
    `log_place` is where an internal error's details go, as the failure's sentence says.
    """
    tick = progress or (lambda stage, done, total: None)
    registry = registry or get_registry()
    with db.session(write=True) as s:
        capture = s.get(Capture, capture_id)
        if capture is None:
            log.info("capture %s was deleted before its analysis began", capture_id)
            return DELETED
        sha, stage = capture.sha256, open_stage(s, capture, stage_token)
    try:
        path = capture_path(settings.capture_dir, sha)
        workers, scheduler = settings.extract_plan(path)
        result = extract_capture(db, capture_id, path, settings.extract_limits, cancelled=cancelled,
                                 rows_to=stage, workers=workers, scheduler=scheduler,
                                 progress=lambda done, total: tick("read", done, total))
        extracted, lost = result.complete, result.partial
        del result  # its facts are stored: held through Scan they raised a many-host capture's peak
        _return_free_memory(path.stat().st_size)
        with db.session(write=True) as s:
            beat(s, capture_id)  # Scan and the swap run without progress ticks
        tick("scan", 0, 1)
        with Decided(capture_id, registry) as decided:
            report = _scan(db, registry, stage, decided)
            tick("scan", 1, 1)
            tick("adjudicate", 0, 1)
            status = _swap_in(db, registry, capture_id, stage, report, extracted, lost, decided)
        tick("adjudicate", 1, 1)
        return status
    except Exception as err:  # noqa: BLE001 - the named boundary of one analysis job
        if isinstance(err, TracePcapError):
            failure = err
        else:
            log.exception("analysis of capture %s failed", capture_id)
            failure = InternalError(f"internal error ({type(err).__name__}) while analyzing; "
                                    f"{log_place} has the details")
        status = record_failure(db, capture_id, stage, str(failure))
        if status == DELETED:
            log.info("capture %s was deleted while it was analyzed", capture_id)
        elif raise_failure and not isinstance(err, AnalysisCancelled):
            raise failure from err
        return status


def _scan(db: Database, registry: Registry, stage: str, decided: Decided | None = None) -> ScanReport:
    """Scan the staged facts: read them in a reading transaction, compute every row Scan
    writes outside any transaction (spooled: scan/run.py), then write them in one short
    writing one. On SQLite, one writer per file, other analyses (a Dask cluster's workers, the
    server's threads) write meanwhile. Nothing else writes under a staging capture, so what was
    read is still what is there; a failure before the write leaves nothing, one during it
    rolls back, and the stage is dropped either way (`record_failure`). Every question's machine
    verdicts are decided here too, from the votes, and kept in `decided` for the swap."""
    with db.session() as s:
        context = CaptureContext.load(s, stage)
    with compute_scan(context, registry.signals(), answer=machine_answer(registry, decided)) as rows:
        entities = [e.key for e in context.entities]
        del context  # its facts are in the rows now: not held through the write
        if decided is not None:
            decided.decide_rest(rows.votes.rows(), entities, rows.questions)
        with db.session(write=True) as s:
            if s.get(Capture, stage) is None:  # the capture was deleted meanwhile, its stage with it
                raise AnalysisCancelled(f"the staging capture {stage} was dropped while it was scanned")
            return write_scan(s, rows)


def _swap_in(db: Database, registry: Registry, capture_id: str, stage: str, report: ScanReport,
             extracted: bool, lost: str | None, decided: Decided | None = None) -> CaptureStatus | str:
    """One transaction: the staged rows replace the capture's, every question is re-adjudicated
    (on a partial capture too; an entity without annotations takes what Scan decided for it,
    `decided`), each failure becomes a manifest row, the final status is set."""
    with db.session(write=True) as s:
        capture = hold_capture(s, capture_id)
        if capture is None:
            drop_stage(s, stage)
            return DELETED
        swap(s, capture, stage)
        failures = _adjudicate(s, registry, capture_id, decided)
        if (network_id := networks.network_of(s, capture_id)) is not None:
            networks.refresh(s, registry, network_id, reanalysed={capture_id})  # carry into it, its changes
        rows = [("scan", ManifestStatus.PARTIAL, report.votes, "; ".join(f"{k}: {v}" for k, v in report.failures.items()))]
        rows += [(f"adjudicate:{q}", ManifestStatus.FAILED, 0, err) for q, err in failures.items()]
        s.execute(insert(ManifestEntry), [
            {"capture_id": capture_id, "extractor": name, "version": "1",
             "status": status if err else ManifestStatus.COMPLETED, "facts": n, "error": err or None}
            for name, status, n, err in rows])
        complete = extracted and not report.failures and not failures
        capture.status = CaptureStatus.DONE if complete else CaptureStatus.PARTIAL
        capture.error = lost
        capture.progress_bytes = capture.size
        status = capture.status
    if db.engine.dialect.name == "postgresql":  # fresh statistics after bulk inserts, or the
        with db.engine.connect() as conn:  # planner reads a just-analyzed capture slowly
            conn.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql(
                "ANALYZE observation, conversation, host, entity, entity_member, vote, verdict")
    return status


def adjudicate_capture(db: Database, registry: Registry, capture_id: str,
                       decided: Decided | None = None) -> dict[str, str]:
    """Every question for a capture, in one writing unit of work holding the capture; return
    failures by question. `decided`: what Scan decided for the capture's votes as they are
    (runner.Decided), reused for entities without annotations."""
    with db.session(write=True) as session:
        if hold_capture(session, capture_id) is None:
            raise NotFound(f"no capture {capture_id!r}")
        return _adjudicate(session, registry, capture_id, decided)


def _adjudicate(session: Session, registry: Registry, capture_id: str,
                decided: Decided | None = None) -> dict[str, str]:
    """In a transaction holding the capture: human answers whose facts moved are marked stale,
    then every question is answered with the annotations as they are now. Annotations keyed
    by an address or MAC of a device move to the device's key first."""
    carry_to_entities(session, capture_id)
    mark_stale(session, capture_id)
    return adjudicate_held(session, registry, capture_id, decided)


def record_failure(db: Database, capture_id: str, stage: str, error: str, *,
                    pauses: tuple[float, ...] | None = None) -> CaptureStatus | str:
    """`_fail`, tried again after each of `pauses` (default RECORD_RETRY_SECONDS) while the
    store refuses it; FailureNotRecorded when it never took. The capture then stays
    `analyzing`, its heartbeat ageing: past the lease it is queued again (ingest/lease.py)."""
    pauses = RECORD_RETRY_SECONDS if pauses is None else pauses
    for attempt in range(len(pauses) + 1):
        try:
            return _fail(db, capture_id, stage, error)
        except Exception as err:  # noqa: BLE001 - named boundary: recording one failure
            if attempt == len(pauses):
                log.error("the failure of capture %s could not be recorded after %d attempts (%s: %s); it "
                          "stays analyzing until its lease runs out, then it is queued again",
                          capture_id, attempt + 1, type(err).__name__, err)
                raise FailureNotRecorded(f"the analysis of capture {capture_id} failed and its failure could "
                                         f"not be recorded ({type(err).__name__}); it will be queued again "
                                         "once its lease runs out") from err
            log.warning("recording the failure of capture %s failed (%s); trying again in %.1f s",
                        capture_id, type(err).__name__, pauses[attempt])
            time.sleep(pauses[attempt])
    raise AssertionError("unreachable")


def _fail(db: Database, capture_id: str, stage: str, error: str) -> CaptureStatus | str:
    """The capture keeps the rows of its previous analysis, if any; what was staged goes."""
    with db.session(write=True) as s:
        drop_stage(s, stage)
        capture = s.get(Capture, capture_id)
        if capture is None:
            return DELETED
        capture.status, capture.error = CaptureStatus.FAILED, error
    return CaptureStatus.FAILED
