"""Fuzz: damaged copies of the shared captures (issue 17). Fixed seeds, so a failure names a
mutant that can be rebuilt: `mutants(seed_captures(...), count, SEED)`, index in its name.

In process, 540 mutants go through Extract: each ends complete, partial or "not a capture"
(UnusableCapture) — never another exception — within a time bound, and the walk's memory
does not grow with them. Damaged bytes that still form records are traffic that violates its
protocol: notices, not partial rows (issue 12). So "partial" is the reader's word alone (the
file could not be read to its end, or hit a read limit): a partial extractor row would be
an extractor bug, and none may occur. A sample goes through the `tracepcap analyze` subprocess on each
store: only the documented exit codes (0, 2, 3), and no traceback on stderr. The longer run
(5,000+ mutants, its figures in docs/BENCHMARKS.md) is benchmarks/fuzz_bench.py.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import resource
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from tracepcap.errors import CaptureTooLarge, UnusableCapture
from tracepcap.extract.frame_index import FrameCursor
from tracepcap.extract.pipeline import discover, extract
from tracepcap.limits import Limits
from tracepcap.extract.slices import pcapng_slice
from tracepcap.ingest import capture_path
from tracepcap.present.read.frames import capture_index, frames_at
from tracepcap.store.models import Capture
from tracepcap.testing.mutants import KINDS, mutants

SEED = 20261201
COUNT = 540
#: small read limits keep the gzip-of-zeros mutants (up to 4 MiB of empty records) quick;
#: no seed capture comes near them (the largest has 1,755 packets and 377 KB)
LIMITS = Limits(max_read_bytes=2 << 20, max_records=20_000)
VIEWED = 270  #: mutants opened in the frame view too (every kind; the bench opens thousands)
SECONDS_PER_MUTANT = 10  # the slowest seen is ~0.2 s; this only catches a hang
RSS_GROWTH_MB = 150


def seed_captures(directory: Path) -> list[tuple[str, bytes]]:
    return [(p.name, p.read_bytes()) for p in sorted(directory.iterdir()) if p.suffix in (".pcap", ".pcapng")]


def outcome(path: Path, classes) -> str:
    try:
        result = extract(path, "fuzz", limits=LIMITS, classes=classes)
    except UnusableCapture:
        return "unusable"
    bugs = [row for row in result.manifest if row.status not in ("completed", "skipped") and row.extractor != "reader"]
    if bugs:
        return f"bug: {bugs}"
    return "complete" if result.complete else "partial"


def past_the_limits(zeros_bomb: bytes) -> bool:
    """Whether a gzip-zeros mutant (a pcap header and empty 16-byte records) holds more than
    the read limits let through."""
    size = len(gzip.decompress(zeros_bomb))
    return size > LIMITS.max_read_bytes or (size - 24) // 16 > LIMITS.max_records


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_mutants_end_in_a_documented_outcome_quickly_and_in_bounded_memory(captures, tmp_path):
    classes = discover()
    path = tmp_path / "mutant"
    seeds = seed_captures(captures)
    # warm up on the seeds themselves, so imports and caches are not counted as growth
    for name, data in seeds:
        path.write_bytes(data)
        assert outcome(path, classes) in ("complete", "partial"), name
    rss_before = peak_rss_mb()
    seen: Counter[tuple[str, str]] = Counter()
    bombs_cut = 0
    slowest = (0.0, "")
    for mutant in mutants(seeds, COUNT, SEED):
        path.write_bytes(mutant.data)
        started = time.perf_counter()
        try:
            result = outcome(path, classes)
        except Exception as err:  # noqa: BLE001 - the failure to report, with the mutant's name
            pytest.fail(f"{mutant.name}: {type(err).__name__}: {err}")
        elapsed = time.perf_counter() - started
        assert not result.startswith("bug"), (mutant.name, result)
        if mutant.kind == "gzip-zeros":
            cut = past_the_limits(mutant.data)
            bombs_cut += cut
            assert result == ("partial" if cut else "complete"), mutant.name  # empty records: notices
        slowest = max(slowest, (elapsed, mutant.name))
        seen[(mutant.kind, result)] += 1
    assert slowest[0] < SECONDS_PER_MUTANT, slowest
    assert peak_rss_mb() - rss_before < RSS_GROWTH_MB
    assert sum(seen.values()) == COUNT
    # every kind of damage was tried, and the damage was real: each outcome occurs
    assert {kind for kind, _ in seen} == set(KINDS)
    assert {result for _, result in seen} == {"complete", "partial", "unusable"}
    assert 0 < bombs_cut < COUNT // len(KINDS)  # both sides of the limits were tried


CLI_SAMPLE = 6  # one of each kind: SQLite gets the even ones, PostgreSQL the odd ones


def test_the_cli_exits_with_a_documented_code_and_never_a_traceback(captures, tmp_path, settings, db_url):
    env = {**os.environ, "TRACEPCAP_DATA_DIR": str(settings.data_dir),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    codes = Counter()
    sample = list(mutants(seed_captures(captures), CLI_SAMPLE, SEED + 1))
    for mutant in sample[0 if db_url.startswith("sqlite") else 1::2]:
        path = tmp_path / f"mutant-{len(codes)}"
        path.write_bytes(mutant.data)
        done = subprocess.run([sys.executable, "-m", "tracepcap.present.cli", "analyze", str(path),
                               "--db", settings.database_url], capture_output=True, text=True,
                              env=env, timeout=120)
        assert done.returncode in (0, 2, 3), (mutant.name, done.returncode, done.stderr)
        assert "Traceback" not in done.stderr, (mutant.name, done.stderr)
        if done.returncode == 2:
            assert done.stderr.startswith("tracepcap: ") and done.stderr.count("\n") == 1, done.stderr
        else:
            assert done.stderr == "", (mutant.name, done.stderr)
        codes[done.returncode] += 1
    assert sum(codes.values()) == CLI_SAMPLE // 2


def test_the_frame_view_reads_every_frame_analysis_counted_of_every_mutant(captures, tmp_path):
    """Issue 23, item 5: each mutant Extract reads is opened as the frame page and the slice
    route open it (`capture_index`: its index, a gzip'd one's copy), every frame is read by
    the cursor with its time and link type, and a slice of them is written: no exception,
    and as many frames as the walk counted (fewer would be pages answering 404)."""
    classes = discover()
    capture_dir = tmp_path / "captures"
    seeds = seed_captures(captures)
    failures = []
    viewed = 0
    for mutant in mutants(seeds, VIEWED, SEED):
        sha = hashlib.sha256(mutant.data).hexdigest()
        stored = capture_path(capture_dir, sha)
        stored.parent.mkdir(parents=True, exist_ok=True)
        stored.write_bytes(mutant.data)
        if outcome(stored, classes) == "unusable":
            shutil.rmtree(stored.parent)
            continue
        capture = Capture(id=sha[:16], sha256=sha, name=mutant.name)
        try:
            path, index = capture_index(capture_dir, capture, LIMITS)
            with FrameCursor(path, index) as cursor:
                read = [(frame.time(index), frame.linktype(index)) for frame in cursor.frames_from(1)] \
                    if index.frames else []
            numbers = list(range(1, min(index.frames, 1000) + 1))
            b"".join(pcapng_slice(index, frames_at(path, index, numbers), mutant.name))
            if len(read) != index.frames:
                failures.append(f"{mutant.name}: read {len(read)} of {index.frames} frames")
            viewed += 1
        except CaptureTooLarge:
            viewed += 1  # a bomb: the page's 413
        except Exception as err:  # noqa: BLE001 - each is a page answering 500
            failures.append(f"{mutant.name}: {type(err).__name__}: {err}")
        shutil.rmtree(stored.parent)
    assert viewed > VIEWED // 2
    assert failures == []
