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
from tracepcap.scan.context import CaptureContext, Fact
from tracepcap.scan.locality import localities
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
        assert (host.ip, host.locality, host.locality_reason) == ("10.0.0.1", None, None)
        command.downgrade(cfg, "0005")
        assert connection.execute(text("SELECT ip, position FROM host")).all() == [("10.0.0.1", 0)]
    engine.dispose()


def _fact(kind: str, value: str, count: int = 10) -> Fact:
    return Fact(kind, value, "link-identity", "MEASURED", 1, 1, count)


def test_each_reason_says_what_placed_the_host():
    facts = {
        "192.168.5.2": [_fact("mac", "02:00:00:00:00:01"), _fact("ttl", "64")],  # owns it: zero hops
        "10.9.0.7": [_fact("mac", "02:00:00:00:00:01", 3), _fact("ttl", "62")],  # behind it, 2 hops
        "10.9.0.8": [_fact("ttl", "61")],  # no MAC seen, 3 hops
        "172.16.0.9": [_fact("ttl", "128")],  # no MAC anywhere, zero hops: on the segment
        "198.51.100.1": [_fact("ttl", "63")],
    }
    context = CaptureContext("c1", facts, {}, list(facts))
    found = {h.ip: (h.label, h.reason) for h in localities(context)}  # by entity key
    assert found == {
        "mac-02-00-00-00-00-01": ("on-link", "owns 02:00:00:00:00:01 (192.168.5.2 is the one address sending "
                                             "from 02:00:00:00:00:01 with an unspent initial TTL)"),
        "10.9.0.7": ("local-routed", "a site-local address 2 hops away, seen through 02:00:00:00:00:01, "
                                     "which 192.168.5.2 owns"),
        "10.9.0.8": ("local-routed", "a site-local address 3 hops away, seen without a MAC address"),
        "172.16.0.9": ("on-link", "a site-local address zero hops away, seen without a MAC address"),
        "198.51.100.1": ("remote", "a public address 1 hop away, seen without a MAC address"),
    }
