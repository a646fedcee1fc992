"""The background analysis worker of the embedded runtime: one thread, one queue.

Uploads return at once; the worker analyzes queued captures one at a time, in the order they
were submitted, calling the same `analysis.analyze` as the CLI. A capture already waiting is
not queued twice. Stopping does not wait for the queue to drain: captures still `queued`
(or cut short while `analyzing`) are submitted again when the next app starts.

`cancel` (called when a capture is deleted) drops a waiting capture from the queue and stops
the one being analyzed at its next progress tick, so a capture too big to be worth it is not
a wall in front of every later upload. How long one capture can hold the worker is bounded
by the read limits (TRACEPCAP_MAX_DECOMPRESSED_BYTES, TRACEPCAP_MAX_RECORDS).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class AnalysisWorker:
    def __init__(self, analyze: Callable[[str, Callable[[], bool]], object], *,
                 name: str = "tracepcap-analysis") -> None:
        """`analyze(capture_id, cancelled)` runs one analysis, asking `cancelled()` as it goes."""
        self._analyze = analyze
        self._name = name
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._waiting: set[str] = set()
        self._current: str | None = None
        self._cancelled: set[str] = set()  # waiting or current captures whose analysis must stop
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stopping.clear()
        self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
        self._thread.start()

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
            if capture_id not in self._waiting and capture_id != self._current:
                return False
            self._cancelled.add(capture_id)
            return True

    def stop(self, timeout: float = 10.0) -> None:
        """Stop after the capture being analyzed, if any (waiting at most `timeout`)."""
        self._stopping.set()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.warning("analysis worker still busy after %.0f s; leaving it to finish", timeout)

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
                self._current = capture_id
            try:
                self._analyze(capture_id, lambda: capture_id in self._cancelled)
            except Exception:  # noqa: BLE001 - named boundary: one analysis job
                log.exception("analysis of capture %s stopped with an error", capture_id)
            finally:
                with self._lock:
                    self._current = None
                    self._cancelled.discard(capture_id)
