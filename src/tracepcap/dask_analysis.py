"""Whole analyses on a Dask cluster: what `serve` does with TRACEPCAP_DASK_SCHEDULER.

The server sends each queued capture's whole analysis (the walk, the rows it persists, Scan,
adjudication and the swap: `analysis.analyze`) to the cluster as one task, `run_job`. The
worker running it opens the database at the URL in the job and reads the capture from the
capture store named in it, so every worker must reach both: a worker on the server's
machine, or one that shares the capture store (the same path) and a PostgreSQL database. The
server's analysis threads (present/worker.py) only wait for the tasks, and there are as many
of them as the cluster has worker threads (`slots`, asked of the scheduler), so 2 workers
analyze 2 captures at once, each in its own process, whatever the server's GIL does.

What the server still knows of an analysis it sent away:

* progress and the lease: the task writes the capture's progress and heartbeat as the
  analysis always does (extract/persist.py, ingest/lease.py), and a capture whose task died
  with its worker is run again by the scheduler on another worker (`allowed-failures`);
* the outcome: the task records it (done, partial, failed) as `analyze` always does. When
  the task itself fails (its workers kept dying, the worker could not open the database or
  unpickle the job), the server records the capture failed with the reason and drops the
  staging capture the task opened (named in advance: `store.staging.stage_token`). A task
  the cluster lost (the scheduler restarted and forgot it, the connection broke) is sent
  again, up to LOST_TRIES times, and the capture failed saying so past them;
* cancellation (the capture deleted): a task still waiting is cancelled; a running one is
  told through a Dask `Event` it asks at its progress ticks, and finds its capture gone at
  the next one anyway.

A capture larger than TRACEPCAP_PARALLEL_MIN_BYTES is sharded by the task on the same
cluster (extract/parallel.py `on_dask`, with the worker's own client, which leaves the
worker's thread pool while its shards run): by byte range when it can (extract/spill.py),
the spill files and conversation runs next to the stored capture, which every worker reaches. When the scheduler cannot be reached, the
analysis runs in the server process as it would without one, said in the log: uploads keep
being analyzed. The trust rule is dask_trust.py's (tls://, or tcp:// on this machine
only), checked before anything is sent: the results come back as pickles.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .adjudicate.registry import Registry
from .analysis import analyze, record_failure
from .errors import UsageError
from .settings import Settings
from .store import Database, open_database
from .store.staging import stage_id_of, stage_token

log = logging.getLogger(__name__)

#: how often a waiting server thread looks at its task (and at a cancellation)
POLL_SECONDS = 0.1
#: how often a running task asks whether it was cancelled (a round trip to the scheduler)
CANCEL_CHECK_SECONDS = 1.0
#: the settings an analysis reads, sent with each job (the worker's own environment gives the rest)
JOB_SETTINGS = ("data_dir", "database_url", "max_decompressed_bytes", "max_records", "max_decompression_ratio",
                "capture_workers", "parallel_min_bytes", "dask_scheduler")
WORKER_LOG = "the Dask worker's log"
#: a task the cluster lost is sent again this many times in all
LOST_TRIES = 3
LOST = object()  # what `_run` says of a task the cluster lost


@dataclass(frozen=True)
class Job:
    """One capture's analysis, as sent to a worker."""

    capture_id: str
    stage_token: str  # names its staging capture (store/staging.py)
    settings: dict[str, Any]  # JOB_SETTINGS
    registry: Registry | None = None  # None: the worker's own (the installed questions)

    @property
    def cancel_event(self) -> str:
        return f"tracepcap-cancel-{self.capture_id}-{self.stage_token}"


# --- on the worker ---------------------------------------------------------------------------

_databases: dict[str, Database] = {}
_databases_guard = threading.Lock()


def _database(url: str) -> Database:
    """One Database per URL per worker process, shared by its tasks (its pool, and on SQLite
    its writers' turn)."""
    with _databases_guard:
        if url not in _databases:
            _databases[url] = open_database(url)
        return _databases[url]


