"""One capture's walk split into shards, on local processes or a Dask cluster, merged exactly.

`run_extract` is what persist calls: with one worker and no scheduler it is `extract` as it
always was; otherwise the capture is walked in N shards (extract/shard.py: every frame
belongs to one shard, by its flow) and `merge` folds their results into what one walk gives,
byte for byte. How the shards get their frames (`sharded`):

- by byte range (extract/ranges.py, extract/spill.py), when the capture allows it: each
  worker reads only its range, sends the frames other shards own to them through spill
  files, and walks its own frames in the capture's order: three steps of N tasks
  (`by_ranges`), each a barrier;
- else (gzip, a cut or damaged capture, a small one, a limit counted over the whole
  capture: `RangeDoubt`) every shard reads the whole capture and keeps its own frames.

The merge:

- facts: per (entity, kind, value, source) first frame = min, last = max, count = sum, each
  time with its frame; `oui-vendor` (one per MAC an address sent from, at the MAC's first
  sighting) is derived again from the merged `mac` facts, as link-identity does at its end;
- conversations: each shard writes its rows as runs sorted by first frame (`_Runs`), and
  the parent merges the runs as streams (frame order, then the order one walk wrote); hosts
  and notices: the union (no flow spans shards), notices in frame order;
- the manifest: rebuilt from the summed tallies (notices by kind, bugs, the first bug by
  frame) with the same function one walk uses.

A shard process or cluster that fails (a killed pool, an unreachable scheduler, a bug in a
shard) costs the same: one walk here, which raises the input's own error if it has one.
What one walk does only when a bounded table overflows (the fact table, conversations held,
notices kept, an extractor's eviction) or that routing cannot keep in one shard (DHCP inside
a tunnel, ...) makes `merge` raise `Fallback`: the capture is then walked once, in this
process, so the answer never depends on the number of workers.

Local shards run in `spawn`ed processes (safe under any start method and in servers with
threads); progress is the slowest shard's (during a byte-range walk's last step: the share
of its frames walked). A Dask cluster (`scheduler`, tls://host:8786, or tcp:// on this
machine: dask_trust.py, the results are unpickled) runs the same tasks; the capture's path
must name the same file on every worker (shared storage), and so must the directory of the
spill files and conversation runs (next to the capture, or TRACEPCAP_SHARD_DIR). A worker
lost mid-walk costs its task a retry on another worker (the scheduler's
`allowed-failures`), not the capture.
"""

from __future__ import annotations

import gc
import heapq
import logging
import os
import pickle
import re
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ..dask_trust import DaskCluster, as_cluster
from ..errors import AnalysisCancelled
from ..keys import ip_sort_key
from ..limits import Limits
from .facts import Grade, Observation, Witness
from .kinds import MAC, OUI_VENDOR
from .pipeline import ExtractResult, Notices, _Tally, extract, manifest_rows
from .ranges import RangeDoubt, split
from .shard import Shard
from .spill import Plan, Routed, SpillReader, count_range, route_range, spill_dir

log = logging.getLogger(__name__)
PROGRESS_SECONDS = 0.5  #: how often the parent reports the shards' progress
LINK_IDENTITY = "link-identity"
_NOTE_PART = re.compile(r"^(\d+) (.*)$", re.S)


class Fallback(Exception):
    """The shards cannot be merged into exactly one walk's result; why."""


@dataclass(slots=True)
class ShardOutput:
    result: ExtractResult
    #: the shard's last conversation rows, sorted by first frame (the earlier ones are in `runs`)
    conversations: list[dict]
    shard: Shard
    peak_rss: int = 0  #: bytes, the shard process's peak resident set (ru_maxrss)
    pid: int = 0  #: the process that walked it
    cpu_s: float = 0.0  #: CPU seconds that process had used when the shard was walked (benchmarks)
    #: (entity, kind, value, source, grade, first frame, first time, last frame, last time,
    #: count, extractor, version) for each fact (result.observations is left empty)
    facts: list[tuple] = field(default_factory=list)
    #: files of RUN_ROWS conversation rows each, sorted by first frame, in the order written
    runs: list[str] = field(default_factory=list)
    directory: str | None = None  #: where the runs are (removed by `run_extract`)

    def rows(self) -> list[Iterable[dict]]:
        """The shard's conversation rows, as sorted runs in the order they were written."""
        return [*(_read_run(run) for run in self.runs), self.conversations]


