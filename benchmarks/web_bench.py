"""Server time of the web UI's pages on a capture with many hosts.

Builds a capture of N hosts (default 5,000) straight in the store (hosts, MAC/vendor/TTL/
served facts, conversations, votes for every question), adjudicates it once, records a few
human actions on one host, then requests the pages through the app in-process and times each
request inside the server (from the first byte of the request to the last of the response):
the capture page (its first page of the host table), the table sorted by a question and
filtered, the topology, a host page and one panel. Prints median and p95 in milliseconds.

    .venv/bin/python benchmarks/web_bench.py [--hosts 5000] [--repeat 50] [--db URL]

With --db on PostgreSQL use an empty database or schema (e.g. `...?options=-csearch_path%3Dbench`).
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

warnings.filterwarnings("ignore", message="Using `httpx` with `starlette.testclient`")  # noqa: E402 (before the import)
from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import insert

from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import adjudicate_capture
from tracepcap.present.api import create_app
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.store.models import Capture, Conversation, Finding, Host, ObservationRow, VoteRow

CID = "0eb0be4c00000001"  # hex, as capture references are
LABELS = {"host-identity": ("Router", "DNS Server", "Web Server", "Workstation", "Printer", "Mobile"),
          "os-family": ("Windows", "Linux", "macOS"), "node-role": ("File Server", "Web Server"),
          "hostname": ("host",)}
VENDORS = ("Cisco Systems", "Dell Inc.", "Hewlett Packard", "Apple, Inc.", "Raspberry Pi Trading")


def ip(i: int) -> str:
    return f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"


def fact(entity: str, kind: str, value: str, frame: int) -> dict:
    return {"capture_id": CID, "entity": entity, "kind": kind, "value": value, "source": "bench",
            "grade": "MEASURED", "first_frame": frame, "last_frame": frame + 10, "count": 5, "first_time": 0.0,
            "last_time": 1.0, "extractor": "bench", "extractor_version": "1"}


def build(db, hosts: int, rng: random.Random) -> None:
    ips = [ip(i) for i in range(hosts)]
    servers = ips[:50]
    with db.session() as s:
        s.add(Capture(id=CID, sha256="b" * 64, name="bench.pcap", size=10**9, format="pcap", status="done",
                      progress_bytes=10**9, packets=10**7, conversations=hosts * 5,
                      uploaded_at=datetime.now(UTC), uploaded_by="bench"))
        s.flush()
        s.execute(insert(Host), [{"capture_id": CID, "ip": a, "position": i} for i, a in enumerate(ips)])
        facts, votes, conversations = [], [], []
        for i, a in enumerate(ips):
            facts += [fact(a, "mac", f"02:00:{i >> 24 & 255:02x}:{i >> 16 & 255:02x}:{i >> 8 & 255:02x}:{i & 255:02x}", i),
                      fact(a, "oui-vendor", rng.choice(VENDORS), i), fact(a, "ttl", rng.choice(("64", "128")), i),
                      fact(a, "served", rng.choice(("tcp/80", "udp/53", "tcp/445")), i)]
            for question, labels in LABELS.items():
                for signal in ("one", "two"):
                    label, weight = rng.choice(labels), rng.randint(5, 60)
                    label = f"{label}-{i}" if question == "hostname" else label
                    votes.append({"capture_id": CID, "question": question, "entity_key": a, "signal": signal,
                                  "label": label, "weight": weight, "reason": f"{signal} says {label} (+{weight})",
                                  "grade": "MEASURED", "frames": [i + 1]})
            for peer in rng.sample(servers, 5):
                if peer != a:
                    conversations.append({"capture_id": CID, "proto": "tcp", "src": a, "sport": 40000, "dst": peer,
                                          "dport": 80, "first_time": 0.0, "last_time": 1.0, "first_frame": i,
                                          "packets_fwd": 10, "bytes_fwd": rng.randint(100, 10**6),
                                          "packets_rev": 10, "bytes_rev": rng.randint(100, 10**6), "initiator": a})
        # findings as a large capture has them: one spoofing conflict, and the CDN names a tenth
        # of the hosts share by certificate grouped in one line (issue 15)
        s.add(Finding(capture_id=CID, kind="ip-mac-conflict", severity="high", entities=[ips[1], ips[2]],
                      summary=f"{ips[1]} was claimed by 2 MACs", frames=[1, 2]))
        s.add(Finding(capture_id=CID, kind="name-shared", severity="low", entities=ips[::10],
                      summary="names served by certificate from several hosts each", frames=[3]))
        for table, rows in ((ObservationRow, facts), (VoteRow, votes), (Conversation, conversations)):
            for start in range(0, len(rows), 5000):
                s.execute(insert(table), rows[start:start + 5000])


def timed(app):
    """The app, recording the server time of each HTTP request."""
    times: list[float] = []

    async def wrapper(scope, receive, send):
        started = time.perf_counter()
        await app(scope, receive, send)
        if scope["type"] == "http":
            times.append((time.perf_counter() - started) * 1000)
    return wrapper, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), database_url=args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
        db = open_database(settings.database_url)
        registry = get_registry()
        t0 = time.perf_counter()
        build(db, args.hosts, rng)
        adjudicate_capture(db, registry, CID)
        if db.engine.dialect.name == "postgresql":
            # the statistics autovacuum gathers within a minute of a bulk load; without them the
            # planner takes thousands of fresh rows for a handful and may pick nested loops
            with db.engine.begin() as connection:
                connection.exec_driver_sql("ANALYZE")
        built = time.perf_counter() - t0
        host = ip(args.hosts // 2)
        key = Key("host-identity", CID, host)
        for action in (lambda s: annotations.add_evidence(s, registry, key, "Printer", 30, "a label on the case", actor=SYSTEM_ACTOR),
                       lambda s: annotations.dismiss(s, registry, key, "Mobile", "it is racked", actor=SYSTEM_ACTOR),
                       lambda s: annotations.set_override(s, registry, key, "Router", "the diagram", actor=SYSTEM_ACTOR)):
            with db.session() as s:
                action(s)
        app, times = timed(create_app(settings, db=db, registry=registry))
        pages = {
            "capture page (first 50 hosts of the table)": f"/captures/{CID}",
            "host table: sorted by host-identity, page 40": f"/ui/captures/{CID}/hosts?sort=host-identity&page=40",
            "host table: filtered by text ('dell')": f"/ui/captures/{CID}/hosts?q=dell",
            "topology (250 busiest hosts)": f"/ui/captures/{CID}/topology",
            "host page (facts and every panel)": f"/captures/{CID}/hosts/{host}",
            "one panel (after a human action)": f"/ui/captures/{CID}/hosts/{host}/panels/host-identity",
            "host table: hosts a finding names": f"/ui/captures/{CID}/hosts?mark=finding",
            "audit page": f"/captures/{CID}/audit",
            "GET /api/captures/{cid}/audit": f"/api/captures/{CID}/audit",
        }
        results = {}
        with TestClient(app, base_url="http://localhost") as client:  # an allowed host
            for name, path in pages.items():
                assert client.get(path).status_code == 200, path  # warm-up
                times.clear()
                for _ in range(args.repeat):
                    client.get(path)
                results[name] = sorted(times)
        db.dispose()
    print(f"database: {db.engine.dialect.name}, hosts: {args.hosts}, facts: {args.hosts * 4}, "
          f"votes: {args.hosts * 8}, conversations: ~{args.hosts * 5}; built and adjudicated in {built:.1f} s")
    print(f"{'server time per request (' + str(args.repeat) + ' requests)':<48} {'median ms':>10} {'p95 ms':>8}")
    for name, values in results.items():
        p95 = values[max(0, int(len(values) * 0.95) - 1)]
        print(f"{name:<48} {statistics.median(values):>10.1f} {p95:>8.1f}")


if __name__ == "__main__":
    main()
