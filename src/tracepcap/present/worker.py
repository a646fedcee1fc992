"""The background analysis worker of the embedded runtime: a few threads, one queue.

Uploads return at once; the worker's threads (TRACEPCAP_ANALYSIS_WORKERS, default 2) take
queued captures in the order they were submitted, calling the same `analysis.analyze` as the
CLI, so one long capture never stops the next upload from being analyzed. A capture already waiting is
not queued twice. Stopping does not wait for the queue to drain: captures still `queued`
(or cut short while `analyzing`) are submitted again when the next app starts.

`cancel` (called when a capture is deleted) drops a waiting capture from the queue and stops
the one being analyzed at its next progress tick, so a capture too big to be worth it is not
a wall in front of every later upload. How long one capture can hold the worker is bounded
by the read limits (TRACEPCAP_MAX_DECOMPRESSED_BYTES, TRACEPCAP_MAX_RECORDS).

A capture whose analysis died without recording its outcome (another process killed, the
database down when the failure was to be written) stays `analyzing` with an ageing heartbeat.
With a `sweep` (ingest/lease.py `requeue_stalled`, given the captures this worker is busy
with) the worker looks for such stalled captures every `sweep_seconds` and queues them again;
`requeue_stalled(capture_id)` does so at once for one capture (the upload of the same bytes).

With a Dask scheduler (dask_analysis.py) each analysis runs on the cluster and a thread here
only waits for it, so the number of threads follows the cluster's: `threads` is then asked
(the scheduler's worker threads) at start and again every `resize_seconds`, and threads are
added when the cluster grew (never taken away: one more waiting thread costs nothing).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

RESIZE_SECONDS = 10.0

log = logging.getLogger(__name__)


class AnalysisWorker:
    def __init__(self, analyze: Callable[[str, Callable[[], bool]], object], *,
                 name: str = "tracepcap-analysis", threads: int | Callable[[], int] = 1,
                 sweep: Callable[[set[str], str | None], list[str]] | None = None,
                 sweep_seconds: float = 60.0, resize_seconds: float = RESIZE_SECONDS) -> None:
        """`analyze(capture_id, cancelled)` runs one analysis, asking `cancelled()` as it goes;
        `threads` analyses run at once (a callable: asked at start and every `resize_seconds`,
        the threads only ever added). `sweep(busy, capture_id)` returns the stalled captures
        (all, or only `capture_id`) it set back to queued, leaving out those in `busy`."""
        if isinstance(threads, int) and threads < 1:
            raise ValueError(f"an analysis worker needs at least one thread (got {threads})")
        self._analyze = analyze
        self._name = name
        self._threads_wanted = threads
        self._resize_seconds = resize_seconds
        self._runners: list[threading.Thread] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._waiting: set[str] = set()
        self._current: set[str] = set()
        self._cancelled: set[str] = set()  # waiting or current captures whose analysis must stop
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sweep, self._sweep_seconds = sweep, sweep_seconds

    @property
    def threads(self) -> int:
        """How many analyses run at once now."""
        return len(self._runners)

    def _wanted(self) -> int:
        wanted = self._threads_wanted
        return max(1, wanted() if callable(wanted) else wanted)

    def _grow(self, wanted: int) -> None:
        with self._lock:
            if self._stopping.is_set():
                return
            added = [threading.Thread(target=self._run, name=f"{self._name}-{n}", daemon=True)
                     for n in range(len(self._runners), wanted)]
            self._runners.extend(added)
        for thread in added:
            thread.start()
        if added and len(self._runners) > len(added):
            log.info("%d analyses at once now (the cluster grew)", len(self._runners))

    def start(self) -> None:
        self._stopping.clear()
        self._runners = []
        self._threads = []
        if self._sweep is not None:
            self._threads.append(threading.Thread(target=self._sweeping, name=f"{self._name}-lease", daemon=True))
        if callable(self._threads_wanted):
            self._threads.append(threading.Thread(target=self._resizing, name=f"{self._name}-size", daemon=True))
        self._grow(self._wanted())
        for thread in self._threads:
            thread.start()

    def _resizing(self) -> None:
        while not self._stopping.wait(self._resize_seconds):
            try:
                self._grow(self._wanted())
            except Exception:  # noqa: BLE001 - named boundary: one look at the cluster's size
                log.exception("asking how many analyses may run at once failed")

    def requeue_stalled(self, capture_id: str | None = None) -> list[str]:
        """Queue again the stalled captures (or only `capture_id`) the sweep set back to queued."""
        if self._sweep is None:
            return []
        with self._lock:
            busy = self._waiting | self._current
        requeued = self._sweep(busy, capture_id)
        for stalled in requeued:
            self.submit(stalled)
        return requeued

    def _sweeping(self) -> None:
        while not self._stopping.wait(self._sweep_seconds):
            try:
                self.requeue_stalled()
            except Exception:  # noqa: BLE001 - named boundary: one sweep; the next one tries again
                log.exception("looking for stalled analyses failed")

    def submit(self, capture_id: str) -> None:
        with self._lock:
            if capture_id in self._waiting:
                return
            self._waiting.add(capture_id)
        self._queue.put(capture_id)

    def cancel(self, capture_id: str) -> bool:
        """Drop the capture from the queue, or stop its running analysis; False when it was
        neither waiting nor being analyzed."""
        with self._lock:
            if capture_id not in self._waiting and capture_id not in self._current:
                return False
            self._cancelled.add(capture_id)
            return True

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the captures being analyzed, if any (waiting at most `timeout`)."""
        with self._lock:
            self._stopping.set()
            runners = list(self._runners)
        for _ in runners:
            self._queue.put(None)
        for thread in runners + self._threads:
            thread.join(timeout)
            if thread.is_alive():
                log.warning("%s still busy after %.0f s; leaving it to finish", thread.name, timeout)

    def _run(self) -> None:
        while not self._stopping.is_set():
            capture_id = self._queue.get()
            if capture_id is None or self._stopping.is_set():
                return
            with self._lock:
                self._waiting.discard(capture_id)
                if capture_id in self._cancelled:
                    self._cancelled.discard(capture_id)
                    continue
                self._current.add(capture_id)
            try:
                self._analyze(capture_id, lambda cid=capture_id: cid in self._cancelled)
            except Exception:  # noqa: BLE001 - named boundary: one analysis job
                log.exception("analysis of capture %s stopped with an error", capture_id)
            finally:
                with self._lock:
                    self._current.discard(capture_id)
                    self._cancelled.discard(capture_id)