def _cancel_check(name: str) -> Callable[[], bool]:
    """Whether the server set the job's cancel event: asked of the scheduler at most every
    CANCEL_CHECK_SECONDS; once True, always True."""
    from distributed import Event

    event = Event(name)
    asked_at = [0.0]
    told: list[bool] = []

    def cancelled() -> bool:
        now = time.monotonic()
        if not told and now - asked_at[0] >= CANCEL_CHECK_SECONDS:
            asked_at[0] = now
            try:
                if event.is_set():
                    told.append(True)
            except Exception:  # noqa: BLE001 - named boundary: the scheduler gone; the capture's row still tells
                log.warning("could not ask the scheduler whether %s was cancelled", name)
        return bool(told)

    return cancelled


def run_job(job: Job) -> str:
    """The Dask task: analyze the capture here; its final status (or "deleted")."""
    settings = Settings(**job.settings)
    db = _database(str(settings.database_url))
    status = analyze(db, settings, job.capture_id, job.registry, cancelled=_cancel_check(job.cancel_event),
                     stage_token=job.stage_token, log_place=WORKER_LOG)
    return str(status)


# --- in the server ---------------------------------------------------------------------------

def job_settings(settings: Settings) -> dict[str, Any]:
    """What a worker needs of the server's settings, with the capture store and a SQLite
    file as absolute paths (a worker runs in a directory of its own). UsageError for an
    in-memory database, which no other process can open."""
    from sqlalchemy.engine import make_url

    values = {name: getattr(settings, name) for name in JOB_SETTINGS}
    values["data_dir"] = Path(settings.data_dir).resolve()
    url = make_url(str(settings.database_url))
    if url.get_backend_name() == "sqlite":
        if url.database in (None, "", ":memory:"):
            raise UsageError("an in-memory SQLite database cannot be shared with Dask workers: "
                             "give TRACEPCAP_DATABASE_URL a file, or PostgreSQL")
        values["database_url"] = url.set(database=str(Path(url.database).resolve())).render_as_string(
            hide_password=False)
    return values


def _cause(err: BaseException) -> str:
    """The sentence a capture gets when its task failed (not its analysis: that records its own)."""
    if type(err).__name__ == "KilledWorker":
        return ("its analysis was lost: the Dask workers running it died (out of memory or killed); "
                "the workers' logs say why")
    return (f"internal error ({type(err).__name__}) while running its analysis on the Dask cluster; "
            f"the server log and {WORKER_LOG} have the details")