RUN_ROWS = 20_000  #: conversation rows a shard holds before it writes them out as a sorted run
RUN_CHUNK = 1_000  #: rows per pickle in a run file


class _Runs:
    """A shard's conversation rows, written out every RUN_ROWS as a run sorted by first frame
    (a stable sort: one walk's order within a frame), so neither the shard nor the parent
    that merges the runs as streams holds them all. The directory is made at the first run:
    the plan's, or a new one next to the capture (extract/spill.py `spill_dir`)."""

    def __init__(self, path: str, directory: str | None) -> None:
        self.path, self.directory = path, directory
        self.rows: list[dict] = []
        self.runs: list[str] = []

    def add(self, row: dict) -> None:
        self.rows.append(row)
        if len(self.rows) >= RUN_ROWS:
            self.write()

    def write(self) -> None:
        if self.directory is None:
            self.directory = spill_dir(self.path)
        self.rows.sort(key=_first_frame)
        name = os.path.join(self.directory, f"run-{os.getpid()}-{time.time_ns()}-{len(self.runs)}")
        with open(name, "wb") as out:
            for at in range(0, len(self.rows), RUN_CHUNK):
                pickle.dump(self.rows[at:at + RUN_CHUNK], out, pickle.HIGHEST_PROTOCOL)
        self.runs.append(name)
        self.rows = []

    def last(self) -> list[dict]:
        self.rows.sort(key=_first_frame)
        return self.rows


def _first_frame(row: dict) -> int:
    return row["first_frame"]


def _read_run(name: str) -> Iterator[dict]:
    """A run's rows (the runs are this walk's own files, written by `_Runs`)."""
    with open(name, "rb") as f:
        while True:
            try:
                chunk = pickle.load(f)  # noqa: S301 - a file this walk's shard wrote
            except EOFError:
                return
            yield from chunk


# --- running one shard (in a local process, on a Dask worker, or in-process) -------------

_progress = None  # set in a local worker: (shared byte offsets, shared cancel flag)


def _init_worker(offsets, cancel) -> None:
    global _progress
    _progress = (offsets, cancel)


def run_shard(path: str, capture_id: str, limits: Limits, index: int, count: int,
              plan: Plan | None = None) -> ShardOutput:
    """Walk shard `index` of `count` of the capture at `path`: the frames it keeps of the
    whole capture, or with a byte-range `plan` those routed to it (extract/spill.py)."""
    runs = _Runs(path, None if plan is None else plan.directory)
    shard = Shard(index, count, given=plan is not None)
    on_progress = _report(index) if _progress is not None else (lambda done, total: None)
    reader = None if plan is None else SpillReader(plan, index)
    result = extract(Path(path), capture_id, limits=limits, on_conversation=runs.add,
                     on_progress=on_progress, shard=shard, reader=reader)
    if plan is not None:  # the shard saw its own frames; the capture's times are the plan's
        result.first_time, result.last_time = plan.first_time, plan.last_time
    facts, shard.facts = shard.facts, []  # sent once, as ShardOutput.facts
    return ShardOutput(result, runs.last(), shard, peak_rss(), os.getpid(), time.process_time(), facts,
                       runs.runs, runs.directory)


def _report(index: int) -> Callable[[int, int], None]:
    offsets, cancel = _progress

    def on_progress(done: int, total: int) -> None:
        offsets[index] = done
        if cancel.value:
            raise AnalysisCancelled("cancelled")
    return on_progress


def _route(plan: Plan, index: int) -> Routed:
    return route_range(plan, index, _cancelled if _progress is not None else lambda: None)


