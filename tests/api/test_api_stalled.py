"""A capture stuck in `analyzing` (its analysis died and its outcome was never recorded) is
queued again by the next upload of the same bytes, and by the server's own look for stalled
analyses once its lease has run out (issue 23, item 4)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

from api_helpers import DNS_DEMO

from tracepcap.store.models import Capture, CaptureStatus


def _stall(db, cid: str, *, ago: timedelta) -> None:
    """What a server killed mid-analysis (or one that could not record a failure) leaves."""
    with db.session(write=True) as s:
        capture = s.get(Capture, cid)
        capture.status, capture.progress_bytes = CaptureStatus.ANALYZING, 10
        capture.heartbeat_at = datetime.now(UTC) - ago


def test_the_upload_of_the_same_bytes_queues_a_stalled_capture_again(api, client, captures):
    cid = api.analyzed(client, captures / DNS_DEMO)
    _stall(api.db, cid, ago=timedelta(hours=2))
    again = api.upload(client, captures / DNS_DEMO)
    assert again.status_code == 200 and again.json()["id"] == cid
    assert again.json()["status"] in ("queued", "analyzing", "done")
    capture = api.wait(client, cid)
    assert capture["status"] == "done"


def test_an_upload_leaves_an_analysis_within_its_lease_alone(api, client, captures):
    cid = api.analyzed(client, captures / DNS_DEMO)
    _stall(api.db, cid, ago=timedelta(seconds=5))  # quiet, but within the 900 s lease
    again = api.upload(client, captures / DNS_DEMO)
    assert again.status_code == 200 and again.json()["status"] == "analyzing"
    time.sleep(0.3)
    assert client.get(f"/captures/{cid}").json()["status"] == "analyzing"


def test_the_server_finds_a_stalled_capture_by_itself_and_says_why(serve, captures):
    api = serve(analysis_lease_seconds=0.4)
    with api.client() as client:
        cid = api.analyzed(client, captures / DNS_DEMO)
        _stall(api.db, cid, ago=timedelta(seconds=1))
        capture = api.wait(client, cid, timeout=30)
    assert capture["status"] == "done"
    with api.db.session() as s:
        assert s.get(Capture, cid).error is None  # the note went with the analysis that finished
