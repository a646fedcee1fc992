"""The frame index: where every `EVERY`-th frame of a stored capture begins, and what a reader
must know to start there (pcap header; pcapng sections and their interfaces), so that frame
n is read from the nearest mark before it instead of from the start of the file.

It is built during analysis: the `CaptureReader` takes a `FrameIndex` as its recorder and
calls `pcap`, `section`, `interface` and `mark` as it walks (one integer comparison per
record otherwise). It is a function of the capture's bytes alone, so it is kept as a small
JSON file beside the stored capture (`index_path`), content-addressed like it, written
atomically and removed with it. A capture analysed before the index existed gets one at its
first frame request (`load_or_build`: one sequential walk, once).

Offsets are of the *decompressed* stream. A gzip'd capture has no random access, so the
first frame asked of one decompresses it once into `<sha256>.decompressed` beside it
(`readable`, removed with the capture): that request pays a sequential decompression (~4 s
per 0.25 GiB on the loaded benchmark machine), every later one a seek, as for an
uncompressed capture. The copy is bounded as the walk was: it ends where the walk stopped
(`FrameIndex.end`: past the byte and record limits nothing is copied), it is refused (413)
for a capture whose walk the decompression-ratio limit stopped (a bomb) or that inflates
past that ratio while copied, and concurrent first requests make one copy: the writer holds
an exclusive `flock` on the stored capture, the others wait for it and reuse its copy. A copy
half-written by a killed process (`.inflate-<name>-*`) is removed by the next writer of that
capture, and by the start-up sweep (`ingest.store.sweep_stale_uploads`).

`FrameCursor` reads frames from a mark on. It parses only record framing (pcap record
headers, pcapng EPB/PB/SPB/SHB/IDB blocks) with `reader.py`'s own block checks, and never
reads past the frames the walk counted (`FrameIndex.frames`), so it yields exactly the
frames analysis accepted; decoding a frame's layers is the per-packet decoders' work
(`packet.decode_frame`).
"""

from __future__ import annotations

import bisect
import fcntl
import json
import os
import struct
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..errors import CaptureTooLarge
from ..ingest.gunzip import Gunzip, GzipDamaged, TooCompressed
from ..ingest.store import DECOMPRESSED_SUFFIX, FRAME_INDEX_SUFFIX, INFLATE_PREFIX
from ..limits import Limits
from .reader import (
    EPB,
    MAX_RECORD,
    RATIO_SETTING,
    BadBlock,
    CaptureReader,
    check_block,
    check_block_length,
    section_order,
)

EVERY = 1024  #: frames between marks: a frame is at most 1023 records' framing from its mark
VERSION = 1
READ = 1 << 20  # a mark's stretch of 1024 frames is about one read
INFLATE = 1 << 20  # decompressed bytes written at a time into the sidecar


def index_path(capture_file: Path) -> Path:
    """The index file beside a stored capture."""
    return capture_file.with_name(capture_file.name + FRAME_INDEX_SUFFIX)


@dataclass(slots=True)
class Interface:
    """A pcapng interface (or the pcap file's one link): link type, timestamp units per
    second, timestamp offset (seconds), and the raw IDB to copy into a slice (None for pcap)."""
    linktype: int
    units: int
    offset: float
    block: bytes | None = None


@dataclass(slots=True)
class Section:
    order: str  # "<" or ">"
    interfaces: list[Interface] = field(default_factory=list)


@dataclass(slots=True)
class Frame:
    """One record as stored: its number, section and interface, raw timestamp (ticks in the
    interface's units), lengths, bytes and (pcapng) its packet block's options."""
    number: int
    section: int
    interface: int
    ticks: int
    orig_len: int
    data: bytes
    options: bytes = b""

    def time(self, index: FrameIndex) -> float:
        iface = index.sections[self.section].interfaces[self.interface]
        seconds, rest = divmod(self.ticks, iface.units)
        if iface.block is None:  # pcap: as reader.py computes it, to the last bit
            return seconds + rest * (1 / iface.units)
        return seconds + rest / iface.units + iface.offset

    def linktype(self, index: FrameIndex) -> int:
        return index.sections[self.section].interfaces[self.interface].linktype