def _cancelled() -> None:
    if _progress is not None and _progress[1].value:
        raise AnalysisCancelled("cancelled")


#: runs one function over argument tuples as tasks, returning their results in order; the
#: share is the part of the whole walk's progress the tasks make (from, to: 0 to 1)
RunAll = Callable[[Callable[..., Any], list[tuple], tuple[float, float]], list[Any]]
#: the progress each step of a byte-range walk makes (the walk of the frames is most of it)
COUNTED, ROUTED = 0.02, 0.12


def by_ranges(path: str, capture_id: str, limits: Limits, count: int, run_all: RunAll) -> list[ShardOutput]:
    """The shards of a byte-range walk (extract/spill.py), each step's tasks run by `run_all`;
    RangeDoubt when the capture is not to be read in ranges (extract/ranges.py)."""
    framing, ranges = split(Path(path), count, limits)
    plan = Plan(path, framing, tuple(ranges), spill_dir(path))
    try:
        counts = run_all(count_range, [(plan, i) for i in range(plan.count)], (0.0, COUNTED))
        plan = plan.numbered(counts, limits.max_records)
        plan = plan.timed(run_all(_route, [(plan, i) for i in range(plan.count)], (COUNTED, ROUTED)))
        outputs = run_all(run_shard, [(path, capture_id, limits, i, plan.count, plan) for i in range(plan.count)],
                          (ROUTED, 1.0))
    except BaseException:
        shutil.rmtree(plan.directory, ignore_errors=True)
        raise
    plan.remove_spills()  # the conversation runs stay, for the merge
    return outputs


def sharded(path: str, capture_id: str, limits: Limits, count: int, run_all: RunAll) -> list[ShardOutput]:
    """By byte range when the capture allows it, else every shard reading the whole capture."""
    try:
        return by_ranges(path, capture_id, limits, count, run_all)
    except RangeDoubt as why:
        log.info("capture %s: not read in byte ranges (%s); every shard reads all of it", capture_id, why)
    return run_all(run_shard, [(path, capture_id, limits, i, count) for i in range(count)], (0.0, 1.0))


def peak_rss() -> int:
    """This process's peak resident set, bytes (Linux reports ru_maxrss in KiB)."""
    try:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    except (ImportError, OSError):  # pragma: no cover - not on this platform
        return 0


# --- the entry point ----------------------------------------------------------------------

def run_extract(path: Path, capture_id: str, *, limits: Limits = Limits(), workers: int = 1,
                scheduler: str | None = None,
                on_conversation: Callable[[dict], None] = lambda row: None,
                on_progress: Callable[[int, int], None] = lambda done, total: None,
                runner: Callable | None = None) -> ExtractResult:
    """`extract` on `workers` local processes or on the Dask cluster at `scheduler` (one
    shard per worker thread); the result is the one-walk result.
    `runner(path, capture_id, limits, count, on_progress)` may replace both (tests)."""
    if runner is None and scheduler is None and workers <= 1:
        return extract(path, capture_id, limits=limits, on_conversation=on_conversation,
                       on_progress=on_progress)
    if runner is None:
        if scheduler:  # refused before the try below: a refusal is no failure to walk around
            as_cluster(scheduler).check()
        runner = (lambda *args: on_dask(scheduler, *args)) if scheduler else on_processes
    outputs: list[ShardOutput] = []
    try:
        outputs = runner(str(path), capture_id, limits, max(workers, 1), on_progress)
        result, rows = merge(outputs, capture_id, limits)
    except AnalysisCancelled:
        _remove(outputs)
        raise
    except Exception as why:  # noqa: BLE001 - a lost pool or cluster, or Fallback: walk once
        if isinstance(why, Fallback):
            log.info("capture %s: sharded results not mergeable exactly (%s); walking it once",
                     capture_id, why)
        else:
            log.warning("capture %s: the sharded walk failed (%s: %s); walking it once",
                        capture_id, type(why).__name__, why)
        _remove(outputs)
        return extract(path, capture_id, limits=limits, on_conversation=on_conversation,
                       on_progress=on_progress)
    try:
        for row in rows:
            on_conversation(row)
    finally:
        _remove(outputs)
    return result


