#!/usr/bin/env python3
"""Start-up as a user feels it: prints figures, asserts nothing.

    .venv/bin/python benchmarks/startup_bench.py [--capture dns_demo.pcap] [--runs 7] [--src DIR]

Each row is a fresh process, timed by the CPU (user + system) the kernel counts for it, the
median of --runs after one warm-up run (which also writes the bytecode caches a pip install
has, into a temporary PYTHONPYCACHEPREFIX, so nothing is written beside the source):

- `python -c pass`: the interpreter alone, the floor under every row;
- `tracepcap --help`: parsing only;
- `tracepcap analyze CAPTURE` on a database already at the newest revision (the warm-up
  created it), printing the table to /dev/null;
- the same on a new SQLite file each run (what a script that gives each capture its own
  `--db` pays: the schema is created too);
- `tshark -r CAPTURE` to /dev/null, in the same run, and the ratios to it.

`--src` runs another checkout's `src` (e.g. an export of main, for a before/after) with this
same script. The commands run as the `tracepcap` entry point does: import
`tracepcap.present.cli` and call `main()`.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CAPTURE = ROOT.parent / "shared" / "captures" / "dns_demo.pcap"
ENTRY = "import sys; from tracepcap.present.cli import main; sys.exit(main())"


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one child process run to its end."""
    cpu, wall = child_cpu(), time.perf_counter()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall, cpu = time.perf_counter() - wall, child_cpu() - cpu
    if done.returncode not in (0, 3):  # 3: partial, still a finished analysis
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode(errors='replace')[-500:]}")
    return cpu, wall


def median_of(argv: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """`argv` may hold "{run}", replaced by the run's number (a new database file each run)."""
    def numbered(run: int) -> list[str]:
        return [part.replace("{run}", str(run)) for part in argv]
    timed(numbered(0), env)  # warm-up: bytecode caches, the database's schema, the page cache
    samples = [timed(numbered(run), env) for run in range(1, runs + 1)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--capture", type=Path, default=DEFAULT_CAPTURE)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--src", type=Path, default=ROOT / "src", help="the tracepcap source to time")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="startup-bench-"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": str(args.src.resolve()), "PYTHONPYCACHEPREFIX": str(work / "pyc"),
            "TRACEPCAP_DATA_DIR": str(work / "data")}
    db = f"sqlite:///{work / 'db.sqlite3'}"
    python = [sys.executable, "-c"]
    try:
        rows = {
            "python -c pass": median_of(python + ["pass"], env, args.runs),
            "tracepcap --help": median_of(python + [ENTRY, "--help"], env, args.runs),
            f"tracepcap analyze {args.capture.name}": median_of(
                python + [ENTRY, "analyze", str(args.capture), "--db", db], env, args.runs),
            "  the same, on a new database": median_of(
                python + [ENTRY, "analyze", str(args.capture), "--db", f"sqlite:///{work / 'new-{run}.sqlite3'}"],
                env, args.runs),
        }
        tshark = shutil.which("tshark")
        if tshark:
            rows[f"tshark -r {args.capture.name}"] = median_of([tshark, "-r", str(args.capture)], env, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"source {args.src}; median of {args.runs} runs after one warm-up; "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    base = rows.get(f"tshark -r {args.capture.name}", (None, None))[0]
    print(f"{'command':40} {'CPU s':>8} {'wall s':>8} {'CPU / tshark':>13}")
    for name, (cpu, wall) in rows.items():
        ratio = f"{cpu / base:13.2f}" if base else f"{'-':>13}"
        print(f"{name:40} {cpu:8.3f} {wall:8.3f} {ratio}")


if __name__ == "__main__":
    main()
