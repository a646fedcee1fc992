"""A capture whose analysis fails while the store cannot record the failure (database down,
disk full) must not stay `analyzing` for ever (issue 23, item 4): the recording is tried again
with backoff; when it never takes, the capture's heartbeat ages past the lease and it is
queued again, its error saying why."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.exc import OperationalError

from tracepcap import analysis
from tracepcap.ingest import store_file
from tracepcap.ingest.lease import any_stalled, is_stalled, requeue_stalled
from tracepcap.store.models import Capture, CaptureStatus


def _stored(db, settings, captures) -> str:
    with db.session(write=True) as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "dns_demo.pcap", uploaded_by="test",
                                max_bytes=settings.max_capture_bytes)
        return capture.id


def _status(db, cid) -> Capture:
    with db.session() as s:
        return s.get(Capture, cid)


@pytest.fixture
def broken_scan(monkeypatch):
    def explode(*_a, **_k):
        raise RuntimeError("scan blew up")
    monkeypatch.setattr(analysis, "compute_scan", explode)
    monkeypatch.setattr(analysis, "RECORD_RETRY_SECONDS", (0.0, 0.0, 0.0))


def _failing_recorder(monkeypatch, failures: int) -> list[int]:
    """The store refuses the first `failures` attempts to record the failure."""
    calls = [0]
    real = analysis._fail

    def flaky(*args, **kwargs):
        calls[0] += 1
        if calls[0] <= failures:
            raise OperationalError("UPDATE capture", {}, Exception("database is down"))
        return real(*args, **kwargs)
    monkeypatch.setattr(analysis, "_fail", flaky)
    return calls


def test_a_failure_the_store_refuses_at_first_is_recorded_on_a_later_try(db, settings, captures, broken_scan,
                                                                          monkeypatch):
    cid = _stored(db, settings, captures)
    calls = _failing_recorder(monkeypatch, failures=2)
    assert analysis.analyze(db, settings, cid) == CaptureStatus.FAILED
    assert calls[0] == 3
    capture = _status(db, cid)
    assert capture.status == CaptureStatus.FAILED and "RuntimeError" in capture.error


def test_a_failure_never_recorded_is_said_and_the_capture_is_queued_again_past_its_lease(
        db, settings, captures, broken_scan, monkeypatch):
    cid = _stored(db, settings, captures)
    calls = _failing_recorder(monkeypatch, failures=99)
    with pytest.raises(analysis.FailureNotRecorded, match="could not be recorded"):
        analysis.analyze(db, settings, cid)
    assert calls[0] == 4  # the first try and one per pause
    capture = _status(db, cid)
    assert capture.status == CaptureStatus.ANALYZING and capture.heartbeat_at is not None
    with db.session(write=True) as s:  # within its lease: alive as far as anyone can tell
        assert not any_stalled(s, lease_seconds=3600)
        assert requeue_stalled(s, lease_seconds=3600) == []
    assert _status(db, cid).status == CaptureStatus.ANALYZING
    with db.session(write=True) as s:
        s.get(Capture, cid).heartbeat_at = datetime.now(UTC) - timedelta(hours=2)
    with db.session(write=True) as s:
        assert any_stalled(s, lease_seconds=3600) and not any_stalled(s, lease_seconds=3600, exclude={cid})
        assert requeue_stalled(s, lease_seconds=3600, exclude={cid}) == []  # this process is on it
        assert requeue_stalled(s, lease_seconds=3600) == [cid]
    capture = _status(db, cid)
    assert capture.status == CaptureStatus.QUEUED and "stalled" in capture.error
    assert not is_stalled(capture, 3600)
    monkeypatch.undo()  # the store and Scan work again: the queued capture analyzes to the end
    assert analysis.analyze(db, settings, cid) == CaptureStatus.DONE
    capture = _status(db, cid)
    assert capture.status == CaptureStatus.DONE and capture.error is None


def test_progress_ticks_keep_an_analysis_alive(db, settings, captures):
    cid = _stored(db, settings, captures)
    assert analysis.analyze(db, settings, cid) == CaptureStatus.DONE
    capture = _status(db, cid)
    assert capture.heartbeat_at is not None
    assert capture.heartbeat_at.replace(tzinfo=capture.heartbeat_at.tzinfo or UTC) >= \
        capture.uploaded_at.replace(tzinfo=capture.uploaded_at.tzinfo or UTC)
    assert not is_stalled(capture, 0)  # done is never stalled
