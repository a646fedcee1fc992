"""The background analysis worker of the embedded runtime: one thread, one queue.

Uploads return at once; the worker analyzes queued captures one at a time, in the order they
were submitted, calling the same `analysis.analyze` as the CLI. A capture already waiting is
not queued twice. Stopping does not wait for the queue to drain: captures still `queued`
(or cut short while `analyzing`) are submitted again when the next app starts.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class AnalysisWorker:
    def __init__(self, analyze: Callable[[str], object], *, name: str = "tracepcap-analysis") -> None:
        self._analyze = analyze
        self._name = name
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._waiting: set[str] = set()
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
            try:
                self._analyze(capture_id)
            except Exception:  # noqa: BLE001 - named boundary: one analysis job
                log.exception("analysis of capture %s stopped with an error", capture_id)