class DaskAnalyses:
    """Sends analyses to the cluster of `settings.dask_cluster` and waits for them.

    `analyze(capture_id, cancelled)` is what the server's AnalysisWorker calls in each of its
    threads; `slots()` is how many of those there should be. `close()` at shutdown."""

    def __init__(self, settings: Settings, db: Database, registry: Registry | None = None) -> None:
        cluster = settings.dask_cluster
        if cluster is None:
            raise ValueError("DaskAnalyses needs a Dask scheduler (TRACEPCAP_DASK_SCHEDULER)")
        cluster.check()  # SchedulerRefused before anything is sent
        self.settings, self.db, self.registry, self.cluster = settings, db, registry, cluster
        self._job_settings = job_settings(settings)
        self._client: Any = None
        self._lock = threading.Lock()
        self._closed = False
        self._fallback = settings.analysis_workers

    def client(self) -> Any:
        """The one client of this server (connected on first use, again after it closed)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("the server is stopping: no more analyses are sent")
            if self._client is None or self._client.status in ("closing", "closed"):
                from distributed import Client
                self._client = Client(self.cluster.address, security=self.cluster.security(),
                                      set_as_default=False, timeout="10s")
            return self._client

    def slots(self) -> int:
        """The cluster's worker threads: how many analyses run at once. Without an answer
        from the scheduler, TRACEPCAP_ANALYSIS_WORKERS (what runs here then)."""
        try:
            workers = self.client().scheduler_info()["workers"].values()
        except Exception as err:  # noqa: BLE001 - named boundary: the scheduler's answer
            log.warning("the Dask scheduler %s did not say its size (%s: %s); %d analyses at once",
                        self.cluster.address, type(err).__name__, err, self._fallback)
            return self._fallback
        return max(1, sum(int(w.get("nthreads", 1)) for w in workers))

    def close(self) -> None:
        """Disconnect: tasks still waiting on the cluster are dropped (their captures stay
        queued, for the next start), running ones finish on their workers and record their
        outcome; the threads waiting for them return."""
        with self._lock:
            self._closed = True
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def analyze(self, capture_id: str, cancelled: Callable[[], bool]) -> object:
        """Run the capture's analysis on the cluster and wait for it; its status (None when
        the server stopped waiting: the capture was cancelled, or the server is stopping). A
        task the cluster lost (the scheduler restarted, the connection to it broke) is sent
        again, LOST_TRIES times in all; past them the capture is failed, saying so."""
        for attempt in range(1, LOST_TRIES + 1):
            if self._closed:
                return None
            try:
                client = self.client()
            except Exception as err:  # noqa: BLE001 - named boundary: an unreachable scheduler
                log.warning("the Dask scheduler %s cannot be reached (%s: %s); analyzing capture %s in this "
                            "process", self.cluster.address, type(err).__name__, err, capture_id)
                return analyze(self.db, self.settings, capture_id, self.registry, cancelled=cancelled)
            outcome = self._run(client, capture_id, cancelled)
            if outcome is not LOST:
                return outcome
            log.warning("the Dask cluster lost the task analyzing capture %s (try %d of %d)",
                        capture_id, attempt, LOST_TRIES)
        return record_failure(self.db, capture_id, "", f"its analysis was lost by the Dask cluster {LOST_TRIES} "
                              "times (the scheduler restarted, or could not be reached); upload it again later")

    def _run(self, client: Any, capture_id: str, cancelled: Callable[[], bool]) -> object:
        """One task: its outcome, None, or LOST."""
        from distributed.comm import CommClosedError

        job = Job(capture_id, stage_token(), self._job_settings, self._registry_to_send())
        future = client.submit(run_job, job, key=f"tracepcap-analysis-{capture_id}-{job.stage_token}",
                               pure=False)
        try:
            while not future.done():
                if cancelled():
                    self._cancel(client, future, job)
                    return None
                time.sleep(POLL_SECONDS)
            if future.status == "cancelled":
                if self._closed or client.status in ("closing", "closed"):
                    return None  # the server is stopping: the capture is queued again at its next start
                return self._lost(job)  # cancelled by the scheduler, not by this server
            return future.result()
        except (CommClosedError, OSError) as err:
            log.warning("capture %s: %s: %s", capture_id, type(err).__name__, err)
            return self._lost(job)
        except Exception as err:  # noqa: BLE001 - named boundary: one task on the cluster
            log.error("the Dask task analyzing capture %s failed (%s: %s)", capture_id, type(err).__name__, err)
            return record_failure(self.db, capture_id, stage_id_of(job.stage_token), _cause(err))
        finally:
            future.release()

    @staticmethod
    def _lost(job: Job) -> object:
        """The task is gone from the scheduler. A worker may still be running it, unknown to the
        scheduler: it is left to finish (its swap is as good as the next try's); if it died, what
        it staged goes when the server next starts (store/staging.py `drop_stages`)."""
        log.info("capture %s: task %s lost", job.capture_id, job.stage_token)
        return LOST

    def _registry_to_send(self) -> Registry | None:
        from .adjudicate.registry import get_registry
        return None if self.registry is None or self.registry is get_registry() else self.registry

    def _cancel(self, client: Any, future: Any, job: Job) -> None:
        from distributed import Event
        try:
            Event(job.cancel_event, client=client).set()
            client.cancel([future])
        except Exception as err:  # noqa: BLE001 - named boundary: the capture's row still tells the task
            log.warning("could not tell the Dask task of capture %s to stop (%s: %s)",
                        job.capture_id, type(err).__name__, err)
