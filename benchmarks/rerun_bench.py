"""Re-adjudicating one entity after a human action, on a capture with many hosts.

Builds a capture of N entities (default 10,000; half of them MAC-keyed devices named by their
address in the actions, so the resolver is timed too) with stored votes straight in the store, runs the
whole-capture adjudication once, then times override / evidence / clear actions on random
hosts: each includes validation, the write, the audit event and the synchronous re-adjudication
of that one key. Prints median and p95 in milliseconds.

    .venv/bin/python benchmarks/rerun_bench.py [--hosts 10000] [--db URL] [--actions 200]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import insert

from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import adjudicate_capture
from tracepcap.store import open_database
from tracepcap.store.models import Capture, Entity, EntityMember, Host, VoteRow

LABELS = ("Router", "DNS Server", "Web Server", "Workstation", "Printer", "Mobile")


def build(db, hosts: int, rng: random.Random) -> str:
    cid = "bench0000000000a"
    with db.session() as s:
        s.add(Capture(id=cid, sha256="0" * 64, name="bench", size=0, format="pcap", status="done",
                      progress_bytes=0, uploaded_at=datetime.now(UTC), uploaded_by="bench"))
        s.flush()
        ips = [f"10.{i // 65536}.{i // 256 % 256}.{i % 256}" for i in range(hosts)]
        s.execute(insert(Host), [{"capture_id": cid, "ip": ip, "position": i} for i, ip in enumerate(ips)])
        # every other host is an on-link device keyed by its MAC (issue 11): actions name it by
        # its address, so each one also goes through the entity resolver
        keys = [f"mac-02-00-00-{i // 65536 % 256:02x}-{i // 256 % 256:02x}-{i % 256:02x}" if i % 2 else ip
                for i, ip in enumerate(ips)]
        s.execute(insert(Entity), [{"capture_id": cid, "key": key, "position": i, "ip": ip, "addresses": [ip],
                                    "macs": [], "randomised": False} for i, (ip, key) in enumerate(zip(ips, keys))])
        s.execute(insert(EntityMember), [{"capture_id": cid, "member": m, "entity_key": key}
                                         for ip, key in zip(ips, keys) for m in dict.fromkeys((key, ip))])
        votes = []
        for ip in keys:
            for signal in ("oui_vendor", "ttl_class", "services_answered", "traffic_pattern"):
                label, weight = rng.choice(LABELS), rng.randint(5, 60)
                votes.append({"capture_id": cid, "question": "host-identity", "entity_key": ip,
                              "signal": signal, "label": label, "weight": weight,
                              "reason": f"{signal} says {label} (+{weight})", "grade": "MEASURED",
                              "frames": [rng.randint(1, 10**6)]})
        for start in range(0, len(votes), 5000):
            s.execute(insert(VoteRow), votes[start:start + 5000])
    return cid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=10_000)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        db = open_database(args.db or f"sqlite:///{Path(tmp) / 'bench.sqlite3'}")
        registry = get_registry()
        cid = build(db, args.hosts, rng)
        started = time.perf_counter()
        adjudicate_capture(db, registry, cid)
        whole = time.perf_counter() - started
        ips = [f"10.{i // 65536}.{i // 256 % 256}.{i % 256}" for i in range(args.hosts)]
        timings: dict[str, list[float]] = {"override.set": [], "evidence.added": [], "override.cleared": []}
        for _ in range(args.actions):
            key = Key("host-identity", cid, rng.choice(ips))
            for action, call in (
                    ("override.set", lambda s: annotations.set_override(s, registry, key, "Router", "bench", actor=SYSTEM_ACTOR)),
                    ("evidence.added", lambda s: annotations.add_evidence(s, registry, key, "Printer", 30, "bench", actor=SYSTEM_ACTOR)),
                    ("override.cleared", lambda s: annotations.clear_override(s, registry, key, actor=SYSTEM_ACTOR))):
                t0 = time.perf_counter()
                with db.session() as s:
                    call(s)
                timings[action].append((time.perf_counter() - t0) * 1000)
        db.dispose()
    print(f"database: {db.engine.dialect.name}, hosts: {args.hosts}, votes: {args.hosts * 4}")
    print(f"whole-capture adjudication (all questions): {whole:.2f} s")
    print(f"{'action (write + audit + re-adjudicate one key)':<48} {'median ms':>10} {'p95 ms':>8}")
    for action, values in timings.items():
        values.sort()
        p95 = values[int(len(values) * 0.95) - 1]
        print(f"{action:<48} {statistics.median(values):>10.2f} {p95:>8.2f}")


if __name__ == "__main__":
    main()
