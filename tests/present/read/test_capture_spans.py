"""The captures list's span and findings count: each capture's own first and last packet
time (not its upload time) and how many findings it holds, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime

from tracepcap.present.read.capture_spans import CaptureSpan, capture_spans
from tracepcap.store.models import Capture, Finding

T0 = datetime(2024, 3, 1, 8, 0, 0, tzinfo=UTC)


def _capture(cid: str, first: float | None, last: float | None) -> Capture:
    return Capture(id=cid, sha256=cid * 4, name=f"{cid}.pcap", size=1, format="pcap", status="done",
                   progress_bytes=1, first_time=first, last_time=last, uploaded_at=datetime.now(UTC),
                   uploaded_by="system")


def test_spans_and_findings_per_capture(db):
    start = T0.timestamp()
    with db.session(write=True) as s:
        s.add_all([_capture("a" * 16, start, start + 7530.4), _capture("b" * 16, None, None)])
        s.flush()
        s.add_all([Finding(capture_id="a" * 16, kind=k, severity="high", entities=["10.0.0.1"], summary=k, frames=[1])
                   for k in ("dns-spoofing", "ip-mac-conflict")])
    with db.session() as s:
        spans = capture_spans(s, ["b" * 16, "a" * 16, "c" * 16])
    assert set(spans) == {"a" * 16, "b" * 16}  # an unknown id is no capture
    a, b = spans["a" * 16], spans["b" * 16]
    assert (a.first, a.findings, a.duration) == (T0, 2, "2 h 5 min")
    assert a.last is not None and round(a.seconds, 1) == 7530.4
    assert (b.first, b.last, b.findings, b.duration) == (None, None, 0, "—")


def test_durations_read_short_and_long():
    def span(seconds: float) -> str:
        return CaptureSpan(T0, datetime.fromtimestamp(T0.timestamp() + seconds, tz=UTC), 0).duration
    assert span(0.34) == "0.3 s"
    assert span(41) == "41 s"
    assert span(3 * 86400 + 5) == "3 d"  # the seconds are below its second unit
    assert span(90061) == "1 d 1 h"
