"""Shards that each read only their part of the capture: byte ranges, routed frames, one walk's order.

A sharded walk by byte range (extract/parallel.py runs the steps as tasks, on local processes
or a Dask cluster) has three steps, each a task per range, and the parent between them:

1. `count_range`: range i's records are counted (headers only), which proves its boundaries
   (extract/ranges.py). The parent numbers the ranges: range i's first frame follows the
   records of the ranges before it (`Plan.numbered`).
2. `route_range`: range i's frames are read and each is given its owner, the shard the
   sharded walk has always kept it in (extract/shard.py: the flow key's, GLOBAL for what
   spans flows; from the raw bytes when it can, else decoded). A frame owned by another
   shard is written to the spill file for it (`SPILL` header: frame number, time, lengths,
   link type; then its bytes); the owners of the range's own frames are kept as one byte
   each. The range also notes the capture's clock at each checkpoint inside it (the latest
   time among its frames so far); the parent turns those into the capture's clock at every
   checkpoint (`Plan.timed`): what the flow table's idle expiry reads (extract/flows.py).
3. `SpillReader`: shard j walks its own frames, in the capture's order: range 0's frames
   for j (spilled), range 1's, ..., its own range's (read again from the capture, the
   owners telling which), ... Every flow is then walked by one shard in frame order, with
   the capture's frame numbers and its clock at every checkpoint, as one walk does; the
   merge (extract/parallel.py) is the same as for shards that read the whole capture.

The spill files live in one directory per walk (`spill_dir`: TRACEPCAP_SHARD_DIR, or next to
the capture, which Dask workers share), removed when the walk ends.
"""

from __future__ import annotations

import os
import struct
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from ..ingest.store import SHARD_DIR_PREFIX
from .decoders import DecodeError
from .flows import IdleClock
from .packet import decode_frame
from .ranges import ByteRange, Framing, RangeDoubt, RangeReader
from .reader import Record
from .shard import GLOBAL, packet_owner, raw_owner

SPILL = struct.Struct("<QdIIi")  #: frame, time, original length, captured length, link type
CHUNK = 1 << 20
EVERY = IdleClock.EVERY  #: records between the walk's checkpoints
SHARD_DIR = "TRACEPCAP_SHARD_DIR"


@dataclass(frozen=True, slots=True)
class Plan:
    """One byte-range walk: the capture's ranges, and what the steps learn of them."""

    path: str
    framing: Framing
    ranges: tuple[ByteRange, ...]
    directory: str  #: where the spill files are
    firsts: tuple[int, ...] = ()  #: the frames before each range
    packets: int = 0  #: the capture's records
    marks: tuple[float, ...] = ()  #: the capture's clock at checkpoint m (after frame (m + 1) * EVERY)
    owned: tuple[int, ...] = ()  #: the frames each shard walks
    first_time: float | None = None
    last_time: float | None = None

    @property
    def count(self) -> int:
        return len(self.ranges)

    def spill(self, source: int, owner: int) -> Path:
        return Path(self.directory) / f"spill-{source}-{owner}"

    def owners(self, source: int) -> Path:
        return Path(self.directory) / f"owners-{source}"

    def remove_spills(self) -> None:
        """The spill and owner files, once every shard has walked its frames."""
        for name in Path(self.directory).glob("spill-*"):
            name.unlink()
        for name in Path(self.directory).glob("owners-*"):
            name.unlink()

    def reader(self, index: int) -> RangeReader:
        return RangeReader(Path(self.path), self.framing, self.ranges[index])

    def numbered(self, counts: list[int], max_records: int) -> Plan:
        """The plan with each range's first frame; RangeDoubt past the record limit (one walk
        says where it stops) or for a capture without records."""
        packets = sum(counts)
        if packets > max_records or not packets:
            raise RangeDoubt(f"{packets} records: walked once")
        firsts = tuple(sum(counts[:i]) for i in range(len(counts)))
        return replace(self, firsts=firsts, packets=packets)

    def timed(self, routed: list[Routed]) -> Plan:
        """The plan with the capture's clock at every checkpoint, its first and last times,
        and each shard's frames, from every range's `route_range`."""
        marks: list[float] = []
        before = float("-inf")
        for r in routed:
            marks.extend(max(before, mark) for mark in r.marks)
            before = max(before, r.latest)
        if len(marks) != self.packets // EVERY:
            raise RangeDoubt("the ranges' checkpoints do not add up")  # pragma: no cover - a bug
        times = [r for r in routed if r.first_time is not None]
        owned = tuple(sum(r.sent[j] for r in routed) for j in range(self.count))
        return replace(self, marks=tuple(marks), owned=owned, first_time=times[0].first_time,
                       last_time=times[-1].last_time)


@dataclass(frozen=True, slots=True)
class Routed:
    """What `route_range` learnt of its range."""

    first_time: float | None
    last_time: float | None
    latest: float  #: the latest time among its frames
    marks: list[float]  #: the latest time so far at each checkpoint in the range
    sent: list[int]  #: its frames owned by each shard


