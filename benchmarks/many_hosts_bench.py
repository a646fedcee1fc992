#!/usr/bin/env python3
"""The whole `tracepcap analyze` on a capture with many hosts: prints figures, asserts nothing.

    .venv/bin/python benchmarks/many_hosts_bench.py [--hosts 100000] [--db URL] [--out DIR]
                                                    [--keep] [--profile] [--trace-memory]

1. Generates (cached in --out, default /tmp/tracepcap-bench) `tracepcap.testing.crowd`'s
   capture with --hosts distinct source addresses and a few packets each, some naming
   themselves by DHCP or mDNS, some behind a router, a few TLS servers whose certificates
   name other hosts' names (the module's docstring says what exactly).
2. Runs the stages of `tracepcap analyze FILE --json` in a child process, timing each:
   store (ingest), extract + persist, scan (load context, signals, findings, store votes),
   adjudicate (every question), report (the JSON document written to /dev/null). After each
   it prints wall time, CPU time and the process's peak RSS so far (ru_maxrss).
3. Times the real CLI, `tracepcap analyze FILE --db URL --json > /dev/null`, as one more
   child: wall time and peak RSS of the whole command.

`--db` takes a PostgreSQL URL naming a schema of the benchmark's own, e.g.
`postgresql+psycopg://postgres@127.0.0.1:5432/test?options=-csearch_path%3Dbench`: that schema
is DROPPED and recreated before each run. Default: a fresh SQLite file. `--profile` runs the
stages under cProfile, prints the top costs and saves them to --out/many_hosts.pstats;
`--trace-memory` runs them under tracemalloc and prints the biggest allocation sites.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tracepcap.testing.crowd import build_crowd

GEN_VERSION = 1  # bump when tracepcap.testing.crowd's traffic changes, so cached captures are rebuilt

def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_stages(path: Path, db_url: str, data_dir: Path) -> None:
    """The stages of cmd_analyze, one by one, printing a row after each (the child)."""
    from tracepcap.adjudicate.actor import SYSTEM_ACTOR
    from tracepcap.adjudicate.registry import get_registry
    from tracepcap.analysis import _scan, adjudicate_capture
    from tracepcap.extract import extract_capture
    from tracepcap.ingest import capture_path, store_file
    from tracepcap.present.cli import batch_gc
    from tracepcap.present.report import write_capture
    from tracepcap.adjudicate.runner import Decided
    from tracepcap.settings import Settings
    from tracepcap.store import open_database
    from tracepcap.store.models import Capture

    batch_gc()  # as `tracepcap analyze` does
    settings = Settings(data_dir=data_dir, database_url=db_url)
    db = open_database(settings.database_url)
    registry = get_registry()
    rows = []

    def stage(name, work):
        wall, cpu = time.perf_counter(), time.process_time()
        out = work()
        rows.append((name, time.perf_counter() - wall, time.process_time() - cpu, _peak_mib()))
        print(f"  {name:<12} {rows[-1][1]:8.2f} s wall {rows[-1][2]:8.2f} s cpu {rows[-1][3]:8.0f} MiB peak",
              flush=True)
        return out

    def store():
        with db.session() as s:
            capture, _ = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name,
                                    max_bytes=settings.max_capture_bytes)
            return capture.id, capture.sha256

    capture_id, sha = stage("store", store)
    stage("extract", lambda: extract_capture(db, capture_id, capture_path(settings.capture_dir, sha)))

    decided = Decided(capture_id, registry)  # as the conductor does: verdicts decided as Scan votes, reused

    report = stage("scan", lambda: _scan(db, registry, capture_id, decided))  # as the conductor scans
    stage("adjudicate", lambda: adjudicate_capture(db, registry, capture_id, decided))
    decided.close()

    def present():
        with db.session() as s, open(os.devnull, "w") as out:
            write_capture(s, s.get(Capture, capture_id), registry, out, as_json=True)
    stage("report", present)
    db.dispose()
    print(f"  {'total':<12} {sum(r[1] for r in rows):8.2f} s wall {sum(r[2] for r in rows):8.2f} s cpu "
          f"{max(r[3] for r in rows):8.0f} MiB peak  ({report.votes} votes, {report.findings} findings)")


def run_cli(path: Path, db_url: str, data_dir: Path) -> None:
    env = dict(os.environ, TRACEPCAP_DATA_DIR=str(data_dir))
    started = time.perf_counter()
    with open(os.devnull, "w") as devnull:
        proc = subprocess.run([sys.executable, "-m", "tracepcap.present.cli", "analyze", str(path),
                               "--db", db_url, "--json"], stdout=devnull, env=env, check=False)
    wall = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"  {'cli':<12} {wall:8.2f} s wall {'':>15} {peak:8.0f} MiB peak  (exit {proc.returncode})")


def _reset_postgres_schema(db_url: str) -> None:
    """An empty schema named in the URL's search_path, so reruns start clean."""
    from urllib.parse import parse_qs, unquote, urlsplit

    from sqlalchemy import create_engine, text
    options = unquote(parse_qs(urlsplit(db_url).query).get("options", [""])[0])
    schema = options.split("search_path=", 1)[1].split()[0] if "search_path=" in options else None
    if not schema:
        return
    engine = create_engine(db_url.split("?", 1)[0])
    with engine.begin() as conn:
        conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=100_000)
    parser.add_argument("--db", help="database URL (default: a fresh SQLite file)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "tracepcap-bench")
    parser.add_argument("--keep", action="store_true", help="keep the generated capture")
    parser.add_argument("--profile", action="store_true", help="cProfile the stages, print top costs")
    parser.add_argument("--trace-memory", action="store_true", help="tracemalloc the stages")
    parser.add_argument("--no-cli", action="store_true", help="skip the whole-CLI row")
    parser.add_argument("--child", choices=("stages",), help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"many-hosts-{args.hosts}-v{GEN_VERSION}.pcap"
    if args.child:
        if args.profile:
            import cProfile
            import pstats
            profiler = cProfile.Profile()
            profiler.runcall(run_stages, path, args.db, args.data_dir)
            profiler.dump_stats(args.out / "many_hosts.pstats")
            stats = pstats.Stats(profiler)
            stats.sort_stats("cumulative").print_stats(40)
            stats.sort_stats("tottime").print_stats(25)
        elif args.trace_memory:
            import tracemalloc
            tracemalloc.start(8)
            run_stages(path, args.db, args.data_dir)
            print(f"  tracemalloc peak {tracemalloc.get_traced_memory()[1] / 2**20:.0f} MiB")
            for stat in tracemalloc.take_snapshot().statistics("lineno")[:15]:
                print("   ", stat)
        else:
            run_stages(path, args.db, args.data_dir)
        return
    if not path.exists():
        started = time.perf_counter()
        build_crowd(path, args.hosts)
        print(f"generated {path} ({path.stat().st_size / 2**20:.1f} MiB) in {time.perf_counter() - started:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        for label, runner in (("stages", "child"), ("cli", "cli")):
            if runner == "cli" and (args.no_cli or args.profile or args.trace_memory):
                continue
            data_dir = Path(tmp) / label
            db_url = args.db or f"sqlite:///{data_dir / 'bench.sqlite3'}"
            data_dir.mkdir()
            if args.db:
                _reset_postgres_schema(args.db)
            print(f"{args.hosts} hosts, {path.stat().st_size / 2**20:.1f} MiB capture, "
                  f"database {db_url.split(':', 1)[0]}, {label}:", flush=True)
            if runner == "cli":
                run_cli(path, db_url, data_dir)
                continue
            extra = ["--profile"] if args.profile else ["--trace-memory"] if args.trace_memory else []
            subprocess.run([sys.executable, __file__, "--child", "stages", "--hosts", str(args.hosts),
                            "--out", str(args.out), "--db", db_url, "--data-dir", str(data_dir), *extra],
                           check=True)
    if not args.keep:
        path.unlink()


if __name__ == "__main__":
    main()
