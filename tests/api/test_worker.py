"""The analysis worker's queue: a capture deleted while waiting is never analyzed, one deleted
while analyzed is told to stop, and the queue goes on (issue 17, item 3)."""

from __future__ import annotations

import threading

import pytest

from tracepcap.present.worker import AnalysisWorker


class Recorder:
    """A stand-in analysis: "slow" runs until cancelled (or 10 s), others return at once."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.stopped_by_cancel: list[str] = []
        self.slow_running = threading.Event()
        self.done = threading.Event()

    def __call__(self, capture_id: str, cancelled) -> None:
        self.started.append(capture_id)
        if capture_id == "slow":
            self.slow_running.set()
            for _ in range(1000):
                if cancelled():
                    self.stopped_by_cancel.append(capture_id)
                    break
                threading.Event().wait(0.01)
        if capture_id == "last":
            self.done.set()


def test_cancel_stops_the_running_analysis_and_drops_a_waiting_one():
    analysis = Recorder()
    worker = AnalysisWorker(analysis)
    worker.start()
    try:
        for cid in ("slow", "dropped", "last"):
            worker.submit(cid)
        assert analysis.slow_running.wait(5)
        assert worker.cancel("dropped") is True
        assert worker.cancel("slow") is True
        assert analysis.done.wait(5)
    finally:
        worker.stop()
    assert analysis.started == ["slow", "last"]
    assert analysis.stopped_by_cancel == ["slow"]


def test_cancel_of_a_capture_neither_waiting_nor_running_is_refused_and_forgotten():
    analysis = Recorder()
    worker = AnalysisWorker(analysis)
    assert worker.cancel("never-submitted") is False
    worker.start()
    try:
        worker.submit("never-submitted")
        worker.submit("last")
        assert analysis.done.wait(5)
    finally:
        worker.stop()
    assert analysis.started == ["never-submitted", "last"]  # an old cancel does not stick


def test_a_long_analysis_does_not_hold_back_the_next_capture():
    """With two threads a capture that runs long (a bomb at its read limits) is analyzed
    beside the next upload, which finishes while the first is still running."""
    analysis = Recorder()
    worker = AnalysisWorker(analysis, threads=2)
    worker.start()
    try:
        worker.submit("slow")
        assert analysis.slow_running.wait(5)
        worker.submit("last")
        assert analysis.done.wait(5)
        assert analysis.stopped_by_cancel == [] and worker.cancel("slow") is True  # still running
    finally:
        worker.stop()
    assert analysis.started == ["slow", "last"]
    assert analysis.stopped_by_cancel == ["slow"]


def test_a_worker_needs_a_thread():
    with pytest.raises(ValueError, match="at least one thread"):
        AnalysisWorker(Recorder(), threads=0)


def test_a_thread_count_asked_of_a_cluster_grows_with_it_and_never_shrinks():
    """With a Dask scheduler the thread count is the cluster's worker threads, asked at start
    and again as it goes: workers that join add waiting threads; ones that leave take none."""
    sizes = iter([1, 3, 2])
    last = [3]

    def cluster_threads() -> int:
        last[0] = next(sizes, last[0])
        return last[0]

    analysis = Recorder()
    worker = AnalysisWorker(analysis, threads=cluster_threads, resize_seconds=0.02)
    worker.start()
    try:
        assert worker.threads >= 1
        deadline = threading.Event()
        for _ in range(250):
            if worker.threads == 3:
                break
            deadline.wait(0.02)
        assert worker.threads == 3
        deadline.wait(0.1)  # the cluster said 2 meanwhile
        assert worker.threads == 3
        for cid in ("a", "b", "last"):
            worker.submit(cid)
        assert analysis.done.wait(5)
    finally:
        worker.stop()
    assert sorted(analysis.started) == ["a", "b", "last"]
