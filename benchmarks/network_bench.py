#!/usr/bin/env python3
"""Networks over time at size: a network of N captures x D devices (default 50 x 2,000),
rows synthesised directly in the store (analysing 50 real captures would time the analysis,
not the network). Prints figures, asserts nothing.

    .venv/bin/python benchmarks/network_bench.py [--captures 50] [--devices 2000] [--db URL]

Each capture holds what an analysis stores since devices (issue 11): D on-link devices, each an
`entity` keyed by its MAC (`mac-..`) with `entity_member` rows naming it (its address, every
fourth one an IPv6 address too, and its MAC key); facts on the members (a MAC fact and an ARP
binding per address, every tenth device serving tcp/445); a router device carrying 20 remote
hosts (entities keyed by address); one conversation per device to the upstream address; two
verdicts per device keyed by its entity key (host-identity, node-role). Between captures 2 % of
the devices are absent, 4 move to another MAC (a new device key holding the old address) and
one serves a new port. Capture 1 holds human answers keyed by entity key: 30 overrides, 10
accepted node-roles, 10 analyst evidence, 10 dismissals.

Timed:
1. the first recomputation over captures 1..N-1 (carry-forward and every pair's changes);
2. adding capture N (its rows already stored, as its analysis would leave them): attach +
   recompute carry-forward and changes - the issue's "< 5 s beyond its own analysis";
3. one human action on capture 1 (an override), which recomputes what the network carries;
4. the network page's server time: reading its context (captures, timeline, presence grid
   and inventory pages) and rendering the template - the issue's "< 500 ms".

`--series` instead analyses the test kit's eight-week office series (tests/support/office_weeks:
a baseline office, a personal laptop with a VPN, telnet and BitTorrent DHT, an FTP exfiltration
with a gateway change, a shadow device spoofing ARP, traffic peaks, the gateway back, a week near
baseline) into one network and prints the changes per week by severity, the top-level (high and
medium) average, and the planted events found at high or medium in their week and missed (issue 27).

`--db` takes a PostgreSQL URL naming a schema of the benchmark's own (dropped and recreated),
e.g. `postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3Dnetbench`.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, func, select, text

from tracepcap.adjudicate import annotations, networks
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.adjudicate.runner import Annotations, decide, rerun_many
from tracepcap.scan.vote import normalize_label
from tracepcap.store import open_database
from tracepcap.store.bulk import insert_rows
from tracepcap.keys import mac_key
from tracepcap.store.models import (Capture, Conversation, Dismissal, Entity, EntityMember, Host, HumanOverride,
                                    ManualEvidence, ObservationRow, VerdictRow)
from tracepcap.present.web.networks import network_context
from tracepcap.present.web.routes import ENV

QUESTIONS = ("host-identity", "node-role")
WEEK = 7 * 24 * 3600.0
ROUTER_MAC, ROUTER_IP = "00:00:5e:00:01:01", "10.20.0.1"


def ip(i: int) -> str:
    return f"10.{20 + i // 60000}.{(i // 250) % 240}.{i % 250 + 2}"


def ip6(i: int) -> str | None:
    return f"2001:db8:20::{i:x}" if i % 4 == 0 else None


def mac(i: int, k: int) -> str:
    moved = (i % 500) == (k % 500) and k > 0  # four devices a capture move to another MAC
    n = i + (0x800000 if moved else 0)
    return "00:16:3e:" + ":".join(f"{(n >> s) & 0xff:02x}" for s in (16, 8, 0))


def key(i: int, k: int) -> str:
    return mac_key(mac(i, k))


def capture_rows(session, registry, k: int, devices: int, docs: dict) -> str:
    cid = f"{0xbe00000000000000 + k:016x}"
    now = datetime.now(UTC)
    t0 = 1_700_000_000.0 + k * WEEK
    session.add(Capture(id=cid, sha256=cid * 4, name=f"week-{k + 1:02d}.pcap", size=1, format="pcap", status="done",
                        packets=devices * 10, conversations=devices, first_time=t0, last_time=t0 + 3600,
                        uploaded_at=now, uploaded_by="system", analyzed_at=now))
    session.flush()
    present = [i for i in range(devices) if (i + k) % 50 != 0]
    remote = [f"203.0.113.{j + 1}" for j in range(20)]
    router = mac_key(ROUTER_MAC)

    def addresses(i: int) -> list[str]:
        return [ip(i)] + ([ip6(i)] if ip6(i) else [])
    hosts, entities, members = [], [], []
    for n, i in enumerate(present):
        for a in addresses(i):
            hosts.append({"capture_id": cid, "ip": a, "position": len(hosts), "locality": "on-link",
                          "locality_reason": "bench"})
        entities.append({"capture_id": cid, "key": key(i, k), "position": n, "ip": ip(i), "addresses": addresses(i),
                         "macs": [mac(i, k)], "locality": "on-link", "locality_reason": "bench", "randomised": False})
        members += [{"capture_id": cid, "member": m, "entity_key": key(i, k)} for m in [key(i, k), *addresses(i)]]
    hosts.append({"capture_id": cid, "ip": ROUTER_IP, "position": len(hosts), "locality": "on-link",
                  "locality_reason": "bench"})
    entities.append({"capture_id": cid, "key": router, "position": len(entities), "ip": ROUTER_IP,
                     "addresses": [ROUTER_IP], "macs": [ROUTER_MAC], "locality": "on-link", "locality_reason": "bench",
                     "randomised": False})
    members += [{"capture_id": cid, "member": m, "entity_key": router} for m in (router, ROUTER_IP)]
    for r in remote:
        hosts.append({"capture_id": cid, "ip": r, "position": len(hosts), "locality": "remote", "locality_reason": "bench"})
        entities.append({"capture_id": cid, "key": r, "position": len(entities), "ip": r, "addresses": [r], "macs": [],
                         "locality": "remote", "locality_reason": "bench", "randomised": False})
        members.append({"capture_id": cid, "member": r, "entity_key": r})
    insert_rows(session, Host, hosts)
    insert_rows(session, Entity, entities)
    insert_rows(session, EntityMember, members)

    def fact(entity, kind, value, frame, grade="MEASURED", source="bench"):
        return {"capture_id": cid, "entity": entity, "kind": kind, "value": value, "source": source, "grade": grade,
                "first_frame": frame, "last_frame": frame, "count": 1, "first_time": t0, "last_time": t0,
                "extractor": "bench", "extractor_version": "1"}
    facts = [fact(ROUTER_IP, "mac", ROUTER_MAC, 1), fact(ROUTER_IP, "ip-mac-binding", ROUTER_MAC, 1, "REPORTED", "arp")]
    for n, i in enumerate(present):
        for a in addresses(i):  # facts are held per address (a device's member)
            facts.append(fact(a, "mac", mac(i, k), n + 1))
            facts.append(fact(a, "ip-mac-binding", mac(i, k), n + 1, "REPORTED", "arp" if a == ip(i) else "nd"))
        if i % 10 == 0:
            facts.append(fact(ip(i), "served", "tcp/445", n + 2))
        if i == (k * 7) % devices and k > 0:
            facts.append(fact(ip(i), "served", "tcp/8080", n + 3))
    facts += [fact(r, "mac", ROUTER_MAC, 5) for r in remote]
    insert_rows(session, ObservationRow, facts)
    insert_rows(session, Conversation, ({"capture_id": cid, "proto": "tcp", "src": ip(i), "sport": 40000, "dst": remote[0],
                                         "dport": 443, "first_time": t0, "last_time": t0, "first_frame": n + 1,
                                         "packets_fwd": 5, "bytes_fwd": 500, "packets_rev": 5, "bytes_rev": 900,
                                         "initiator": ip(i)} for n, i in enumerate(present)))
    rows = []
    for question in QUESTIONS:
        for i in present:
            doc = dict(docs[question], capture_id=cid, entity_key=key(i, k))
            label = "File Server" if i % 10 == 0 else "Workstation" if question == "host-identity" else "Unknown"
            rows.append({"capture_id": cid, "question": question, "entity_key": key(i, k), "primary_label": label,
                         "basis": "MACHINE", "confidence": 50, "contested": False, "document": doc, "updated_at": now})
    insert_rows(session, VerdictRow, rows)
    return cid


def human_rows(session, cid: str) -> set[Key]:
    """The human answers of capture 1; returns their keys."""
    now = datetime.now(UTC)
    # on devices present in capture 1 (every 50th device is absent from it)
    for i in [i for i in range(0, 400, 10) if i % 50][:30]:
        session.add(HumanOverride(question="host-identity", capture_id=cid, entity_key=key(i, 0), label="Kiosk",
                                  rationale="bench", actor="alice", created_at=now, updated_at=now,
                                  facts_snapshot={"mac": [mac(i, 0)], "served": []}))
    for i in [i for i in range(0, 150, 10) if i % 50][:10]:
        session.add(HumanOverride(question="node-role", capture_id=cid, entity_key=key(i, 0), label="File Server",
                                  rationale=annotations.ACCEPTED, actor="bob", created_at=now, updated_at=now,
                                  facts_snapshot={"mac": [mac(i, 0)], "served": ["tcp/445"]}))
    for i in range(1, 101, 10):
        session.add(ManualEvidence(question="host-identity", capture_id=cid, entity_key=key(i, 0), label="Printer",
                                   weight=40, reason="bench", actor="carol", actor_subject="system", created_at=now,
                                   updated_at=now))
        session.add(Dismissal(question="host-identity", capture_id=cid, entity_key=key(i, 0), label="Workstation",
                              label_key=normalize_label("Workstation"), reason="bench", actor="carol", created_at=now))
    session.flush()
    return {Key(row.question, cid, row.entity_key) for model in (HumanOverride, ManualEvidence, Dismissal)
            for row in session.scalars(select(model).where(model.capture_id == cid))}


PROFILE = False


def timed(fn, profile: bool = False):
    profiler = None
    if profile and PROFILE:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()
    t = time.perf_counter()
    out = fn()
    took = time.perf_counter() - t
    if profiler is not None:
        import pstats
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
    return took, out


def series(url: str) -> None:
    """The eight-week office series: events per week by severity, planted found / missed."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.office_weeks import PLANTED, score, series_week, write_week

    from tracepcap.analysis import analyze
    from tracepcap.ingest import store_file
    from tracepcap.present.read.networks import change_documents
    from tracepcap.settings import Settings
    tmp = Path(tempfile.mkdtemp())
    settings = Settings(data_dir=tmp / "data", database_url=url)
    db = open_database(url)
    with db.session(write=True) as s:
        nid = networks.create_network(s, "office", actor=SYSTEM_ACTOR).id
    ids, took = [], 0.0
    for n in range(8):
        path = write_week(tmp / f"week{n + 1}.pcap", n, series_week(n))
        with db.session(write=True) as s:
            capture, _ = store_file(s, settings.capture_dir, path, uploaded_by="system", max_bytes=1 << 30)
            networks.attach(s, networks.find_network(s, nid), capture.id, actor=SYSTEM_ACTOR)
            ids.append(capture.id)
        t = time.perf_counter()
        assert analyze(db, settings, ids[-1]) == "done"
        took += time.perf_counter() - t
    with db.session() as s:
        events = change_documents(s, nid)
    by_week = [[e for e in events if e["capture_id"] == cid] for cid in ids]
    result = score(by_week)
    print(f"eight-week office series on {db.engine.dialect.name} (analysis and network refresh {took:.1f} s)")
    print("  week  high  medium  low  top-level")
    for n, w in enumerate(result["weeks"]):
        print(f"  {n + 1:>4}  {w['high']:>4}  {w['medium']:>6}  {w['low']:>3}  {w['high'] + w['medium']:>9}")
    print(f"  average top-level events per week (weeks 2-8): {result['average_top']:.1f}")
    print(f"  planted events found at high/medium in their week: {len(result['found'])} of {len(PLANTED)}")
    for week, kind, texts in result["missed"]:
        print(f"    MISSED week {week + 1}: {kind} {' '.join(texts)}")
    print(f"  week-1 behaviour reported as new later: {len(result['renewed'])}")
    for n, kind, summary in result["renewed"]:
        print(f"    week {n + 1}: {kind} {summary}")
    db.dispose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--series", action="store_true", help="the eight-week office series (issue 27) instead")
    ap.add_argument("--captures", type=int, default=50)
    ap.add_argument("--devices", type=int, default=2000)
    ap.add_argument("--db", help="SQLAlchemy URL (default: a fresh SQLite file)")
    ap.add_argument("--profile", action="store_true", help="print cProfile's top functions of steps 2 and 3")
    args = ap.parse_args()
    global PROFILE
    PROFILE = args.profile
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp()) / 'network-bench.sqlite3'}"
    if url.startswith("postgresql") and "search_path%3D" in url:
        schema = url.split("search_path%3D")[1].split("&")[0]
        admin = create_engine(url.split("?")[0])
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
            conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        admin.dispose()
    if args.series:
        return series(url)
    db = open_database(url)
    registry = get_registry()
    docs = {q: decide(registry.get(q), Key(q, "0", "0"), [], Annotations(None, [], [])).to_document()
            for q in QUESTIONS}
    print(f"network of {args.captures} captures x {args.devices} devices on {db.engine.dialect.name}")
    t = time.perf_counter()
    ids = []
    for k in range(args.captures):
        with db.session(write=True) as s:
            ids.append(capture_rows(s, registry, k, args.devices, docs))
            if k == 0:
                # the human answers' own verdicts, as the annotation functions leave them
                rerun_many(s, registry, human_rows(s, ids[0]))
    print(f"  synthesised rows: {time.perf_counter() - t:.1f} s")
    with db.session(write=True) as s:
        nid = networks.create_network(s, "bench", actor=SYSTEM_ACTOR).id
        network = networks.find_network(s, nid)
        for cid in ids[:-1]:
            networks.attach(s, network, cid, actor=SYSTEM_ACTOR)
    with db.session(write=True) as s:
        took, touched = timed(lambda: networks.refresh(s, registry, nid))
    print(f"  1. first recomputation over {args.captures - 1} captures: {took:.2f} s ({len(touched)} keys re-adjudicated)")
    with db.session(write=True) as s:
        def add():
            networks.add_capture(s, registry, networks.find_network(s, nid), ids[-1], actor=SYSTEM_ACTOR)
        took, _ = timed(add, profile=True)
    print(f"  2. adding capture {args.captures} (attach + carry-forward + changes): {took:.2f} s")
    with db.session(write=True) as s:
        took, _ = timed(lambda: annotations.set_override(s, registry, Key("host-identity", ids[0], key(5, 0)), "Camera",
                                                         "bench", actor=SYSTEM_ACTOR), profile=True)
    print(f"  3. one override on capture 1 (carried through the network): {took:.2f} s")
    with db.session() as s:
        from tracepcap.store.models import NetworkChange, HumanOverride as H
        carried = s.query(H).filter(H.carried_from.isnot(None)).count()
        stale = s.query(H).filter(H.stale_capture.isnot(None)).count()
        kinds = dict(s.execute(select(NetworkChange.kind, func.count()).group_by(NetworkChange.kind)).all())
    print(f"     carried overrides {carried}, stale {stale}, change events {sum(kinds.values())}: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    samples, reads, size = [], [], 0
    for _ in range(7):
        with db.session() as s:
            def page():
                context = network_context(s, networks.find_network(s, nid))
                return ENV.get_template("_network.html").render(**context, viewer=None, request=None)
            took, html = timed(page)
            size = len(html)
            samples.append(took)
            reads.append(timed(lambda: network_context(s, networks.find_network(s, nid)), profile=not reads)[0])
    print(f"  4. network page, server time: median {statistics.median(samples) * 1000:.0f} ms, "
          f"best {min(samples) * 1000:.0f} ms (reading {statistics.median(reads) * 1000:.0f} ms; "
          f"{size / 1024:.0f} KiB of HTML)")
    db.dispose()


if __name__ == "__main__":
    main()