def spill_dir(path: str) -> str:
    """A new directory for one walk's spill files: under TRACEPCAP_SHARD_DIR, else next to the
    capture (where the workers that read it can reach it), else in the system's temp."""
    base = os.environ.get(SHARD_DIR) or os.path.dirname(os.path.abspath(path))
    if not os.access(base, os.W_OK):
        base = tempfile.gettempdir()
    return tempfile.mkdtemp(prefix=SHARD_DIR_PREFIX, dir=base)


def count_range(plan: Plan, index: int) -> int:
    """Step 1: the records of range `index`, its boundaries proved (RangeDoubt)."""
    return plan.reader(index).count()


def route_range(plan: Plan, index: int, on_tick: Callable[[], None] = lambda: None) -> Routed:
    """Step 2 (module doc): the frames of range `index` owned by other shards spilled to them,
    the owners of the rest kept. `on_tick` is called every EVERY frames (it may raise to cancel)."""
    count = plan.count
    frame = plan.firsts[index]
    reader = plan.reader(index)
    outs = {j: open(plan.spill(index, j), "wb", buffering=CHUNK)  # noqa: SIM115 - closed below
            for j in range(count) if j != index}
    owners = bytearray()
    sent = [0] * count
    latest = float("-inf")
    marks: list[float] = []
    first_time: float | None = None
    ts = None
    pack = SPILL.pack
    try:
        for linktype, ts, wire_len, data in reader.records():
            frame += 1
            if first_time is None:
                first_time = ts
            if ts > latest:
                latest = ts
            if not frame % EVERY:
                marks.append(latest)
                on_tick()
            owner = raw_owner(linktype, data, count)
            if owner is None:
                try:
                    owner = packet_owner(decode_frame(linktype, data, frame, ts, wire_len), count)
                except DecodeError:
                    owner = GLOBAL
            sent[owner] += 1
            owners.append(owner)
            if owner == index:
                continue
            out = outs[owner]
            out.write(pack(frame, ts, wire_len, len(data), linktype))
            out.write(data)
    finally:
        for out in outs.values():
            out.close()
    if frame != (plan.firsts[index + 1] if index + 1 < count else plan.packets):
        raise RangeDoubt(f"range {index} read differently from how it was counted")
    plan.owners(index).write_bytes(owners)
    return Routed(first_time, ts, latest, marks, sent)


class SpillReader:
    """Step 3: shard `index`'s frames, in the capture's order (module doc), for extract's walk
    (a `RecordSource` that is `Numbered`: `frame` is the capture's number of the record it
    yielded last, `now_at` the capture's clock at a checkpoint)."""

    def __init__(self, plan: Plan, index: int) -> None:
        self.plan, self.index = plan, index
        self.format = plan.framing.format
        self.packets = plan.packets
        self.partial: str | None = None
        self.total_bytes = os.path.getsize(plan.path)
        self.numbered = self
        self.frame = 0
        self.seen = 0

    @property
    def bytes_read(self) -> int:
        """Progress: the capture's bytes in the share of this shard's frames walked."""
        owned = self.plan.owned[self.index] if self.plan.owned else 0
        return self.total_bytes * self.seen // owned if owned else self.total_bytes

    def now_at(self, frame: int) -> float:
        return self.plan.marks[frame // EVERY - 1]

    def close(self) -> None:
        pass

    def records(self) -> Iterator[Record]:
        for source in range(self.plan.count):
            yield from self._own(source) if source == self.index else self._spilled(source)

    def _own(self, source: int) -> Iterator[Record]:
        owners = self.plan.owners(source).read_bytes()
        first, reader = self.plan.firsts[source], self.plan.reader(source)
        for record in reader.records(owners, self.index):
            self.frame = first + reader.packets
            self.seen += 1
            yield record
        if reader.packets != len(owners):
            raise RangeDoubt(f"range {source} read differently from how it was routed")  # pragma: no cover

    def _spilled(self, source: int) -> Iterator[Record]:
        head = SPILL.size
        unpack = SPILL.unpack_from
        with open(self.plan.spill(source, self.index), "rb") as f:
            buf, pos = b"", 0
            view = memoryview(buf)
            while True:
                if len(buf) - pos < head:
                    buf, pos = buf[pos:] + f.read(CHUNK), 0
                    view = memoryview(buf)
                    if not buf:
                        return
                frame, ts, wire_len, incl, linktype = unpack(buf, pos)
                stop = pos + head + incl
                if stop > len(buf):
                    buf, pos = buf[pos:] + f.read(max(CHUNK, stop - pos)), 0
                    view = memoryview(buf)
                    stop = head + incl
                self.frame = frame
                self.seen += 1
                yield linktype, ts, wire_len, view[pos + head:stop]
                pos = stop
