"""Load on the real server: bursts of concurrent human writes and reads, on SQLite and PostgreSQL.

For each backend: starts `tracepcap serve` under uvicorn on 127.0.0.1 (a temporary data
directory; PostgreSQL in a schema of its own, dropped at the end), uploads a shared capture,
waits for its analysis, then
  - sends single writes one after another (`--single`, default 100; nothing else in flight):
    the latency of one human write, p50/p99 (goal: p50 <= 50 ms),
and fires
  - a burst of concurrent writes (overrides and evidence, alternating, spread over the hosts),
  - a burst of concurrent reads (host list, verdict, capture detail, in turn),
all requests in flight at once; during the write burst the capture is re-analysed by the CLI in
another process (`tracepcap analyze` on the same file; `--no-reanalyze` to leave it out).
Last, one bulk import (`POST /api/captures/{cid}/annotations:bulk`) of `--bulk` rows (default
1,000: overrides, evidence and dismissals over the hosts) in one request (goal: <= 5 s), its
audit events counted. Goals for the write burst: 200 concurrent writes done in <= 15 s.
Prints failures (the goal is 0), throughput and p50/p99 latency per operation, and checks the
store: every successful write has exactly one audit event and every failed one none, and each
host's stored verdict carries the override its last `override.set` event wrote (none lost to
the re-analysis). Nothing is asserted about time; the exit status is 1 when a request
failed or the audit check did not hold.

    .venv/bin/python benchmarks/load_bench.py [--backend sqlite|postgresql|both] [--writes 200]
        [--reads 500] [--single 100] [--bulk 1000] [--postgres URL] [--capture PATH] [--no-reanalyze]

Bounded: one burst of each kind per backend, every request with a 120 s timeout, the server
stopped at the end whatever happened. Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from pathlib import Path

import httpx
from sqlalchemy import create_engine, select, text

ROOT = Path(__file__).resolve().parents[1]
CAPTURE = ROOT.parent / "shared" / "captures" / "dns_demo.pcap"
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
QUESTION = "host-identity"
REQUEST_TIMEOUT = 120.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(data_dir: Path, db_url: str, port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "TRACEPCAP_DATA_DIR": str(data_dir), "TRACEPCAP_AUTH": "off",
           "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([sys.executable, "-m", "tracepcap.present.cli", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--db", db_url],
                            env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def wait_ready(base: str, server: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            if httpx.get(f"{base}/api/captures", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    raise SystemExit("the server did not start")


def upload_and_wait(client: httpx.Client, path: Path) -> str:
    with path.open("rb") as f:
        r = client.post("/captures", files={"file": (path.name, f, "application/octet-stream")})
    r.raise_for_status()
    cid = r.json()["id"]
    deadline = time.monotonic() + 120
    while (status := client.get(f"/captures/{cid}").json()["status"]) not in ("done", "partial", "failed"):
        if time.monotonic() > deadline:
            raise SystemExit(f"analysis of {cid} did not finish")
        time.sleep(0.1)
    if status == "failed":
        raise SystemExit(f"analysis of {cid} failed")
    return cid


def write_requests(cid: str, hosts: list[str], count: int, *,
                   prefix: str = "load") -> list[tuple[str, str, str, dict, str]]:
    """(operation, method, path, body, marker): the marker is unique per request and lands in
    the audit event's `after`, so each request's events can be counted."""
    out = []
    for i in range(count):
        entity = hosts[i % len(hosts)]
        base = f"/captures/{cid}/adjudications/{QUESTION}/{entity}"
        marker = f"{prefix}-{i}"
        if i % 2 == 0:
            out.append(("override", "PUT", f"{base}/override", {"label": f"Label {i}", "rationale": marker}, marker))
        else:
            out.append(("evidence", "POST", f"{base}/evidence",
                        {"label": "Router", "weight": 5, "reason": marker}, marker))
    return out


def read_requests(cid: str, hosts: list[str], count: int) -> list[tuple[str, str, str, None, None]]:
    kinds = (("hosts", f"/captures/{cid}/hosts"),
             ("verdict", None),
             ("capture", f"/captures/{cid}"))
    out = []
    for i in range(count):
        op, path = kinds[i % len(kinds)]
        if path is None:
            path = f"/captures/{cid}/adjudications/{QUESTION}/{hosts[i % len(hosts)]}"
        out.append((op, "GET", path, None, None))
    return out


async def burst(base: str, requests: list) -> list[tuple[str, int | str, float, str | None]]:
    """Every request at once; (operation, status or error, seconds, marker) each."""
    limits = httpx.Limits(max_connections=len(requests), max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=f"{base}/api", timeout=REQUEST_TIMEOUT, limits=limits,
                                 headers={"X-TracePcap-Request": "1"}) as client:
        gate = asyncio.Event()

        async def one(op, method, path, body, marker):
            await gate.wait()
            started = time.perf_counter()
            try:
                r = await client.request(method, path, json=body)
                outcome: int | str = r.status_code
            except httpx.HTTPError as err:
                outcome = type(err).__name__
            return op, outcome, time.perf_counter() - started, marker

        tasks = [asyncio.create_task(one(*r)) for r in requests]
        await asyncio.sleep(0.2)  # every task is waiting at the gate: they start together
        gate.set()
        return await asyncio.gather(*tasks)


def single_writes(client: httpx.Client, requests: list) -> list[tuple[str, int | str, float, str | None]]:
    """Each request alone, after the previous one answered: one write's own cost."""
    out = []
    for op, method, path, body, marker in requests:
        started = time.perf_counter()
        try:
            outcome: int | str = client.request(method, path, json=body).status_code
        except httpx.HTTPError as err:
            outcome = type(err).__name__
        out.append((op, outcome, time.perf_counter() - started, marker))
    return out


