#!/usr/bin/env python3
"""`serve` on a Dask cluster: 8 captures uploaded at once, on 1 worker and on 2 (issue 29).

    PYTHONPATH=src .venv/bin/python benchmarks/dask_serve_bench.py [--workers 1,2] [--captures 8]
        [--hosts 1000] [--out DIR] [--postgres URL] [--timeout 1800]

For each worker count N, one after another, every process started here and stopped at its end:
  1. `dask scheduler` on a free loopback port (the `dask` command of this Python's venv);
  2. `dask worker tcp://127.0.0.1:PORT --nworkers N --nthreads 1`, waited for until the scheduler
     has N workers, each warmed (tracepcap's analysis imported, its question registry built:
     a cluster that serves for hours has paid that once);
  3. `tracepcap serve` on a free loopback port with TRACEPCAP_DASK_SCHEDULER set, a fresh data
     directory (SQLite in it, or with --postgres a new database on that server, dropped after) and room
     for every upload at once (TRACEPCAP_MAX_CONCURRENT_UPLOADS);
then the clock starts, every capture is uploaded at once over HTTP (one connection each), the
captures are polled until each is analyzed, and the clock stops. Printed per N: wall seconds,
captures per minute, how the analyses were spread over the workers, and a digest of every
capture's hosts with their verdicts (which must be the same for every N); then the ratio of
the first N's wall time to each other's, with the load average (`uptime`) before and after.

The captures are generated with the test kit's accuracy corpus (tracepcap.testing.accuracy_corpus,
seeds 1..C, --hosts devices each: about 2 MB and 1,000 hosts at the default), so the analysis, not
the upload, is the work; they are kept in --out and reused.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"
BIN = Path(sys.executable).parent
HEADERS = {"X-TracePcap-Request": "1"}
POLL_SECONDS = 0.25


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_captures(out: Path, count: int, hosts: int) -> list[Path]:
    from tracepcap.testing.accuracy_corpus import build
    paths = []
    for seed in range(1, count + 1):
        path = out / f"corpus-{hosts}-{seed}.pcap"
        if not path.exists():
            build(path.with_suffix(".tmp"), hosts=hosts, seed=seed)
            path.with_suffix(".tmp").rename(path)
        paths.append(path)
    return paths


def env_with(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TRACEPCAP_")}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH", "")) if p)
    env.update(extra)
    return env


def start(argv: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(argv, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)


def stop(process: subprocess.Popen, timeout: float = 20) -> None:
    """SIGINT (a clean stop), then SIGKILL to its process group if it lingers."""
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


def warm(dask_worker=None) -> str:
    """On each worker: one small analysis in a scratch store, so the imports, the question
    registry and the caches an analysis fills are paid before the clock starts (a cluster that
    serves for hours has paid them once)."""
    import tempfile
    from pathlib import Path

    from tracepcap.analysis import analyze
    from tracepcap.ingest.store import store_file
    from tracepcap.settings import Settings
    from tracepcap.store import open_database
    from tracepcap.testing.accuracy_corpus import build

    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        build(root / "warm.pcap", hosts=20, seed=99)
        settings = Settings(data_dir=root, database_url=f"sqlite:///{root / 'warm.sqlite3'}")
        db = open_database(settings.database_url)
        try:
            with db.session(write=True) as session:
                capture, _ = store_file(session, settings.capture_dir, root / "warm.pcap", uploaded_by="bench",
                                        max_bytes=1 << 30)
                capture_id = capture.id
            return str(analyze(db, settings, capture_id))
        finally:
            db.dispose()


def fresh_postgres(server_url: str, workers: int) -> str:
    """A new, empty database on the PostgreSQL server of `server_url` (dropped first if an
    earlier run left it); its URL."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    name = f"tracepcap_dask_serve_bench_{workers}"
    engine = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def drop_postgres(server_url: str, workers: int) -> None:
    from sqlalchemy import create_engine, text
    engine = create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "tracepcap_dask_serve_bench_{workers}" WITH (FORCE)'))
    engine.dispose()