class FrameIndex:
    """Marks (frame number, decompressed offset, section) every `every` frames, and the
    sections with their interfaces; `frames` is how many records the walk read."""

    def __init__(self, fmt: str = "", every: int = EVERY) -> None:
        self.format = fmt
        self.every = every
        self.snaplen = 0
        self.network = 0  # pcap: the header's whole link-type field (FCS bits included)
        self.sections: list[Section] = []
        self.marks: list[tuple[int, int, int]] = []
        self.frames = 0
        #: decompressed offset where the walk stopped (None: an index from before it was kept)
        self.end: int | None = None
        #: the setting whose limit stopped the walk (reader.CaptureReader.stopped_by), if one did
        self.stopped_by: str | None = None

    # -- the recorder: what CaptureReader calls ---------------------------------------------

    def pcap(self, order: str, fmt: str, network: int, snaplen: int) -> None:
        self.network, self.snaplen = network, snaplen
        self.sections = [Section(order, [Interface(network & 0x0FFFFFFF, 10**9 if fmt == "pcap-ns" else 10**6, 0.0)])]

    def section(self, order: str) -> None:
        self.sections.append(Section(order))

    def interface(self, block: bytes, linktype: int, units: int, offset: float) -> None:
        self.sections[-1].interfaces.append(Interface(linktype, units, offset, block))

    def mark(self, frame: int, offset: int) -> int:
        """Record that `frame` begins at `offset`; return the number of the next frame to mark."""
        self.marks.append((frame, offset, len(self.sections) - 1))
        return frame + self.every

    def finish(self, end: int, stopped_by: str | None) -> None:
        self.end, self.stopped_by = end, stopped_by

    # -- queries ----------------------------------------------------------------------------

    @property
    def pcapng(self) -> bool:
        return self.format.startswith("pcapng")

    def mark_before(self, frame: int) -> tuple[int, int, int]:
        """The last mark at or before `frame`."""
        at = bisect.bisect_right(self.marks, (frame, float("inf"), 0)) - 1
        if at < 0:
            raise ValueError(f"no mark at or before frame {frame}")
        return self.marks[at]

    # -- storage ----------------------------------------------------------------------------

    def to_json(self) -> dict:
        return {"version": VERSION, "format": self.format, "every": self.every, "frames": self.frames,
                "snaplen": self.snaplen, "network": self.network,
                "sections": [{"order": s.order, "interfaces": [
                    [i.linktype, i.units, i.offset, i.block.hex() if i.block is not None else None]
                    for i in s.interfaces]} for s in self.sections],
                "marks": [list(m) for m in self.marks], "end": self.end, "stopped_by": self.stopped_by}

    @classmethod
    def from_json(cls, doc: dict) -> FrameIndex:
        index = cls(doc["format"], doc["every"])
        index.frames, index.snaplen, index.network = doc["frames"], doc["snaplen"], doc["network"]
        index.sections = [Section(s["order"], [Interface(lt, units, off, bytes.fromhex(b) if b else None)
                                               for lt, units, off, b in s["interfaces"]])
                          for s in doc["sections"]]
        index.marks = [tuple(m) for m in doc["marks"]]
        index.end, index.stopped_by = doc.get("end"), doc.get("stopped_by")
        return index

    def save(self, path: Path) -> None:
        """Write atomically: a reader never sees half an index."""
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".index-")
        try:
            with os.fdopen(fd, "w") as out:
                json.dump(self.to_json(), out, separators=(",", ":"))
            os.replace(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)


def build(capture_file: Path, limits: Limits = Limits()) -> FrameIndex:
    """Walk the capture's framing once (no decoding) and return its index."""
    with CaptureReader(capture_file, limits, recorder=(index := FrameIndex())) as reader:
        index.format = reader.format
        for _record in reader.records():
            pass
        index.frames = reader.packets
    return index


def load_or_build(capture_file: Path, limits: Limits = Limits()) -> FrameIndex:
    """The stored index of a capture; one is built and stored when there is none (a capture
    analysed before indexes existed)."""
    path = index_path(capture_file)
    try:
        stamp = path.stat().st_mtime_ns
    except FileNotFoundError:
        index = build(capture_file, limits)
        index.save(path)
        stamp = path.stat().st_mtime_ns
    return _load(path, stamp)


@lru_cache(maxsize=16)
def _load(path: Path, stamp: int) -> FrameIndex:  # stamp: a rewritten index is read again
    with open(path) as source:
        return FrameIndex.from_json(json.load(source))


def readable(capture_file: Path, index: FrameIndex, limits: Limits = Limits()) -> Path:
    """The file a `FrameCursor` reads: the capture itself, or for a gzip'd one its decompressed
    copy beside it, made once per capture (under an exclusive lock on the capture, atomically)
    and only as far as the walk read. CaptureTooLarge (413) for a decompression bomb."""
    if not index.format.endswith("+gzip"):
        return capture_file
    ratio = limits.max_decompression_ratio
    if index.stopped_by == RATIO_SETTING:
        raise CaptureTooLarge(_bomb(ratio, "its analysis stopped there"))
    plain = capture_file.with_name(capture_file.name + DECOMPRESSED_SUFFIX)
    if plain.is_file():
        return plain
    with open(capture_file, "rb") as raw:
        fcntl.flock(raw.fileno(), fcntl.LOCK_EX)  # released when closed, or when the process dies
        if plain.is_file():  # another request made it while this one waited
            return plain
        for stale in capture_file.parent.glob(f"{INFLATE_PREFIX}{capture_file.name}-*"):
            stale.unlink(missing_ok=True)  # a killed writer's: no live one without the lock
        wanted = limits.max_read_bytes if index.end is None else min(index.end, limits.max_read_bytes)
        _inflate(raw, plain, wanted, ratio)
    return plain


def _bomb(ratio: int, what: str) -> str:
    return (f"the capture decompresses to more than {ratio} times its compressed size "
            f"(the limit {RATIO_SETTING}; {what}): its frames are not decompressed for viewing")