def bulk_rows(hosts: list[str], count: int) -> list[dict]:
    """Rows of an asset-list import: overrides, evidence and dismissals in turn over the hosts."""
    rows = []
    for i in range(count):
        entity = hosts[i % len(hosts)]
        if i % 3 == 0:
            rows.append({"kind": "override", "entity": entity, "label": f"Asset {i}", "reason": f"bulk-{i}"})
        elif i % 3 == 1:
            rows.append({"kind": "evidence", "entity": entity, "label": "Printer", "weight": 10, "reason": f"bulk-{i}"})
        else:
            rows.append({"kind": "dismissal", "entity": entity, "label": f"Not {i}", "reason": f"bulk-{i}"})
    return rows


def bulk_import(client: httpx.Client, db_url: str, cid: str, hosts: list[str], count: int) -> bool:
    rows = bulk_rows(hosts, count)
    started = time.perf_counter()
    r = client.post(f"/captures/{cid}/annotations:bulk", json=rows, timeout=REQUEST_TIMEOUT)
    seconds = time.perf_counter() - started
    from tracepcap.store.models import AuditEvent
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            events = conn.execute(select(AuditEvent.after).where(AuditEvent.action.in_(
                ("override.set", "evidence.added", "dismissal.added")))).scalars().all()
    finally:
        engine.dispose()
    audited = sum(1 for a in events if str((a or {}).get("rationale") or (a or {}).get("reason") or "")
                  .startswith("bulk-"))
    print(f"  bulk import of {count} rows: HTTP {r.status_code} in {seconds:.2f} s "
          f"(goal <= 5 s: {'met' if seconds <= 5 else 'NOT met'}); {audited} audit events for them")
    return r.status_code == 200 and audited == count


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def report(title: str, results: list, wall: float) -> int:
    failed = [r for r in results if not (isinstance(r[1], int) and r[1] < 400)]
    print(f"  {title}: {len(results)} requests in {wall:.2f} s = {len(results) / wall:.0f} req/s, "
          f"failures {len(failed)}")
    by_op = defaultdict(list)
    for op, _outcome, seconds, _ in results:
        by_op[op].append(seconds)
    for op, times in sorted(by_op.items()):
        print(f"    {op:<9} n={len(times):<4} p50 {1000 * statistics.median(times):7.0f} ms   "
              f"p99 {1000 * percentile(times, 99):7.0f} ms")
    if failed:
        print("    failures:", dict(Counter(str(r[1]) for r in failed)))
    return len(failed)


