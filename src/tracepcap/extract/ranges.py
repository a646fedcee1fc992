"""A capture split into byte ranges at record boundaries, and each range's records read alone.

`split` cuts an uncompressed pcap or pcapng file into N ranges for N workers (extract/spill.py):
each range starts at a record (pcap) or block (pcapng) boundary found from a guessed offset by
resynchronising:

- classic pcap has no markers, so a candidate offset is accepted when a run of `RUN`
  consecutive record headers read from it are all plausible: captured length within the
  snap length and the original length, a sub-second fraction below its unit, timestamps
  within the capture's span around its first record and none far behind the one before it.
  A run that ends exactly at the end of the file is accepted too.
- pcapng blocks carry their length before and after: a candidate is a block of a known type
  whose trailing length equals its leading one, followed by `RUN` more such blocks (or the
  end of the file). A range in the middle reads its packets with the interfaces described
  by the section header and interface blocks before the first packet (`Framing`).

The heuristic only proposes boundaries; `RangeReader` proves them: each range is read from
its start and must land exactly on the next range's start (range 0 starts at the file's
first record, so by induction every boundary is a true one). What cannot be proved, or
that one walk would read differently (a second section, an interface described after the
first packet, a simple packet block, which takes its time from the packet before it, a
cut or damaged record anywhere), raises `RangeDoubt`: the caller then walks the capture
once. So does what `split` cannot split: gzip, captures past the byte limit, small ones.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..ingest.sniff import PCAP_MAGICS, sniff_file
from ..limits import Limits
from .reader import (
    EPB,
    IDB,
    MAX_RECORD,
    PB,
    PCAP_HEADER,
    SHB,
    SPB,
    BadBlock,
    Record,
    check_block,
    check_block_length,
    interface_of,
    section_order,
)

CHUNK = 1 << 20
RUN = 8  #: consecutive plausible headers (or blocks) that make a boundary
SCAN_BYTES = 4 * MAX_RECORD  #: how far past a guessed offset a boundary is looked for
MIN_RANGE_BYTES = 1 << 20  #: a range smaller than this is not worth a worker
SPAN_SECONDS = 10 * 365 * 86400  #: how far from the first record's time a record may be
BACKWARDS_SECONDS = 3600  #: how far behind the record before it a record's time may be
#: block types a pcapng resync accepts: section, interface, packets, name resolution,
#: interface statistics, decryption secrets, custom
KNOWN_BLOCKS = frozenset((SHB, IDB, PB, SPB, 4, 5, EPB, 0x0A, 0xBAD, 0x40000BAD))
PCAP_RECORD = 16


class RangeDoubt(Exception):
    """The capture cannot be read in ranges exactly as one walk reads it; why."""


@dataclass(frozen=True, slots=True)
class Framing:
    """What a reader needs to read records from the middle of the file."""

    format: str  #: "pcap", "pcap-ns" or "pcapng"
    order: str  #: struct byte order of the file (pcap) or its one section (pcapng)
    first_record: int  #: file offset of the first record (pcapng: the first packet block)
    linktype: int = 0  #: pcap: the file's link type
    snaplen: int = 0  #: pcap: the file's snap length
    #: pcapng: the section's interfaces (link type, ticks per second, offset in seconds)
    interfaces: tuple[tuple[int, int, float], ...] = ()


@dataclass(frozen=True, slots=True)
class ByteRange:
    start: int
    end: int


def framing_of(path: Path) -> Framing:
    """The file's framing; RangeDoubt for a format `split` does not handle."""
    fmt = sniff_file(path)
    if fmt.endswith("+gzip"):
        raise RangeDoubt("a gzip'd capture is read as one stream")
    with open(path, "rb") as f:
        if fmt != "pcapng":
            head = f.read(PCAP_HEADER)
            if len(head) < PCAP_HEADER:
                raise RangeDoubt("the pcap file header is cut short")
            order = PCAP_MAGICS[head[:4]][1]
            snaplen, network = struct.unpack_from(order + "II", head, 16)
            return Framing(fmt, order, PCAP_HEADER, network & 0x0FFFFFFF, snaplen)
        return _pcapng_framing(f)


def _pcapng_framing(f) -> Framing:
    """The section header and the interface blocks before the first packet block."""
    at, order = 0, "<"
    interfaces: list[tuple[int, int, float]] = []
    while True:
        f.seek(at)
        head = f.read(12)
        if len(head) < 12:
            raise RangeDoubt("no packet block in the capture")
        try:
            if at == 0:
                order = section_order(head, 0)
            elif head[:4] == b"\x0a\x0d\x0d\x0a":
                raise RangeDoubt("a second section before the first packet")
            btype, blen = struct.unpack_from(order + "II", head, 0)
            check_block_length(btype, blen)
            f.seek(at)
            block = f.read(blen)
            if len(block) < blen:
                raise RangeDoubt("the capture ends inside a block")
            check_block(block, 0, btype, blen, order, len(interfaces))
        except BadBlock as bad:
            raise RangeDoubt(str(bad)) from None
        if btype in (EPB, PB, SPB):
            return Framing("pcapng", order, at, interfaces=tuple(interfaces))
        if btype == IDB:
            interfaces.append(interface_of(block, order, 8, blen - 4))
        at += blen


