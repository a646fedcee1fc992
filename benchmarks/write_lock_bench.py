#!/usr/bin/env python3
"""How long one analysis holds SQLite's write lock (issue 29): prints figures, asserts nothing.

    PYTHONPATH=src .venv/bin/python benchmarks/write_lock_bench.py [--hosts 1000] [--seed 1]
        [--repeat 3] [--out DIR]

SQLite has one writer per file: analyses running at once on a Dask cluster (or in `serve`'s
threads) overlap only what each does outside its writing transactions. This runs the whole
`analysis.analyze` of one accuracy-corpus capture (`tracepcap.testing.accuracy_corpus`, as
benchmarks/dask_serve_bench.py uploads; cached in --out) --repeat times in this process, each in a fresh
SQLite store, after one warm-up analysis, and times every `Database.session(write=True)` from
its start to its commit, named by the function of tracepcap that opened it. Printed per run:
the analysis's wall time, the time inside writing transactions (per opener), and what that
bounds two workers to: N analyses take at least N x (time under the lock) and N x wall / 2, so
the wall ratio of 1 worker to 2 is at most wall / max(locked, wall / 2).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

from tracepcap.store.db import Database

HERE = Path(__file__).resolve()


def opener() -> str:
    """The tracepcap function (outside the store and contextlib) that opened the session."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if "tracepcap" in name and not name.endswith(("store/db.py", "contextlib.py")) and name != str(HERE):
            return f"{Path(name).parent.name}/{Path(name).stem}.{frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


def instrument(spent: dict[str, float]) -> None:
    original = Database.session.__wrapped__  # the generator under @contextmanager

    @contextmanager
    def session(self, *, write: bool = False):
        if not write:
            yield from original(self, write=False)
            return
        where, started = opener(), time.perf_counter()
        try:
            yield from original(self, write=True)
        finally:
            spent[where] += time.perf_counter() - started
    Database.session = session  # type: ignore[method-assign]


def analyze_once(path: Path, root: Path) -> float:
    from tracepcap.adjudicate.actor import SYSTEM_ACTOR
    from tracepcap.analysis import analyze
    from tracepcap.ingest import store_file
    from tracepcap.settings import Settings
    from tracepcap.store import open_database

    settings = Settings(data_dir=root, database_url=f"sqlite:///{root / 'bench.sqlite3'}")
    db = open_database(settings.database_url)
    try:
        with db.session(write=True) as s:
            capture, _ = store_file(s, settings.capture_dir, path, uploaded_by=SYSTEM_ACTOR.name, max_bytes=1 << 30)
            capture_id = capture.id
        started = time.perf_counter()
        status = analyze(db, settings, capture_id)
        wall = time.perf_counter() - started
        assert str(status) == "done", status
        return wall
    finally:
        db.dispose()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "tracepcap-dask-serve-bench")
    args = ap.parse_args()
    from tracepcap.testing.accuracy_corpus import build
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"corpus-{args.hosts}-{args.seed}.pcap"
    if not path.exists():
        build(path.with_suffix(".tmp"), hosts=args.hosts, seed=args.seed)
        path.with_suffix(".tmp").rename(path)
    spent: dict[str, float] = defaultdict(float)
    instrument(spent)
    with tempfile.TemporaryDirectory() as scratch:
        analyze_once(path, Path(scratch))  # warm-up: imports, the registry, caches
    print(f"capture: {path} ({path.stat().st_size / 1e6:.1f} MB, {args.hosts} devices)")
    walls, locked = [], []
    for run in range(args.repeat):
        spent.clear()
        with tempfile.TemporaryDirectory() as scratch:
            walls.append(analyze_once(path, Path(scratch)))
        spent.pop("benchmarks/write_lock_bench.analyze_once", None)  # the upload, not the analysis
        spent.pop("?", None)
        locked.append(sum(spent.values()))
        parts = ", ".join(f"{name} {seconds:.3f}" for name, seconds in sorted(spent.items(), key=lambda kv: -kv[1]))
        print(f"run {run + 1}: {walls[-1]:.2f} s wall, {locked[-1]:.2f} s in write transactions ({parts})")
    wall, lock = statistics.median(walls), statistics.median(locked)
    print(f"median: {wall:.2f} s wall, {lock:.2f} s under the write lock ({lock / wall:.0%}); "
          f"2 workers bounded at {wall / max(lock, wall / 2):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