def _remove(outputs: list[ShardOutput]) -> None:
    """The shards' working directories (their conversation runs)."""
    for directory in {out.directory for out in outputs if out.directory}:
        shutil.rmtree(directory, ignore_errors=True)


def in_process(path: str, capture_id: str, limits: Limits, count: int,
               on_progress: Callable[[int, int], None]) -> list[ShardOutput]:
    """Every shard one after the other in this process: the merge without the processes."""
    return sharded(path, capture_id, limits, count, lambda function, args, share: [function(*a) for a in args])


def on_processes(path: str, capture_id: str, limits: Limits, count: int,
                 on_progress: Callable[[int, int], None]) -> list[ShardOutput]:
    """One spawned process per shard; `on_progress` (which may raise to cancel) is called
    from here with the slowest shard's offset."""
    import multiprocessing  # here: a one-walk analysis (most) starts no process
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    ctx = multiprocessing.get_context("spawn")
    offsets = ctx.Array("q", count, lock=False)
    cancel = ctx.Value("b", 0, lock=False)
    total = os.path.getsize(path)
    with ProcessPoolExecutor(count, mp_context=ctx, initializer=_init_worker,
                             initargs=(offsets, cancel)) as pool:

        def run_all(function: Callable[..., Any], args: list[tuple], share: tuple[float, float]) -> list[Any]:
            for i in range(count):
                offsets[i] = 0
            futures = [pool.submit(function, *a) for a in args]
            start, span = share[0], share[1] - share[0]
            try:
                pending = set(futures)
                while pending:
                    _, pending = wait(pending, timeout=PROGRESS_SECONDS, return_when=FIRST_COMPLETED)
                    done = min(offsets[i] if not futures[i].done() else total for i in range(len(futures)))
                    on_progress(int(total * start + done * span), total)
                return [f.result() for f in futures]
            except BaseException:
                cancel.value = 1  # each task stops at its next progress tick
                for f in futures:
                    f.cancel()
                raise
        return sharded(path, capture_id, limits, count, run_all)


def on_dask(scheduler: str | DaskCluster, path: str, capture_id: str, limits: Limits, count: int,
            on_progress: Callable[[int, int], None]) -> list[ShardOutput]:
    """The shards as tasks on the Dask cluster at `scheduler`, one per worker thread it has
    (`count` is not used: the cluster's size decides); progress counts finished shards. The
    results are unpickled: only a trusted cluster, over TLS or on this machine (dask_trust.py).
    Called inside a Dask task (a whole analysis `serve` sent to the cluster: dask_analysis.py)
    it uses that worker's own client, which leaves the worker's thread pool while the shards
    run on it."""
    with _dask_client(as_cluster(scheduler)) as client:
        total = os.path.getsize(path)
        slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
        count = max(slots, 1)
        stamp = time.time_ns()

        def run_all(function: Callable[..., Any], args: list[tuple], share: tuple[float, float]) -> list[Any]:
            start, span = share[0], share[1] - share[0]
            futures = [client.submit(function, *a, pure=False,
                                     key=f"tracepcap-shard-{capture_id}-{function.__name__}-{i}-of-{count}-{stamp}")
                       for i, a in enumerate(args)]
            try:
                pending = list(futures)
                while pending:
                    time.sleep(PROGRESS_SECONDS)
                    pending = [f for f in pending if not f.done()]
                    on_progress(int(total * (start + span * (len(futures) - len(pending)) / len(futures))), total)
                return client.gather(futures)
            except BaseException:
                client.cancel(futures)
                raise
        return sharded(path, capture_id, limits, count, run_all)


@contextmanager
def _dask_client(cluster: DaskCluster) -> Iterator[Any]:
    """A client of `cluster` (checked first: SchedulerRefused); inside a Dask task, the
    worker's own (its scheduler is the one the task came from), seceding while it waits."""
    from distributed import Client, get_worker, worker_client

    try:
        get_worker()
    except ValueError:  # not in a Dask task
        security = cluster.security()
        with Client(cluster.address, security=security, set_as_default=False, timeout="30s") as client:
            yield client
        return
    with worker_client(timeout="30s") as client:
        yield client


