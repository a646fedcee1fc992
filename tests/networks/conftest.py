"""Networks of synthetic office weeks (support.office_weeks), analysed on the test's store."""

from __future__ import annotations

import pytest

from tracepcap.adjudicate import networks
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file


class Office:
    """Builds weeks, puts them into networks, reads verdicts back."""

    def __init__(self, db, settings, tmp_path) -> None:
        self.db, self.settings, self.tmp = db, settings, tmp_path
        self.registry = get_registry()

    def network(self, name: str) -> str:
        with self.db.session(write=True) as s:
            return networks.create_network(s, name, actor=SYSTEM_ACTOR).id

    def add(self, network: str | None, n: int, week, tag: str = "") -> str:
        from support.office_weeks import write_week
        path = write_week(self.tmp / f"{network or 'none'}-week{n}{tag}.pcap", n, week)
        with self.db.session(write=True) as s:
            capture, _ = store_file(s, self.settings.capture_dir, path, uploaded_by="system", max_bytes=1 << 30)
            cid = capture.id
            if network:
                networks.attach(s, networks.find_network(s, network), cid, actor=SYSTEM_ACTOR)
        assert analyze(self.db, self.settings, cid) == "done"
        return cid

    def act(self, fn):
        with self.db.session(write=True) as s:
            return fn(s, self.registry)


@pytest.fixture
def office(db, settings, tmp_path):
    return Office(db, settings, tmp_path)
