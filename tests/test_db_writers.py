"""Writing units of work on SQLite take turns in the process (one lock per database file) and
hold the write lock from their first statement; a writer that waits too long is refused with
Busy, never left hanging. On PostgreSQL writing units of work run side by side."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest
from sqlalchemy import func, select

from tracepcap.errors import Busy
from tracepcap.store import db as store_db
from tracepcap.store import open_database
from tracepcap.store.models import Capture


def _capture(cid: str) -> Capture:
    return Capture(id=cid, sha256=cid * 4, name=f"{cid}.pcap", size=1, format="pcap", status="done",
                   progress_bytes=0, uploaded_at=datetime.now(UTC), uploaded_by="test")


def test_a_second_writer_waits_for_the_first_and_reads_what_it_wrote(db):
    first_in, release = threading.Event(), threading.Event()
    seen: list[int] = []

    def first():
        with db.session(write=True) as s:
            s.add(_capture("a" * 16))
            s.flush()
            first_in.set()
            release.wait(10)

    def second():
        with db.session(write=True) as s:
            seen.append(s.scalar(select(func.count()).select_from(Capture)))
            s.add(_capture("b" * 16))

    t1 = threading.Thread(target=first)
    t1.start()
    assert first_in.wait(10)
    t2 = threading.Thread(target=second)
    t2.start()
    time.sleep(0.3)
    waited = t2.is_alive()
    release.set()
    t1.join(10), t2.join(30)
    with db.session() as s:
        assert s.scalar(select(func.count()).select_from(Capture)) == 2
    if db.is_sqlite:
        assert waited and seen == [1]  # it began after the first committed: it saw its row
    else:
        assert seen == [0]  # PostgreSQL: side by side, each in its own snapshot


@pytest.fixture
def sqlite_db(tmp_path):
    database = open_database(f"sqlite:///{tmp_path / 'writers.sqlite3'}")  # SQLite only: PostgreSQL
    yield database  # writers take no turns in the process
    database.dispose()


def test_a_sqlite_writer_that_gets_no_turn_in_time_is_refused(sqlite_db, monkeypatch):
    db = sqlite_db
    monkeypatch.setattr(store_db, "POOL_WAIT_SECONDS", 0.2)
    holding, release = threading.Event(), threading.Event()

    def hold():
        with db.session(write=True):
            holding.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    assert holding.wait(10)
    try:
        with pytest.raises(Busy, match="nothing was done"):
            with db.session(write=True):
                pass
    finally:
        release.set()
        t.join(10)
    with db.session(write=True) as s:  # the turn came back
        s.add(_capture("c" * 16))
