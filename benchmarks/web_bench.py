"""Server time of the web UI's pages on a capture with many hosts.

Builds a capture of N hosts (default 5,000) straight in the store (hosts, MAC/vendor/TTL/
served facts, conversations, votes for every question), adjudicates it once, records a few
human actions on one host, then requests the pages through the app in-process and times each
request inside the server (from the first byte of the request to the last of the response):
the capture page (its first page of the host table), the table sorted by a question and
filtered, sorted by MAC, the captures page, the topology (grouped, and with a remote group
opened), a host page and one panel. Prints median and p95 in milliseconds, and the median
CPU time of the process over each request (on SQLite the database's work included: the figure
to compare between runs on a machine other processes load).

The frame view (issue 15) is timed on a synthetic pcap of `--frame-gib` GiB (default 2)
written under /tmp and removed afterwards: 64 TCP conversations interleaved, ~1,000-byte
frames. Its frame index is built by a framing-only walk (timed: the cost analysis adds), then
`GET /api/captures/{cid}/frames/{n}` and the packet view page are requested for frames spread
over the whole file, each a different frame (the previous/next frame of its conversation is
looked up too). `--frame-gib 0` skips it.

    .venv/bin/python benchmarks/web_bench.py [--hosts 5000] [--repeat 50] [--db URL] [--frame-gib 2]

With --db on PostgreSQL use an empty database or schema (e.g. `...?options=-csearch_path%3Dbench`).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import struct
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
from tracepcap.present.app import create_app
from tracepcap.settings import Settings
from tracepcap.store import open_database
from tracepcap.extract.frame_index import build as build_index, index_path
from tracepcap.ingest import capture_path
from tracepcap.store.models import Capture, Conversation, Entity, EntityMember, Finding, Host, ObservationRow, VoteRow
from tracepcap.testing import frames as wire

CID = "0eb0be4c00000001"  # hex, as capture references are
LABELS = {"host-identity": ("Router", "DNS Server", "Web Server", "Workstation", "Printer", "Mobile"),
          "os-family": ("Windows", "Linux", "macOS"), "node-role": ("File Server", "Web Server"),
          "hostname": ("host",)}
VENDORS = ("Cisco Systems", "Dell Inc.", "Hewlett Packard", "Apple, Inc.", "Raspberry Pi Trading")


def ip(i: int) -> str:
    """Four hosts in five local (10/8), every fifth remote (public, spread over many /24s)."""
    if i % 5 == 4:
        return f"{20 + i % 100}.{i // 100 % 256}.{i % 7}.{i % 250 + 1}"
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
        s.execute(insert(Host), [{"capture_id": CID, "ip": a, "position": i,
                                  "locality": "remote" if i % 5 == 4 else "on-link"} for i, a in enumerate(ips)])
        s.execute(insert(Entity), [{"capture_id": CID, "key": a, "position": i, "ip": a, "addresses": [a], "macs": [],
                                    "randomised": False, "locality": "remote" if i % 5 == 4 else "on-link"}
                                   for i, a in enumerate(ips)])
        s.execute(insert(EntityMember), [{"capture_id": CID, "member": a, "entity_key": a} for a in ips])
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


FRAME_CID = "0eb0be4c00000002"
FRAME_SHA = "f" * 64
FLOWS = 64  # conversations interleaved round robin: a frame's neighbours are 64 frames away
FRAME_T0 = 1_700_000_000


def flow_frame(f: int) -> bytes:
    client, server = f"10.9.0.{f + 1}", "10.9.1.1"
    segment = wire.tcp(client, server, 40000 + f, 80, 1, 1, "PA", payload=bytes(946))
    return wire.ethernet(f"02:00:00:00:00:{f + 1:02x}", "02:00:00:00:01:01", 0x0800, wire.ipv4(client, server, 6, segment))


def big_capture(path: Path, gib: float) -> int:
    """Write a classic pcap of about `gib` GiB; return its frame count. Frames are 10 us apart."""
    bodies = [flow_frame(f) for f in range(FLOWS)]
    record = struct.Struct("<IIII")
    target, written, n = int(gib * 2**30), 24, 0
    with open(path, "wb", buffering=1 << 22) as out:
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 262144, 1))
        while written < target:
            chunk = bytearray()
            for _ in range(256):
                for body in bodies:
                    n += 1
                    sec, usec = divmod(n * 10, 1_000_000)
                    chunk += record.pack(FRAME_T0 + sec, usec, len(body), len(body))
                    chunk += body
            out.write(chunk)
            written += len(chunk)
        out.flush()
        os.fsync(out.fileno())  # no writeback of the new file under the timed requests
    return n


def frame_capture(db, settings: Settings, gib: float) -> tuple[int, float, float]:
    """The big capture stored as a capture of its own, its index built and its conversations
    recorded; (frames, seconds to write it, seconds to index it)."""
    path = capture_path(settings.capture_dir, FRAME_SHA)
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    frames = big_capture(path, gib)
    t1 = time.perf_counter()
    build_index(path, settings.extract_limits).save(index_path(path))
    t2 = time.perf_counter()
    last = FRAME_T0 + frames * 10 / 1e6
    with db.session() as s:
        s.add(Capture(id=FRAME_CID, sha256=FRAME_SHA, name="big.pcap", size=path.stat().st_size, format="pcap",
                      status="done", progress_bytes=path.stat().st_size, packets=frames, conversations=FLOWS,
                      uploaded_at=datetime.now(UTC), uploaded_by="bench"))
        s.flush()
        s.execute(insert(Conversation), [
            {"capture_id": FRAME_CID, "proto": "tcp", "src": f"10.9.0.{f + 1}", "sport": 40000 + f, "dst": "10.9.1.1",
             "dport": 80, "first_time": FRAME_T0, "last_time": last, "first_frame": f + 1,
             "packets_fwd": frames // FLOWS, "bytes_fwd": frames // FLOWS * 1000, "packets_rev": 0, "bytes_rev": 0,
             "initiator": None} for f in range(FLOWS)])
    return frames, t1 - t0, t2 - t1


def timed(app):
    """The app, recording the server time of each HTTP request, and the process's CPU time
    over it (`cpu`: on SQLite the database's work too; it stays put when other processes load
    the machine, where the server time does not)."""
    times: list[float] = []
    cpu: list[float] = []

    async def wrapper(scope, receive, send):
        started, used = time.perf_counter(), time.process_time()
        await app(scope, receive, send)
        if scope["type"] == "http":
            times.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - used) * 1000)
    return wrapper, times, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--frame-gib", type=float, default=2.0, help="size of the frame view's capture (0: skip)")
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
        if args.frame_gib:
            frame_count, wrote, indexed = frame_capture(db, settings, args.frame_gib)
        app, times, cpu = timed(create_app(settings, db=db, registry=registry))
        pages = {
            "capture page (first 50 hosts of the table)": f"/captures/{CID}",
            "host table: sorted by host-identity, page 40": f"/ui/captures/{CID}/hosts?sort=host-identity&page=40",
            "host table: filtered by text ('dell')": f"/ui/captures/{CID}/hosts?q=dell",
            "host table: sorted by MAC, page 40": f"/ui/captures/{CID}/hosts?sort=mac&page=40",
            "host table: sorted by MAC descending": f"/ui/captures/{CID}/hosts?sort=mac&desc=1",
            "captures page (list, search)": "/?q=bench",
            "topology (grouped; local /24s open)": f"/ui/captures/{CID}/topology",
            "topology (a remote group opened)": f"/ui/captures/{CID}/topology?open=REMOTE",
            "host page (facts and every panel)": f"/captures/{CID}/hosts/{host}",
            "one panel (after a human action)": f"/ui/captures/{CID}/hosts/{host}/panels/host-identity",
            "host table: hosts a finding names": f"/ui/captures/{CID}/hosts?mark=finding",
            "audit page": f"/captures/{CID}/audit",
            "GET /api/captures/{cid}/audit": f"/api/captures/{CID}/audit",
        }
        results, cpu_results = {}, {}
        with TestClient(app, base_url="http://localhost") as client:  # an allowed host
            remote = next(g for g in client.get(f"/ui/captures/{CID}/topology").json()["groups"] if g["zone"] == "remote")
            for name, path in pages.items():
                path = path.replace("REMOTE", remote["id"])
                assert client.get(path).status_code == 200, path  # warm-up
                times.clear()
                cpu.clear()
                for _ in range(args.repeat):
                    client.get(path)
                results[name] = sorted(times)
                cpu_results[name] = sorted(cpu)
            if args.frame_gib:
                spread = [1 + (frame_count - 1) * k // max(1, args.repeat - 1) for k in range(args.repeat)]
                views = {f"frame view JSON ({args.frame_gib:g} GiB capture)": f"/api/captures/{FRAME_CID}/frames/",
                         f"packet view page ({args.frame_gib:g} GiB capture)": f"/captures/{FRAME_CID}/frames/",
                         "reference: GET /api/captures/{cid} (no frame read)": f"/api/captures/{FRAME_CID}"}
                for path in views.values():
                    client.get(path if path.endswith(FRAME_CID) else f"{path}{frame_count // 2}")  # warm-up
                series = {name: [] for name in views}
                cpu_series = {name: [] for name in views}
                for n in spread:  # alternated, so all see the same load
                    for name, path in views.items():
                        times.clear()
                        cpu.clear()
                        url = path if path.endswith(FRAME_CID) else f"{path}{n}"
                        assert client.get(url).status_code == 200, url
                        series[name] += times
                        cpu_series[name] += cpu
                results.update({name: sorted(values) for name, values in series.items()})
                cpu_results.update({name: sorted(values) for name, values in cpu_series.items()})
        db.dispose()
    print(f"database: {db.engine.dialect.name}, hosts: {args.hosts}, facts: {args.hosts * 4}, "
          f"votes: {args.hosts * 8}, conversations: ~{args.hosts * 5}; built and adjudicated in {built:.1f} s")
    if args.frame_gib:
        print(f"frame view capture: {args.frame_gib:g} GiB, {frame_count:,} frames, written in {wrote:.1f} s, "
              f"frame index built in {indexed:.1f} s (a mark every 1024 frames)")
    print(f"{'server time per request (' + str(args.repeat) + ' requests)':<48} {'median ms':>10} {'p95 ms':>8}"
          f" {'cpu median ms':>14}")
    for name, values in results.items():
        p95 = values[max(0, int(len(values) * 0.95) - 1)]
        print(f"{name:<48} {statistics.median(values):>10.1f} {p95:>8.1f}"
              f" {statistics.median(cpu_results[name]):>14.1f}")


if __name__ == "__main__":
    main()
