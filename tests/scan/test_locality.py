"""Issue 11 item 2: Scan stores each host's locality and its reason on the host row; a
re-analysis carries them through the staging swap; rows from before migration 0006 read as
not decided (NULL), never as a guess."""

from __future__ import annotations

from datetime import UTC, datetime

from alembic import command
from sqlalchemy import create_engine, select, text, update
from sqlalchemy.orm import Session

from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file
from tracepcap.present.read.document import host_documents
from tracepcap.store.db import alembic_config
from tracepcap.store.models import Host


def test_a_reanalysis_rewrites_the_locality_through_the_swap(db, settings, captures):
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "dns_demo.pcap", uploaded_by="system",
                                max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    with db.session() as s:
        first = dict(s.execute(select(Host.ip, Host.locality).where(Host.capture_id == cid)).all())
        s.execute(update(Host).where(Host.capture_id == cid).values(locality=None, locality_reason=None))
    assert first["192.168.1.1"] == "on-link" and None not in first.values()
    assert analyze(db, settings, cid) == "done"
    with db.session() as s:
        again = s.execute(select(Host.ip, Host.locality, Host.locality_reason)
                          .where(Host.capture_id == cid)).all()
    assert {ip: locality for ip, locality, _ in again} == first
    assert all(reason for _, _, reason in again)


def test_hosts_from_before_the_migration_have_no_locality(db_url):
    engine = create_engine(db_url)
    cfg = alembic_config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "0005")
        connection.execute(text("INSERT INTO capture (id, sha256, name, size, format, status, progress_bytes, "
                                "uploaded_at, uploaded_by) VALUES ('c1', :sha, 'n', 1, 'pcap', 'done', 0, "
                                ":at, 'system')"), {"sha": "c1" * 32, "at": datetime.now(UTC)})
        connection.execute(text("INSERT INTO host (capture_id, ip, position) VALUES ('c1', '10.0.0.1', 0)"))
        command.upgrade(cfg, "head")
        with Session(bind=connection) as session:
            [host] = host_documents(session, "c1", get_registry())
        assert (host["ip"], host["locality"], host["locality_reason"]) == ("10.0.0.1", None, None)
        command.downgrade(cfg, "0005")
        assert connection.execute(text("SELECT ip, position FROM host")).all() == [("10.0.0.1", 0)]
    engine.dispose()