def audit_check(db_url: str, results: list) -> bool:
    """Exactly one audit event per successful write, none per failed one."""
    from tracepcap.store.models import AuditEvent
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            afters = conn.execute(select(AuditEvent.after).where(AuditEvent.action.in_(
                ("override.set", "evidence.added")))).scalars().all()
    finally:
        engine.dispose()
    seen = Counter((a or {}).get("rationale") or (a or {}).get("reason") for a in afters)
    wrong = [(marker, outcome, seen[marker]) for _op, outcome, _s, marker in results
             if seen[marker] != (1 if isinstance(outcome, int) and outcome < 400 else 0)]
    print(f"  audit: {sum(seen[r[3]] for r in results)} events for "
          f"{sum(1 for r in results if isinstance(r[1], int) and r[1] < 400)} successful writes; "
          f"{'one per successful write' if not wrong else f'{len(wrong)} mismatched, e.g. {wrong[:3]}'}")
    return not wrong


def reanalyze(data_dir: Path, db_url: str, capture: Path) -> subprocess.Popen:
    env = {**os.environ, "TRACEPCAP_DATA_DIR": str(data_dir), "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen([sys.executable, "-m", "tracepcap.present.cli", "analyze", str(capture), "--db", db_url,
                             "--json"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


async def writes_beside_a_reanalysis(base: str, requests: list, start_reanalysis) -> tuple[list, str]:
    process = start_reanalysis() if start_reanalysis else None
    started = time.perf_counter()
    results = await burst(base, requests)
    if process is None:
        return results, "none"
    _out, err = await asyncio.to_thread(process.communicate, timeout=300)
    tail = err.decode(errors="replace").strip().splitlines()[-1:] if process.returncode else []
    return results, f"exit {process.returncode} after {time.perf_counter() - started:.1f} s {' '.join(tail)}"


def overrides_check(db_url: str, cid: str) -> bool:
    """Each host's stored verdict holds the override of its last override.set event."""
    from tracepcap.store.models import AuditEvent, VerdictRow
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            last = {}
            for entity, after in conn.execute(select(AuditEvent.entity_key, AuditEvent.after).where(
                    AuditEvent.capture_id == cid, AuditEvent.action == "override.set").order_by(AuditEvent.id)):
                last[entity] = after["label"]
            stored = dict(conn.execute(select(VerdictRow.entity_key, VerdictRow.document).where(
                VerdictRow.capture_id == cid, VerdictRow.question == QUESTION)).all())
            status = conn.execute(text("SELECT status FROM capture WHERE id = :id"), {"id": cid}).scalar()
    finally:
        engine.dispose()
    lost = {e: (label, (stored.get(e) or {}).get("override")) for e, label in last.items()
            if ((stored.get(e) or {}).get("override") or {}).get("label") != label}
    print(f"  overrides: {len(last)} hosts overridden, {len(lost)} lost {list(lost.items())[:2]}; "
          f"capture status {status}")
    return not lost and status == "done"


def run_backend(backend: str, args: argparse.Namespace) -> bool:
    schema = None
    with tempfile.TemporaryDirectory(prefix="tracepcap-load-") as tmp:
        data_dir = Path(tmp) / "data"
        if backend == "sqlite":
            db_url = f"sqlite:///{data_dir / 'tracepcap.sqlite3'}"
        else:
            schema = f"load_{uuid.uuid4().hex[:10]}"
            admin = create_engine(args.postgres)
            with admin.begin() as conn:
                conn.execute(text(f'CREATE SCHEMA "{schema}"'))
            admin.dispose()
            db_url = f"{args.postgres}?options=-csearch_path%3D{schema}"
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server(data_dir, db_url, port, Path(tmp) / "server.log")
        try:
            wait_ready(base, server)
            with httpx.Client(base_url=f"{base}/api", timeout=60, headers={"X-TracePcap-Request": "1"}) as client:
                cid = upload_and_wait(client, args.capture)
                hosts = [h["ip"] for h in client.get(f"/captures/{cid}/hosts").json()]
            print(f"{backend}: capture {cid} with {len(hosts)} hosts")
            failures = 0
            if args.single:
                with httpx.Client(base_url=f"{base}/api", timeout=REQUEST_TIMEOUT,
                                  headers={"X-TracePcap-Request": "1"}) as client:
                    quiet = single_writes(client, write_requests(cid, hosts, args.single, prefix="single"))
                times = [r[2] for r in quiet]
                p50 = statistics.median(times)
                failures += report(f"{args.single} single writes, one at a time", quiet, sum(times))
                print(f"    single write p50 {1000 * p50:.0f} ms p99 {1000 * percentile(times, 99):.0f} ms "
                      f"(goal p50 <= 50 ms: {'met' if p50 <= 0.05 else 'NOT met'})")
            started = time.perf_counter()
            start_reanalysis = (lambda: reanalyze(data_dir, db_url, args.capture)) if args.reanalyze else None
            writes, reanalysis = asyncio.run(writes_beside_a_reanalysis(
                base, write_requests(cid, hosts, args.writes), start_reanalysis))
            wall = time.perf_counter() - started
            failures += report(f"{args.writes} concurrent writes", writes, wall)
            print(f"    {args.writes} concurrent writes done in {wall:.1f} s "
                  f"(goal <= 15 s for 200: {'met' if wall <= 15 else 'NOT met'})")
            print(f"  re-analysis by the CLI during the writes: {reanalysis}")
            failures += 0 if reanalysis.startswith(("none", "exit 0")) else 1
            started = time.perf_counter()
            reads = asyncio.run(burst(base, read_requests(cid, hosts, args.reads)))
            failures += report(f"{args.reads} concurrent reads", reads, time.perf_counter() - started)
            audited = audit_check(db_url, writes)
            kept = overrides_check(db_url, cid)
            bulked = True
            if args.bulk:
                with httpx.Client(base_url=f"{base}/api", timeout=REQUEST_TIMEOUT,
                                  headers={"X-TracePcap-Request": "1"}) as client:
                    bulked = bulk_import(client, db_url, cid, hosts, args.bulk)
            return failures == 0 and audited and kept and bulked
        finally:
            server.terminate()
            try:
                server.wait(20)
            except subprocess.TimeoutExpired:
                server.kill()
            if failures_logged := (Path(tmp) / "server.log").read_text(errors="replace").count("Traceback"):
                print(f"  server log: {failures_logged} tracebacks")
            if schema:
                admin = create_engine(args.postgres)
                with admin.begin() as conn:
                    conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                admin.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--reads", type=int, default=500)
    parser.add_argument("--single", type=int, default=100, help="single writes one at a time (0: none)")
    parser.add_argument("--bulk", type=int, default=1000, help="rows of the bulk import (0: none)")
    parser.add_argument("--postgres", default=os.environ.get("TRACEPCAP_TEST_POSTGRES_URL") or POSTGRES)
    parser.add_argument("--capture", type=Path, default=CAPTURE)
    parser.add_argument("--no-reanalyze", dest="reanalyze", action="store_false",
                        help="no re-analysis by the CLI during the write burst")
    args = parser.parse_args()
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    ok = [run_backend(b, args) for b in backends]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