# --- the merge -------------------------------------------------------------------------------

def merge(outputs: list[ShardOutput], capture_id: str, limits: Limits) -> tuple[ExtractResult, Iterator[dict]]:
    """The one-walk result and its conversations (in the order to store them: the shards'
    sorted runs merged as streams, by first frame, ties in shard then writing order) from
    every shard's; Fallback when that cannot be exact."""
    outputs = sorted(outputs, key=lambda o: o.shard.index)
    base = outputs[0].result
    for out in outputs:
        r, s = out.result, out.shard
        if s.conflicts:
            raise Fallback(", ".join(sorted(s.conflicts)))
        if (r.format, r.packets, r.partial, r.first_time, r.last_time) != \
                (base.format, base.packets, base.partial, base.first_time, base.last_time):
            raise Fallback("the shards read the capture differently")
        if r.extra:
            raise Fallback(f"shard {s.index} evicted ({r.extra})")
        if any(row.extractor == "fact-table" for row in r.manifest):
            raise Fallback(f"shard {s.index} dropped facts past the limit")
    if any(o.shard.inner_arp for o in outputs) and any(o.shard.announcements for o in outputs):
        raise Fallback("ARP inside a tunnel, with LLDP or CDP in the capture")
    held = [sum(counts) for counts in zip(*(o.shard.flow_peaks for o in outputs), strict=False)]
    if held and max(held) > limits.max_flows:
        raise Fallback("more conversations at once than one walk holds")
    rows = heapq.merge(*(run for out in outputs for run in out.rows()), key=_first_frame)

    with _no_collection():
        facts = _merge_facts(outputs)
        if len(facts) > limits.max_facts:
            raise Fallback("more facts than the fact table holds")
        grades = {str(grade): grade for grade in Grade}
        observations = [Observation(entity, kind, value, source, grades[grade],
                                    Witness(capture_id, f0, f1, count, t0, t1, name, version))
                        for (entity, kind, value, source), (f0, t0, f1, t1, count, name, version, grade)
                        in sorted(facts.items())]

    counts: dict[str, int] = {}
    for out in outputs:
        for kind, n in out.result.notice_counts.items():
            counts[kind] = counts.get(kind, 0) + n
    if sum(counts.values()) > limits.max_notices:
        raise Fallback("more notices than one walk keeps")
    notices = [n for out in outputs for n in out.result.notices]
    notices.sort(key=lambda n: n.frame)

    hosts = sorted({ip for out in outputs for ip in out.result.hosts}, key=ip_sort_key)
    manifest = _manifest(outputs, base, facts)
    return ExtractResult(base.format, base.packets, base.partial, manifest, observations, hosts,
                         sum(out.result.conversations for out in outputs), base.first_time, base.last_time, {}, notices,
                         dict(sorted(counts.items()))), rows