def run(workers: int, paths: list[Path], work: Path, database_url: str | None, timeout: float) -> dict:
    from distributed import Client

    logs = work / f"logs-{workers}"
    logs.mkdir(parents=True, exist_ok=True)
    port, http_port = free_port(), free_port()
    scheduler_address = f"tcp://127.0.0.1:{port}"
    processes: list[subprocess.Popen] = []
    try:
        processes.append(start([str(BIN / "dask"), "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                "--no-dashboard"], logs / "scheduler.log", env_with()))
        processes.append(start([str(BIN / "dask"), "worker", scheduler_address, "--nworkers", str(workers),
                                "--nthreads", "1", "--no-dashboard", "--memory-limit", "0"],
                               logs / "workers.log", env_with()))
        deadline = time.monotonic() + 120
        client = None
        while client is None:
            try:
                client = Client(scheduler_address, timeout="5s", set_as_default=False)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        with client:
            client.wait_for_workers(workers, timeout=120)
            client.run(warm)
        data = work / f"data-{workers}"
        shutil.rmtree(data, ignore_errors=True)
        settings = {"TRACEPCAP_DATA_DIR": str(data), "TRACEPCAP_DASK_SCHEDULER": scheduler_address,
                    "TRACEPCAP_MAX_CONCURRENT_UPLOADS": str(len(paths))}
        if database_url:
            settings["TRACEPCAP_DATABASE_URL"] = fresh_postgres(database_url, workers)
        processes.append(start([str(BIN / "tracepcap"), "serve", "--port", str(http_port)], logs / "serve.log",
                               env_with(**settings)))
        base = f"http://127.0.0.1:{http_port}/api"
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or processes[-1].poll() is not None:
                raise RuntimeError(f"tracepcap serve did not start: see {logs / 'serve.log'}")
            time.sleep(0.2)

        def upload(path: Path) -> str:
            with httpx.Client(base_url=base, headers=HEADERS, timeout=120) as c, path.open("rb") as f:
                response = c.post("/captures", files={"file": (path.name, f, "application/octet-stream")})
                response.raise_for_status()
                return response.json()["id"]

        with Client(scheduler_address, timeout="5s", set_as_default=False) as client:
            cpu_before = client.run(_cpu_seconds)
        server_before = _process_cpu(processes[-1].pid)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(len(paths)) as pool:
            ids = list(pool.map(upload, paths))
        uploaded = time.perf_counter() - t0
        finished: dict[str, dict] = {}
        with httpx.Client(base_url=base, headers=HEADERS, timeout=60) as c:
            while len(finished) < len(ids):  # one listing per poll: the server's CPU is the workers' too
                time.sleep(POLL_SECONDS)
                listed = c.get("/captures", params={"limit": 1000}).json()
                finished = {capture["id"]: capture for capture in listed
                            if capture["id"] in ids and capture["status"] in ("done", "partial", "failed")}
                if time.perf_counter() - t0 > timeout:
                    raise RuntimeError(f"not analyzed within {timeout:.0f} s: {len(finished)} of {len(ids)}")
            wall = time.perf_counter() - t0
            server_cpu = _process_cpu(processes[-1].pid) - server_before  # before the hosts are read
            digest = hashlib.sha256()
            for cid in ids:
                hosts = c.get(f"/captures/{cid}/hosts", params={"limit": 1000}).json()
                digest.update(json.dumps(hosts, sort_keys=True).encode())
        with Client(scheduler_address, timeout="5s", set_as_default=False) as client:
            spread = client.run(_analyses_done)
            cpu_after = client.run(_cpu_seconds)
        worker_cpu = sorted((cpu_after[w] - cpu_before.get(w, 0.0) for w in cpu_after), reverse=True)
        return {"cpu_workers": worker_cpu, "cpu_server": server_cpu,
                "workers": workers, "wall": wall, "uploaded": uploaded,
                "statuses": sorted(c["status"] for c in finished.values()),
                "spread": sorted(spread.values(), reverse=True), "digest": digest.hexdigest()[:16]}
    finally:
        for process in reversed(processes):
            stop(process)
        if database_url:
            drop_postgres(database_url, workers)


def _cpu_seconds(dask_worker=None) -> float:
    """CPU seconds this worker process has used."""
    return time.process_time()


def _process_cpu(pid: int) -> float:
    """CPU seconds (user + system) process `pid` has used (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _analyses_done(dask_worker=None) -> int:
    """How many analysis tasks this worker finished (its state log)."""
    finished = set()
    for entry in dask_worker.state.log:
        key = str(entry[0])
        if key.startswith("tracepcap-analysis-") and (entry[1] == "put-in-memory" or entry[1:3] == ("executing", "memory")):
            finished.add(key)
    return len(finished)


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", default="1,2", help="worker counts to run, comma-separated (default 1,2)")
    ap.add_argument("--captures", type=int, default=8)
    ap.add_argument("--hosts", type=int, default=1000, help="devices in each generated capture")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "tracepcap-dask-serve-bench")
    ap.add_argument("--postgres", metavar="URL", dest="database_url",
                    help="a PostgreSQL server (any database on it, e.g. postgresql+psycopg://postgres@127.0.0.1/postgres) "
                         "to create a fresh database on for each run, instead of SQLite")
    ap.add_argument("--timeout", type=float, default=1800)
    args = ap.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    paths = make_captures(args.out, args.captures, args.hosts)
    size = sum(p.stat().st_size for p in paths)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"captures: {len(paths)} accuracy-corpus captures of {args.hosts} devices, "
          f"{size / len(paths) / 1e6:.1f} MB each ({args.out})")
    print(f"store: {'PostgreSQL' if args.database_url else 'SQLite'}")
    print(f"load before: {uptime()}")
    results = []
    for n in counts:
        r = run(n, paths, args.out, args.database_url, args.timeout)
        results.append(r)
        print(f"workers={n}: {r['wall']:7.2f} s wall ({len(paths) / r['wall'] * 60:.1f} captures/min; "
              f"uploads took {r['uploaded']:.2f} s), statuses {','.join(sorted(set(r['statuses'])))}, "
              f"analyses per worker {r['spread']}, hosts+verdicts digest {r['digest']}", flush=True)
        print(f"    CPU s: workers {', '.join(f'{c:.1f}' for c in r['cpu_workers'])} "
              f"(sum {sum(r['cpu_workers']):.1f}), server {r['cpu_server']:.1f}", flush=True)
    print(f"load after:  {uptime()}")
    base = results[0]
    for r in results[1:]:
        print(f"ratio workers={base['workers']} / workers={r['workers']}: {base['wall'] / r['wall']:.2f}x")
        print(f"  the most loaded worker's CPU, workers={base['workers']} / workers={r['workers']}: "
              f"{max(base['cpu_workers']) / max(r['cpu_workers']):.2f}x (the wall ratio on idle cores, "
              "less any time spent waiting for the store)")
    same = len({r["digest"] for r in results}) == 1
    print(f"same hosts and verdicts for every worker count: {'yes' if same else 'NO'}")
    return 0 if same and all(set(r["statuses"]) == {"done"} for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