def split(path: Path, count: int, limits: Limits = Limits(),
          min_range_bytes: int | None = None) -> tuple[Framing, list[ByteRange]]:
    """`count` ranges (fewer when the capture is small) covering the file's records;
    RangeDoubt when the file should be walked once."""
    minimum = MIN_RANGE_BYTES if min_range_bytes is None else min_range_bytes
    size = path.stat().st_size
    if size > limits.max_read_bytes:
        raise RangeDoubt("the capture is past the byte limit (one walk says where it stops)")
    framing = framing_of(path)
    body = size - framing.first_record
    count = max(1, min(count, body // max(minimum, 1)))
    if count < 2:
        raise RangeDoubt("too small to split")
    starts = [framing.first_record]
    with open(path, "rb") as f:
        first_time = _first_time(f, framing)
        for i in range(1, count):
            guess = framing.first_record + body * i // count
            found = resync(f, framing, max(guess, starts[-1] + 1), size, first_time)
            if found is None:
                raise RangeDoubt(f"no record boundary found after byte {guess}")
            if found >= size:
                break
            starts.append(found)
    if len(starts) < 2:
        raise RangeDoubt("no boundary inside the capture")
    return framing, [ByteRange(a, b) for a, b in zip(starts, [*starts[1:], size], strict=True)]


def _first_time(f, framing: Framing) -> int:
    if framing.format == "pcapng":
        return 0
    f.seek(framing.first_record)
    head = f.read(PCAP_RECORD)
    return struct.unpack_from(framing.order + "I", head, 0)[0] if len(head) == PCAP_RECORD else 0


def resync(f, framing: Framing, guess: int, size: int, first_time: int = 0) -> int | None:
    """The first offset at or after `guess` where `RUN` plausible records (or blocks) begin,
    or a shorter run ends exactly at the end of the file; None within SCAN_BYTES."""
    f.seek(guess)
    window = f.read(SCAN_BYTES + RUN * (PCAP_RECORD + 65536))  # the runs read past it from the file
    if framing.format == "pcapng":
        step = (-(guess - framing.first_record)) % 4  # blocks are 4-byte aligned from the file's start
        candidates = range(step, min(len(window), SCAN_BYTES) + 1, 4)
        check = _pcapng_run
    else:
        candidates = range(0, min(len(window), SCAN_BYTES) + 1)
        check = _pcap_run
    for at in candidates:
        if check(f, framing, window, at, guess, size, first_time):
            return guess + at
    return None


def _read_at(f, window: bytes, at: int, base: int, size: int) -> bytes:
    """`size` bytes at window offset `at`, from the window or the file past it."""
    if at + size <= len(window):
        return window[at:at + size]
    f.seek(base + at)
    return f.read(size)


def _pcap_run(f, framing: Framing, window: bytes, at: int, base: int, size: int, first_time: int) -> bool:
    unit = 1_000_000_000 if framing.format == "pcap-ns" else 1_000_000
    snap = framing.snaplen if 0 < framing.snaplen <= MAX_RECORD else MAX_RECORD
    header = struct.Struct(framing.order + "IIII")
    previous = None
    for _ in range(RUN):
        if base + at == size:
            return True
        head = _read_at(f, window, at, base, PCAP_RECORD)
        if len(head) < PCAP_RECORD:
            return False
        sec, frac, incl, orig = header.unpack(head)
        if frac >= unit or incl > snap or incl > orig or orig > MAX_RECORD \
                or abs(sec - first_time) > SPAN_SECONDS:
            return False
        if previous is not None and sec + BACKWARDS_SECONDS < previous:
            return False
        previous = sec
        at += PCAP_RECORD + incl
        if base + at > size:
            return False
    return True


def _pcapng_run(f, framing: Framing, window: bytes, at: int, base: int, size: int, first_time: int) -> bool:
    order = framing.order
    for _ in range(RUN):
        if base + at == size:
            return True
        head = _read_at(f, window, at, base, 8)
        if len(head) < 8:
            return False
        btype, blen = struct.unpack(order + "II", head)
        if btype not in KNOWN_BLOCKS or blen < 12 or blen % 4 or blen > MAX_RECORD or base + at + blen > size:
            return False
        tail = _read_at(f, window, at + blen - 4, base, 4)
        if struct.unpack(order + "I", tail)[0] != blen:
            return False
        at += blen
    return True


class RangeReader:
    """The records of one byte range, as `CaptureReader.records` yields them; `packets` counts
    them. RangeDoubt when the range does not end exactly at `end` on a record boundary, or
    holds what one walk would read differently (module doc)."""

    def __init__(self, path: Path, framing: Framing, byte_range: ByteRange) -> None:
        self.path, self.framing, self.range = path, framing, byte_range
        self.packets = 0

    def records(self, owners: bytes | None = None, owner: int = 0) -> Iterator[Record]:
        """The range's records; with `owners` (a byte per record), only those `owner` owns
        (`packets` then numbers the one yielded last within the range)."""
        with open(self.path, "rb") as f:
            f.seek(self.range.start)
            if self.framing.format == "pcapng":
                yield from self._pcapng(f, owners, owner)
            else:
                yield from self._pcap(f, owners, owner)

    def count(self) -> int:
        """How many records the range holds (its boundaries checked as `records` does)."""
        if self.framing.format == "pcapng":
            for _ in self.records():
                pass
            return self.packets
        incl_at = struct.Struct(self.framing.order + "I").unpack_from
        end = self.range.end
        base, buf, pos, packets = self.range.start, b"", 0, 0
        with open(self.path, "rb") as f:
            while base + pos < end:
                if len(buf) - pos < PCAP_RECORD:
                    f.seek(base + pos)
                    base, buf, pos = base + pos, f.read(CHUNK), 0
                    if len(buf) < PCAP_RECORD:
                        raise RangeDoubt(f"the capture ends inside a record header at byte {base}")
                incl = incl_at(buf, pos + 8)[0]
                if incl > MAX_RECORD:
                    raise RangeDoubt(f"a record at byte {base + pos} claims {incl} bytes")
                pos += PCAP_RECORD + incl
                packets += 1
        if base + pos != end:
            raise RangeDoubt(f"a record runs past byte {end}")
        self.packets = packets
        return packets

    def _pcap(self, f, owners: bytes | None, owner: int) -> Iterator[Record]:
        framing = self.framing
        unpack = struct.Struct(framing.order + "IIII").unpack_from
        scale = 1e-9 if framing.format == "pcap-ns" else 1e-6
        linktype, end = framing.linktype, self.range.end
        base, buf, pos = self.range.start, b"", 0
        view = memoryview(buf)
        while base + pos < end:
            if len(buf) - pos < PCAP_RECORD:
                base, buf, pos = base + pos, buf[pos:] + f.read(CHUNK), 0
                view = memoryview(buf)
                if len(buf) < PCAP_RECORD:
                    raise RangeDoubt(f"the capture ends inside a record header at byte {base}")
            sec, frac, incl, orig = unpack(buf, pos)
            if incl > MAX_RECORD:
                raise RangeDoubt(f"a record at byte {base + pos} claims {incl} bytes")
            start = pos + PCAP_RECORD
            stop = start + incl
            if stop > len(buf):
                base, buf, pos = base + pos, buf[pos:] + f.read(max(CHUNK, stop - pos)), 0
                view = memoryview(buf)
                start, stop = PCAP_RECORD, PCAP_RECORD + incl
                if stop > len(buf):
                    raise RangeDoubt(f"a record at byte {base} is cut short by the end of the capture")
            pos = stop
            self.packets += 1
            if owners is None or owners[self.packets - 1] == owner:
                yield linktype, sec + frac * scale, orig, view[start:stop]
        if base + pos != end:
            raise RangeDoubt(f"a record runs past byte {end}")

    def _pcapng(self, f, owners: bytes | None, owner: int) -> Iterator[Record]:
        framing = self.framing
        order, interfaces, end = framing.order, framing.interfaces, self.range.end
        head = struct.Struct(order + "II").unpack_from
        base, buf, pos = self.range.start, b"", 0
        while base + pos < end:
            if len(buf) - pos < 12:
                base, buf, pos = base + pos, buf[pos:] + f.read(CHUNK), 0
                if len(buf) < 12:
                    raise RangeDoubt(f"the capture ends inside a block header at byte {base}")
            if buf[pos:pos + 4] == b"\x0a\x0d\x0d\x0a":
                raise RangeDoubt(f"a second section at byte {base + pos}")
            btype, blen = head(buf, pos)
            try:
                check_block_length(btype, blen)
                if pos + blen > len(buf):
                    base, buf, pos = base + pos, buf[pos:] + f.read(max(CHUNK, blen)), 0
                    if blen > len(buf):
                        raise RangeDoubt(f"a block at byte {base} is cut short by the end of the capture")
                packet = check_block(buf, pos, btype, blen, order, len(interfaces))
            except BadBlock as bad:
                raise RangeDoubt(f"{bad} at byte {base + pos}") from None
            if btype in (IDB, SPB):
                raise RangeDoubt(f"block of type {btype:#x} after the first packet, at byte {base + pos}")
            pos += blen
            if packet is None:
                continue
            iface, ticks, incl, orig, data = packet
            linktype, units, offset = interfaces[iface]
            seconds, ticks = divmod(ticks, units)
            self.packets += 1
            if owners is None or owners[self.packets - 1] == owner:
                yield linktype, seconds + ticks / units + offset, orig, memoryview(buf)[data:data + incl]
        if base + pos != end:
            raise RangeDoubt(f"a block runs past byte {end}")
