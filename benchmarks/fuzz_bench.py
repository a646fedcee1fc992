"""The long fuzz run: N damaged copies of the shared captures through Extract (issue 17).

The same mutants as tests/extract/test_fuzz.py (`tracepcap.testing.mutants`, fixed seed), many
more of them. Prints the count of each outcome per kind of damage (complete, partial,
"unusable" = not a capture), every other exception with the mutant that raised it (there
should be none), the slowest mutants, and the process's peak RSS. Asserts nothing.

Each mutant Extract read is then opened in the frame view (issue 23, item 5), through the
functions the API and the web frame page call: `capture_index` (index, gzip'd copy),
every frame read by the cursor and rendered by `frame_view` (decode, layers, time), the
full `frame_detail` (with a database session) at the first frame, the last, and every
mark's, and a pcapng slice of all frames. Outcomes: "viewed" (every frame the index
counts was read), "refused" (a 4xx: a bomb, no frames), "SHORT" (the cursor read fewer
frames than analysis counted: pages that 404), and "EXCEPTION" (a page that would 500).

With `--bomb-mib N` it also builds a gzip of a pcap header and N MiB of zeros (16-byte empty
records, the cheapest way to make the walk slow) and times Extract on it under the product's
default limits: how long one hostile upload can hold the analysis worker.

    .venv/bin/python benchmarks/fuzz_bench.py [--count 5000] [--seed 20261201] [--bomb-mib 1024] [--no-frames]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import resource
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from tracepcap.errors import UnusableCapture, UsageError
from tracepcap.extract.frame_index import FrameCursor
from tracepcap.extract.pipeline import discover, extract
from tracepcap.limits import Limits
from tracepcap.extract.slices import pcapng_slice
from tracepcap.ingest import capture_path
from tracepcap.present.read.frames import (MAX_SLICE_FRAMES, capture_index, decode, frame_detail, frame_view,
                                           frames_at)
from tracepcap.store.db import open_database
from tracepcap.store.models import Capture
from tracepcap.testing.mutants import KINDS, mutants

CAPTURES = Path(__file__).resolve().parents[2] / "shared" / "captures"
OUTCOMES = ("complete", "partial", "unusable", "EXCEPTION")
VIEW_OUTCOMES = ("viewed", "refused", "SHORT", "EXCEPTION")
#: as in the test: keeps the gzip-of-zeros mutants to ~0.05 s; --default-limits drops it
FUZZ_LIMITS = Limits(max_read_bytes=2 << 20, max_records=20_000)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(path: Path, limits: Limits, classes) -> tuple[str, str]:
    try:
        result = extract(path, "fuzz", limits=limits, classes=classes)
    except UnusableCapture:
        return "unusable", ""
    except Exception as err:  # noqa: BLE001 - what the benchmark exists to find
        return "EXCEPTION", f"{type(err).__name__}: {err}"
    return ("complete" if result.complete else "partial"), result.partial or ""


class FrameView:
    """The frame view of one stored capture at a time, as the API serves it."""

    def __init__(self, workdir: Path, limits: Limits) -> None:
        self.capture_dir = workdir / "captures"
        self.limits = limits
        self.db = open_database(f"sqlite:///{workdir / 'frames.sqlite3'}")

    def view(self, data: bytes, name: str) -> tuple[str, str]:
        sha = hashlib.sha256(data).hexdigest()
        stored = capture_path(self.capture_dir, sha)
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(data)
        capture = Capture(id=sha[:16], sha256=sha, name=name)
        try:
            return self._walk(capture)
        except UsageError as err:  # the API's 4xx: a bomb, no such frame
            return "refused", str(err)
        except Exception as err:  # noqa: BLE001 - what the stage exists to find
            return "EXCEPTION", f"{type(err).__name__}: {err}"
        finally:
            for path in stored.parent.iterdir():
                path.unlink()

    def _walk(self, capture: Capture) -> tuple[str, str]:
        path, index = capture_index(self.capture_dir, capture, self.limits)
        if index.frames == 0:
            return "refused", "no frames"
        read = 0
        with FrameCursor(path, index) as cursor:
            for frame in cursor.frames_from(1):
                pkt, error = decode(frame, index)
                frame_view(capture, index, frame, pkt, error, None)
                read += 1
        if read != index.frames:
            return "SHORT", f"the cursor read {read} of the {index.frames} frames analysis counted"
        with self.db.session() as session:
            for number in sorted({1, index.frames, *(mark[0] for mark in index.marks)}):
                frame_detail(session, capture, path, index, number)
        numbers = list(range(1, min(index.frames, MAX_SLICE_FRAMES) + 1))
        for _block in pcapng_slice(index, frames_at(path, index, numbers), capture.name):
            pass
        return "viewed", ""


def fuzz(count: int, seed: int, limits: Limits, workdir: Path, frames: bool = True) -> None:
    seeds = [(p.name, p.read_bytes()) for p in sorted(CAPTURES.iterdir()) if p.suffix in (".pcap", ".pcapng")]
    classes = discover()
    path = workdir / "mutant"
    table = {kind: Counter() for kind in KINDS}
    views = {kind: Counter() for kind in KINDS}
    viewer = FrameView(workdir, limits) if frames else None
    failures: list[str] = []
    view_failures: list[str] = []
    times: list[tuple[float, str]] = []
    view_seconds = 0.0
    started = time.perf_counter()
    for mutant in mutants(seeds, count, seed):
        path.write_bytes(mutant.data)
        t0 = time.perf_counter()
        result, detail = run(path, limits, classes)
        times.append((time.perf_counter() - t0, mutant.name))
        table[mutant.kind][result] += 1
        if result == "EXCEPTION":
            failures.append(f"{mutant.name}: {detail}")
        if viewer is not None and result in ("complete", "partial"):
            t1 = time.perf_counter()
            shown, why = viewer.view(mutant.data, mutant.name)
            view_seconds += time.perf_counter() - t1
            views[mutant.kind][shown] += 1
            if shown in ("SHORT", "EXCEPTION"):
                view_failures.append(f"{mutant.name}: {shown} {why}")
    total = time.perf_counter() - started
    print(f"{count} mutants of {len(seeds)} captures, seed {seed}, limits: "
          f"{limits.max_read_bytes} bytes, {limits.max_records} records")
    print(f"{'kind':<14}" + "".join(f"{o:>11}" for o in OUTCOMES))
    for kind in KINDS:
        print(f"{kind:<14}" + "".join(f"{table[kind][o]:>11}" for o in OUTCOMES))
    print(f"{'all':<14}" + "".join(f"{sum(t[o] for t in table.values()):>11}" for o in OUTCOMES))
    times.sort(reverse=True)
    print(f"wall {total:.1f} s, mean {1000 * total / count:.1f} ms per mutant; slowest: "
          + ", ".join(f"{name} {seconds:.2f} s" for seconds, name in times[:3]))
    for line in failures[:20]:
        print("EXCEPTION", line)
    if viewer is not None:
        print(f"frame view of the {sum(sum(v.values()) for v in views.values())} mutants Extract read "
              f"(every frame rendered; frame_detail at each mark; a slice of all): {view_seconds:.1f} s")
        print(f"{'kind':<14}" + "".join(f"{o:>11}" for o in VIEW_OUTCOMES))
        for kind in KINDS:
            print(f"{kind:<14}" + "".join(f"{views[kind][o]:>11}" for o in VIEW_OUTCOMES))
        print(f"{'all':<14}" + "".join(f"{sum(v[o] for v in views.values()):>11}" for o in VIEW_OUTCOMES))
        for line in view_failures[:20]:
            print("FRAME VIEW", line)


def bomb(mib: int, workdir: Path) -> None:
    path = workdir / "bomb.pcap.gz"
    header = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")
    zeros = bytes(1 << 20)
    with gzip.open(path, "wb", compresslevel=9) as f:
        f.write(header)
        for _ in range(mib):
            f.write(zeros)
    limits = Limits()
    t0 = time.perf_counter()
    result, detail = run(path, limits, discover())
    print(f"bomb: {path.stat().st_size:,} bytes gzip'd holding {mib} MiB of empty records; "
          f"default limits ({limits.max_read_bytes:,} bytes, {limits.max_records:,} records): "
          f"{result} after {time.perf_counter() - t0:.1f} s: {detail}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--default-limits", action="store_true",
                        help="the product's limits for the mutants too (gzip-of-zeros then ~0.4 s each)")
    parser.add_argument("--bomb-mib", type=int, default=0, help="also time one gzip bomb of this many MiB")
    parser.add_argument("--no-frames", action="store_true", help="skip the frame-view stage")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.count:
            fuzz(args.count, args.seed, Limits() if args.default_limits else FUZZ_LIMITS, Path(tmp),
                 frames=not args.no_frames)
        if args.bomb_mib:
            bomb(args.bomb_mib, Path(tmp))
    print(f"peak RSS {peak_rss_mb():.0f} MB (this process: interpreter, extract, one mutant at a time)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