def _inflate(raw, plain: Path, wanted: int, ratio: int) -> None:
    """Decompress `raw` into `plain`, at most `wanted` bytes; the copy appears whole or not at all."""
    fd, tmp = tempfile.mkstemp(dir=plain.parent, prefix=f"{INFLATE_PREFIX}{Path(raw.name).name}-")
    try:
        with os.fdopen(fd, "wb") as out:
            stream, left = Gunzip(raw, ratio), wanted
            while left > 0:
                try:
                    data = stream.read1(min(INFLATE, left))
                except GzipDamaged:
                    break  # what decompressed before the damage is what analysis read too
                except TooCompressed as err:
                    raise CaptureTooLarge(_bomb(ratio, str(err))) from None
                if not data:
                    break
                out.write(data)
                left -= len(data)
        os.replace(tmp, plain)
    finally:
        Path(tmp).unlink(missing_ok=True)


class FrameCursor:
    """Frames of a stored capture in order, from the mark nearest before a frame on. It reads
    `readable(...)`'s file (uncompressed). Close it (or use `with`)."""

    def __init__(self, path: Path, index: FrameIndex) -> None:
        self.index = index
        self._raw = open(path, "rb")  # noqa: SIM115 - held for the cursor's life, closed by close()
        self._buf = b""
        self._pos = 0

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> FrameCursor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def frames_from(self, first: int) -> Iterator[Frame]:
        """Every frame numbered `first` and up, in order (from the mark before `first`)."""
        number, offset, section = self.index.mark_before(first)
        self._seek(offset)
        records = self._pcapng(number, section) if self.index.pcapng else self._pcap(number)
        for frame in records:
            if frame.number >= first:
                yield frame

    def frames_at(self, numbers: Iterable[int]) -> Iterator[Frame]:
        """The frames numbered `numbers` (ascending): read on from the last one when the next
        is within a mark's stretch, else from the nearest mark. Stops at the capture's end."""
        frames: Iterator[Frame] | None = None
        last = 0
        for n in numbers:
            if frames is None or n <= last or n - last > self.index.every:
                frames = self.frames_from(n)
            for frame in frames:
                if frame.number == n:
                    last = n
                    yield frame
                    break
            else:
                return

    def _seek(self, offset: int) -> None:
        self._buf, self._pos = b"", 0
        self._raw.seek(offset)

    def _have(self, size: int) -> bool:
        """Make `size` bytes available at _pos; False when the file ends first."""
        if len(self._buf) - self._pos >= size:
            return True
        rest = self._buf[self._pos:]
        chunks, have = [rest], len(rest)
        while have < size:
            data = self._raw.read(max(READ, size - have))
            if not data:
                break
            chunks.append(data)
            have += len(data)
        self._buf, self._pos = b"".join(chunks), 0
        return have >= size

    def _pcap(self, number: int) -> Iterator[Frame]:
        header = struct.Struct(self.index.sections[0].order + "IIII")
        units = self.index.sections[0].interfaces[0].units
        last = self.index.frames  # past it the walk stopped: a limit, or a record it refused
        while number <= last and self._have(16):
            sec, frac, incl, orig = header.unpack_from(self._buf, self._pos)
            if incl > MAX_RECORD or not self._have(16 + incl):
                return
            start = self._pos + 16
            self._pos = start + incl
            yield Frame(number, 0, 0, sec * units + frac, orig, self._buf[start:start + incl])
            number += 1

    def _pcapng(self, number: int, section: int) -> Iterator[Frame]:
        """The blocks as `reader.CaptureReader._pcapng` accepts them (its own checks), up to
        the last frame the walk counted; the first block it refuses ends the frames."""
        sections = self.index.sections
        order = sections[section].order
        interfaces = len(sections[section].interfaces)
        last = self.index.frames
        while number <= last and self._have(12):
            at = self._pos
            try:
                if self._buf[at:at + 4] == b"\x0a\x0d\x0d\x0a":  # a new section: its byte order is in its body
                    section += 1
                    if section >= len(sections):
                        return
                    order = section_order(self._buf, at)
                    interfaces = len(sections[section].interfaces)
                btype, blen = struct.unpack_from(order + "II", self._buf, at)
                check_block_length(btype, blen)
                if not self._have(blen):
                    return
                at = self._pos
                packet = check_block(self._buf, at, btype, blen, order, interfaces)
            except BadBlock:
                return
            self._pos = at + blen
            if packet is None:
                continue
            iface, ticks, incl, orig, data = packet
            buf = self._buf
            options = _options(buf[data + incl + (-incl % 4):at + blen - 4], order) if btype == EPB else b""
            yield Frame(number, section, iface, ticks, orig, buf[data:data + incl], options)
            number += 1


def _options(area: bytes, order: str) -> bytes:
    """A packet block's options without the end-of-options marker, as stored."""
    out = 0
    while out + 4 <= len(area):
        code, length = struct.unpack_from(order + "HH", area, out)
        if code == 0:
            break
        out += 4 + length + (-length % 4)
    return area[:min(out, len(area))]


__all__ = ["EVERY", "Frame", "FrameCursor", "FrameIndex", "build", "index_path", "load_or_build", "readable"]
