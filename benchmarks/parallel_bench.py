#!/usr/bin/env python3
"""Parallel extract benchmark: prints figures, asserts nothing but identical results.

    PYTHONPATH=src .venv/bin/python benchmarks/parallel_bench.py [--size-gb 0.25] [--out DIR]
                                                                 [--workers 2] [--keep]

Uses extract_bench's synthetic office-LAN capture (generated once into --out, reused while
kept), then runs, one after another, each in its own process:
  a. `run_extract(workers=1)`: the one-process walk (today's path);
  b. `run_extract(workers=N)`: N spawned shard processes, merged;
  c. the same N shards on a Dask `LocalCluster` of N worker processes (1 thread each),
     started and warmed (tracepcap imported on every worker) before the clock starts.
  d. CPU seconds of one walk and of each worker's share of a byte-range walk (count, route
     and spill, walk its frames: extract/spill.py) in one warm process (start-up and transfer
     excluded): the speed-up N idle cores would give, whatever the machine's load.
For a-c: wall time, speed-up against (a), packets/s, the parent's peak RSS and CPU, each shard
process's peak RSS (ru_maxrss; a Dask worker's covers its whole life) and CPU (b: the pool's
processes, which ran every step), the CPU-bound ratio (the one walk's whole CPU over the
largest process's CPU in the row: the speed-up on idle cores, whatever else the machine ran),
and a digest of the result (facts, conversations, hosts, notices, manifest), which must be
the same in every row.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
MIB = 1 << 20


def _digest(result, rows) -> str:
    h = hashlib.sha256()
    for part in (result.manifest, result.observations, result.hosts, result.notices,
                 result.notice_counts, sorted(rows, key=lambda r: r["first_frame"])):
        h.update(repr(part).encode())
    return h.hexdigest()[:16]


def cpu_split(path: str, workers: int) -> dict:
    """CPU seconds of one walk and of each worker's share of a byte-range walk (its count,
    route and walk tasks), in this one process after a warm-up walk (no process start-up,
    imports or result transfer), and of the merge: what sharding costs per worker, whatever
    else the machine runs."""
    import shutil

    from tracepcap.extract import spill
    from tracepcap.extract.parallel import _route, merge, run_shard
    from tracepcap.extract.pipeline import extract
    from tracepcap.extract.ranges import split
    from tracepcap.limits import Limits
    extract(Path(path), "bench")
    c0 = time.process_time()
    extract(Path(path), "bench")
    one = time.process_time() - c0
    framing, ranges = split(Path(path), workers)
    plan = spill.Plan(path, framing, tuple(ranges), spill.spill_dir(path))
    steps: dict[str, list[float]] = {"count": [], "route": [], "walk": []}

    def timed(step: str, function, *args):
        c0 = time.process_time()
        out = function(*args)
        steps[step].append(time.process_time() - c0)
        return out
    try:
        counts = [timed("count", spill.count_range, plan, i) for i in range(plan.count)]
        plan = plan.numbered(counts, Limits().max_records)
        plan = plan.timed([timed("route", _route, plan, i) for i in range(plan.count)])
        outputs = [timed("walk", run_shard, path, "bench", Limits(), i, plan.count, plan)
                   for i in range(plan.count)]
    finally:
        shutil.rmtree(plan.directory, ignore_errors=True)
    c0 = time.process_time()
    merge(outputs, "bench", Limits())
    merged = time.process_time() - c0
    shards = [sum(step[i] for step in steps.values()) for i in range(plan.count)]
    return {"one_cpu_s": one, "shard_cpu_s": shards, "steps": steps, "merge_cpu_s": merged}


def row(kind: str, path: str, workers: int) -> dict:
    """One row, in this (fresh) process."""
    if kind == "cpu":
        return cpu_split(path, workers)
    from tracepcap.extract import parallel
    from tracepcap.limits import Limits

    limits, rows = Limits(), []
    shards: list = []
    real_processes = parallel.on_processes

    def keep(runner):
        def run(*args):
            shards[:] = runner(*args)
            return shards
        return run

    cluster = None
    scheduler = None
    if kind == "dask":
        from distributed import Client, LocalCluster
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               dashboard_address=None, scheduler_port=0, silence_logs=40)
        with Client(cluster.scheduler_address, set_as_default=False) as client:
            client.run(__import__, "tracepcap.extract.parallel")  # warm: imports off the clock
        scheduler = cluster.scheduler_address
        runner = keep(lambda *args: parallel.on_dask(scheduler, *args))
    else:
        runner = keep(real_processes) if workers > 1 else None
    import resource
    t0, c0 = time.perf_counter(), time.process_time()
    result = parallel.run_extract(Path(path), "bench", limits=limits, workers=workers,
                                  on_conversation=rows.append, runner=runner)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    if cluster is not None:
        cluster.close()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    by_pid: dict[int, float] = {}
    for s in shards:
        by_pid[s.pid] = max(by_pid.get(s.pid, 0.0), s.cpu_s)
    return {"kind": kind, "workers": workers if kind != "one" else 1, "wall_s": wall,
            "parent_cpu_s": cpu, "packets": result.packets, "parent_rss_mib": parallel.peak_rss() / MIB,
            "children_cpu_s": children.ru_utime + children.ru_stime,
            "process_cpu_s": sorted(by_pid.values(), reverse=True),
            "by_ranges": all(s.shard.given for s in shards) if shards else None,
            "shard_rss_mib": [round(s.peak_rss / MIB) for s in shards],
            "shard_conversations": [len(s.conversations) for s in shards],
            "digest": _digest(result, rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-gb", type=float, default=0.25)
    parser.add_argument("--out", type=Path, default=Path("/tmp/tracepcap-bench"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--rows", default="one,processes,dask,cpu",
                        help="which rows to run, of one,processes,dask,cpu")
    parser.add_argument("--row", nargs=3, metavar=("KIND", "PATH", "WORKERS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.row:
        print(json.dumps(row(args.row[0], args.row[1], int(args.row[2]))))
        return
    import extract_bench
    workdir = args.out / "work"
    workdir.mkdir(parents=True, exist_ok=True)
    capture, info = extract_bench.ensure_capture(args.out, args.size_gb, workdir)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()}, "
          f"Python {platform.python_version()}")
    extract_bench.warm(capture)
    results = []
    kinds = args.rows.split(",")
    for kind, workers in (("one", 1), ("processes", args.workers), ("dask", args.workers)):
        if kind not in kinds:
            continue
        print(f"running {kind} x{workers} ...", flush=True)
        out = subprocess.run([sys.executable, __file__, "--row", kind, str(capture), str(workers)],
                             capture_output=True, text=True, env=os.environ)
        if out.returncode:
            print(out.stderr[-3000:])
            raise SystemExit(f"row {kind} failed")
        results.append(json.loads(out.stdout.strip().splitlines()[-1]))
    base = results[0]["wall_s"] if results else 1.0
    size = capture.stat().st_size / MIB
    print(f"\ncapture {capture.name}: {size:,.0f} MiB, {results[0]['packets'] if results else 0:,} packets; "
          f"load after: {os.getloadavg()}")
    print(f"{'row':<22}{'wall s':>9}{'speed-up':>10}{'k pkt/s':>9}{'parent RSS MB':>15}{'parent CPU s':>14}  "
          f"{'shard peak RSS MB':<20}{'shard process CPU s':<22}{'CPU-bound':>10}  {'ranges':<7}{'digest':<18}")
    one_cpu = results[0]["parent_cpu_s"] if results else 1.0
    for r in results:
        name = {"one": "--workers 1", "processes": f"--workers {r['workers']}",
                "dask": f"Dask LocalCluster x{r['workers']}"}[r["kind"]]
        largest = max([r["parent_cpu_s"], *r["process_cpu_s"]])
        print(f"{name:<22}{r['wall_s']:>9.1f}{base / r['wall_s']:>9.2f}x{r['packets'] / r['wall_s'] / 1000:>9.1f}"
              f"{r['parent_rss_mib']:>15.0f}{r['parent_cpu_s']:>14.1f}  {str(r['shard_rss_mib']):<20}"
              f"{str([round(c, 1) for c in r['process_cpu_s']]):<22}{one_cpu / largest:>9.2f}x  "
              f"{str(r['by_ranges']):<7}{r['digest']:<18}")
    same = len({r["digest"] for r in results}) == 1
    print(f"results identical across rows: {same}")
    out = subprocess.run([sys.executable, __file__, "--row", "cpu", str(capture), str(args.workers)],
                         capture_output=True, text=True, env=os.environ) if "cpu" in kinds else None
    if out is not None and out.returncode:
        print(out.stderr[-3000:])
    if out is not None and out.returncode == 0:
        split = json.loads(out.stdout.strip().splitlines()[-1])
        shards = split["shard_cpu_s"]
        print(f"CPU, one process, warm: one walk {split['one_cpu_s']:.2f} s; byte-range workers "
              f"{', '.join(f'{c:.2f}' for c in shards)} s (the largest is "
              f"{max(shards) / split['one_cpu_s']:.2f} of one walk: the speed-up bound on "
              f"{args.workers} idle cores is {split['one_cpu_s'] / max(shards):.2f}x); steps "
              + "; ".join(f"{step} {', '.join(f'{c:.2f}' for c in cs)} s" for step, cs in split["steps"].items())
              + f"; merge {split['merge_cpu_s']:.2f} s")
    if not args.keep:
        capture.unlink(missing_ok=True)
        capture.with_suffix(".json").unlink(missing_ok=True)


if __name__ == "__main__":
    main()