@contextmanager
def _no_collection() -> Iterator[None]:
    """The cyclic garbage collector paused: the merge allocates ~10 objects a fact and frees
    none of them (no cycles to find), and each collection would walk every one so far (half
    the merge's CPU at 60,000 facts)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _merge_facts(outputs: list[ShardOutput]) -> dict[tuple, list]:
    """key -> [first frame, first time, last frame, last time, count, extractor, version,
    grade]; the `oui-vendor` facts derived again from the merged `mac` facts."""
    facts: dict[tuple, list] = {}
    vendors = False
    oui = OUI_VENDOR.name
    for out in outputs:
        for entity, kind, value, source, grade, f0, t0, f1, t1, count, name, version in out.facts:
            if kind == oui and source == LINK_IDENTITY:
                vendors = True
                continue
            key = (entity, kind, value, source)
            row = facts.get(key)
            if row is None:
                facts[key] = [f0, t0, f1, t1, count, name, version, grade]
                continue
            if (row[5], row[6]) != (name, version):
                raise Fallback(f"two extractors emitted the same {kind} fact")
            if f0 < row[0]:
                row[0], row[1] = f0, t0
            if f1 >= row[2]:
                row[2], row[3] = f1, t1
            row[4] += count
    if vendors:
        from .extractors.link_identity import VERSION, vendor_of
        for (entity, kind, value, source), row in list(facts.items()):
            if kind != MAC.name or source != LINK_IDENTITY or int(value[:2], 16) & 0x01:
                continue
            vendor = vendor_of(value)
            if not vendor:
                continue
            key = (entity, OUI_VENDOR.name, vendor, LINK_IDENTITY)
            have = facts.get(key)
            if have is None:
                facts[key] = [row[0], row[1], row[0], row[1], 1, LINK_IDENTITY, VERSION, str(OUI_VENDOR.grade)]
            else:
                if row[0] < have[0]:
                    have[0], have[1] = row[0], row[1]
                if row[0] >= have[2]:
                    have[2], have[3] = row[0], row[1]
                have[4] += 1
    return facts


def _tally(name: str, by_kinds, count: int = 0, first: str = "", kind: str | None = None) -> _Tally:
    tally = _Tally(name, Notices(0), kind)
    for by_kind in by_kinds:
        for k, n in by_kind.items():
            tally.by_kind[k] = tally.by_kind.get(k, 0) + n
    tally.count, tally.first = count, first
    return tally


def _first_bug(firsts: list[str]) -> str:
    """The first bug by frame ("frame N: ...")."""
    def frame(text: str) -> int:
        found = re.match(r"frame (\d+):", text)
        return int(found.group(1)) if found else 0
    return min(firsts, key=frame) if firsts else ""


def _merge_notes(name: str, notes: list[str]) -> str | None:
    """An extractor's notes ("N things ...; M others ...") with their numbers summed."""
    notes = [n for n in notes if n]
    if len(set(notes)) <= 1:
        return notes[0] if notes else None
    split = [[_NOTE_PART.match(part) for part in note.split("; ")] for note in notes]
    if not all(all(split_note) for split_note in split):
        raise Fallback(f"{name}'s notes do not add up")
    order = max(([m.group(2) for m in s] for s in split), key=len)
    sums = dict.fromkeys(order, 0)
    for s in split:
        for m in s:
            if m.group(2) not in sums:
                raise Fallback(f"{name}'s notes do not add up")
            sums[m.group(2)] += int(m.group(1))
    return "; ".join(f"{n} {rest}" for rest, n in sums.items())


def _manifest(outputs: list[ShardOutput], base: ExtractResult, facts: dict[tuple, list]):
    shards = [out.shard for out in outputs]
    names = list(shards[0].extractors)
    instances, tallies = [], {}
    for name in names:
        states = [s.extractors[name] for s in shards]
        evicted = sum(state[4] for state in states)
        if evicted:
            raise Fallback(f"{name} evicted entries from a bounded table")
        instances.append(SimpleNamespace(NAME=name, VERSION=states[0][0], evicted=0,
                                         note=_merge_notes(name, [state[5] for state in states])))
        tallies[name] = _tally(name, [state[3] for state in states], sum(state[1] for state in states),
                               _first_bug([state[2] for state in states if state[1]]))
    undecodable = _tally("decoder", [s.tallies["decoder"] for s in shards])
    too_deep = _tally("decapsulation", [s.tallies["too-deep"] for s in shards], kind="decapsulation-too-deep")
    inner_lost = _tally("decapsulation", [s.tallies["inner-lost"] for s in shards])
    by_extractor: dict[str, int] = {}
    for row in facts.values():
        by_extractor[row[5]] = by_extractor.get(row[5], 0) + 1
    table = SimpleNamespace(dropped=0, limit=0, count_by_extractor=lambda: by_extractor)
    return manifest_rows(base.packets, base.partial, undecodable, sum(s.tunnelled for s in shards),
                         too_deep, inner_lost, instances, tallies, table)
