"""A streaming reader of pcap and pcapng files (optionally gzip-compressed).

It yields one record at a time from a fixed-size read buffer, so memory does not grow with
the capture. A file that ends inside a record, or a record that says something impossible,
stops the walk: what was read stands, and `partial` says why the rest was not. So does a
capture past the limits on bytes read (after decompression) and records: a gzip bomb or a
flood of empty records is cut short with a sentence naming the limit, never walked for hours;
a gzip'd capture inflating past TRACEPCAP_MAX_DECOMPRESSION_RATIO is stopped the same way.

The rules a pcapng block must keep (`section_order`, `check_block_length`, `check_block`)
are functions of their own, so the frame view's cursor (`frame_index.FrameCursor`) reads
exactly the blocks this walk accepts.
Formats: tcpdump.org pcap (both byte orders, micro/nanosecond) and pcapng (IETF draft
"PCAP Now Generic": sections, several interfaces, mixed link types).
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from ..errors import UnusableCapture
from ..ingest.gunzip import Gunzip, GzipDamaged, TooCompressed
from ..ingest.sniff import PCAP_MAGICS, sniff_file
from ..limits import Limits

CHUNK = 1 << 20
MAX_RECORD = 16 << 20  # no real frame is 16 MiB; a bigger length means corruption
PCAP_HEADER = 24
SHB, IDB, PB, SPB, EPB = 0x0A0D0D0A, 0x00000001, 0x00000002, 0x00000003, 0x00000006
BYTE_ORDER_MAGIC = 0x1A2B3C4D
OPT_END, OPT_TSRESOL, OPT_TSOFFSET = 0, 9, 14
#: the smallest body each block type can have: an EPB or PB shorter than its 20-byte packet
#: header, or an IDB without link type and snap length, is a cut block, not a packet
MIN_BLOCK = {EPB: 32, PB: 32, SPB: 16, IDB: 20, SHB: 28}

Record = tuple[int, float, int, memoryview]  # linktype, timestamp, original length, data


class RecordSource(Protocol):
    """What extract's walk reads records from: a `CaptureReader`, or a byte-range shard's
    `SpillReader` (extract/spill.py), which also has `numbered`."""

    format: str
    packets: int  #: the capture's records (read so far)
    partial: str | None
    total_bytes: int

    @property
    def bytes_read(self) -> int: ...

    def records(self) -> Iterator[Record]: ...

    def close(self) -> None: ...


class Numbered(Protocol):
    """A source of some of a capture's records, not all: the capture's number of the record it
    yielded last (`frame`), and the capture's clock (its latest time) at a frame (`now_at`)."""

    frame: int

    def now_at(self, frame: int) -> float: ...


RATIO_SETTING = "TRACEPCAP_MAX_DECOMPRESSION_RATIO"


class _LimitReached(Exception):
    """The walk passed a configured limit; its message is the user's sentence, `setting`
    the limit's environment name."""

    def __init__(self, message: str, setting: str) -> None:
        super().__init__(message)
        self.setting = setting


class BadBlock(ValueError):
    """A pcapng block breaks its format's rules; the message says how. The walk stops there."""


def check_block_length(btype: int, blen: int) -> None:
    """BadBlock when a block of this type cannot be `blen` bytes long."""
    if blen < MIN_BLOCK.get(btype, 12) or blen % 4 or blen > MAX_RECORD:
        raise BadBlock(f"block of type {btype:#x} has impossible length {blen}")


def check_block(buf: bytes, at: int, btype: int, blen: int, order: str, interfaces: int) -> tuple[int, int, int, int, int] | None:
    """Check the whole (length-checked) block at `at`: its trailing length, and for a packet
    block that it names one of the section's `interfaces` and holds its captured bytes; else
    BadBlock. Returns a packet block's (interface, ticks, captured length, original length,
    data offset), None for any other block. An SPB's interface is 0 and its ticks 0."""
    if struct.unpack_from(order + "I", buf, at + blen - 4)[0] != blen:
        raise BadBlock(f"block of type {btype:#x} has mismatched trailing length")
    body = at + 8
    if btype == EPB:
        iface, hi, lo, incl, orig = struct.unpack_from(order + "IIIII", buf, body)
    elif btype == PB:
        iface, _drops, hi, lo, incl, orig = struct.unpack_from(order + "HHIIII", buf, body)
    elif btype == SPB:
        if not interfaces:
            raise BadBlock("simple packet block before any interface")
        (orig,) = struct.unpack_from(order + "I", buf, body)
        return 0, 0, min(orig, blen - 16), orig, body + 4
    else:
        return None
    data = body + 20
    if iface >= interfaces or data + incl > at + blen - 4:
        raise BadBlock(f"packet block names interface {iface} of {interfaces} or overruns its block")
    return iface, (hi << 32) | lo, incl, orig, data


def section_order(buf: bytes, at: int) -> str:
    """The byte order of the section header block at `at`; BadBlock for an unknown magic."""
    magic = buf[at + 8:at + 12]
    if magic == b"\x4d\x3c\x2b\x1a":
        return "<"
    if magic == b"\x1a\x2b\x3c\x4d":
        return ">"
    raise BadBlock(f"section header with unknown byte-order magic {magic.hex()}")


class CaptureReader:
    """Iterate `records()`; afterwards `packets`, `partial` (None or why) and `bytes_read`.
    `limits` bound the bytes walked (after decompression) and the records. A `recorder`
    (`frame_index.FrameIndex`) is told the file's framing and, every so many records, where
    one begins: `pcap`, `section`, `interface`, and `mark` (which returns the next record
    to mark); at the end `finish` (where the walk stopped, and the limit that stopped it)."""

    def __init__(self, path: Path, limits: Limits = Limits(), recorder=None) -> None:
        self.path = path
        self.format = sniff_file(path)
        self.max_bytes = limits.max_read_bytes
        self.max_records = limits.max_records
        self.max_ratio = limits.max_decompression_ratio
        self._raw = open(path, "rb")  # noqa: SIM115 - held for the reader's life, closed by close()
        self._stream = Gunzip(self._raw, self.max_ratio) if self.format.endswith("+gzip") else self._raw
        self.total_bytes = path.stat().st_size
        self.packets = 0
        self.partial: str | None = None
        self.stopped_by: str | None = None  #: the setting whose limit stopped the walk, if one did
        self._buf = b""
        self._pos = 0
        self._offset = 0  # file offset (uncompressed) of _buf[0]
        self._stream_error: str | None = None
        self._recorder = recorder
        self._next_mark = 1 if recorder is not None else 0  # 0: never (records count from 1)

    @property
    def bytes_read(self) -> int:
        return self._raw.tell()

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> CaptureReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def records(self) -> Iterator[Record]:
        try:
            if self.format.startswith("pcapng"):
                yield from self._pcapng()
            else:
                yield from self._pcap()
        except _LimitReached as limit:
            self.stopped_by = limit.setting
            self._stop(str(limit))
        if self._recorder is not None:
            self._recorder.finish(self._offset + self._pos, self.stopped_by)
        if self._stream_error:
            self.partial = (f"compressed stream unreadable after {self.packets} packets "
                            f"({self._stream_error}); {self.partial}")

    # -- buffer -----------------------------------------------------------------------------

    def _fill(self, size: int) -> bool:
        """Make `size` bytes available at _pos; False when the file ends first."""
        if self._offset + self._pos + size > self.max_bytes:
            raise _LimitReached(f"the capture holds more than {self.max_bytes} bytes (after "
                                "decompression), the limit TRACEPCAP_MAX_DECOMPRESSED_BYTES; "
                                "the rest was not read", "TRACEPCAP_MAX_DECOMPRESSED_BYTES")
        if len(self._buf) - self._pos >= size:
            return True
        rest = self._buf[self._pos:]
        self._offset += self._pos
        chunks = [rest]
        have = len(rest)
        while have < size and not self._stream_error:
            try:
                data = self._stream.read1(max(CHUNK, size - have))  # read1: a gzip error keeps what came before
            except TooCompressed as err:
                self._buf, self._pos = b"".join(chunks), 0  # what came before stands, as at any stop
                raise _LimitReached(f"the capture decompresses to more than {self.max_ratio} times its "
                                    f"compressed size, the limit {RATIO_SETTING}; the rest was not read "
                                    f"({err})", RATIO_SETTING) from None
            except (OSError, GzipDamaged) as err:  # a cut or corrupt gzip stream, a failing disk
                self._stream_error = str(err)
                break
            if not data:
                break
            chunks.append(data)
            have += len(data)
        self._buf = b"".join(chunks)
        self._pos = 0
        return have >= size

    def _count_record(self, at: int) -> None:
        """Count the record that begins at `at` in the buffer (and mark it, when due)."""
        if self.packets >= self.max_records:
            raise _LimitReached(f"the capture holds more than {self.max_records} records, the "
                                "limit TRACEPCAP_MAX_RECORDS; the rest was not read", "TRACEPCAP_MAX_RECORDS")
        self.packets += 1
        if self.packets == self._next_mark:
            self._next_mark = self._recorder.mark(self.packets, self._offset + at)

    def _stop(self, why: str) -> None:
        self.partial = f"{why} (after {self.packets} packets, at byte {self._offset + self._pos})"

    # -- pcap -------------------------------------------------------------------------------

    def _pcap(self) -> Iterator[Record]:
        if not self._fill(PCAP_HEADER):
            raise UnusableCapture("not a capture: the pcap file header is cut short "
                                  f"({len(self._buf)} of {PCAP_HEADER} bytes)")
        fmt, order = PCAP_MAGICS[self._buf[:4]]
        _vmaj, _vmin, _zone, _sigfigs, _snaplen, network = struct.unpack_from(order + "HHiIII", self._buf, 4)
        linktype = network & 0x0FFFFFFF  # upper bits may carry FCS length (pcap-linktype)
        scale = 1e-9 if fmt == "pcap-ns" else 1e-6
        if self._recorder is not None:
            self._recorder.pcap(order, fmt, network, _snaplen)
        header = struct.Struct(order + "IIII")  # seconds, fraction, captured length, original length
        unpack = header.unpack_from
        viewed: bytes | None = None  # one memoryview per buffer, sliced per record
        view = memoryview(b"")
        self._pos = PCAP_HEADER
        while True:
            # the common record, whole in the buffer and under every limit, costs no call:
            # what `_fill(16 + incl)` and `_count_record()` would check, in place
            buf, pos = self._buf, self._pos
            if len(buf) - pos >= 16:
                sec, frac, incl, orig = unpack(buf, pos)
                start = pos + 16
                stop = start + incl
                if incl <= MAX_RECORD and stop <= len(buf) and self._offset + stop <= self.max_bytes \
                        and self.packets < self.max_records:
                    self._pos = stop
                    self.packets += 1
                    if self.packets == self._next_mark:  # the frame index's mark (frame_index.py)
                        self._next_mark = self._recorder.mark(self.packets, self._offset + pos)
                    if buf is not viewed:
                        viewed, view = buf, memoryview(buf)
                    yield linktype, sec + frac * scale, orig, view[start:stop]
                    continue
            if not self._fill(16):
                if len(self._buf) > self._pos:
                    self._stop("file ends inside a record header")
                return
            sec, frac, incl, orig = header.unpack_from(self._buf, self._pos)
            if incl > MAX_RECORD:
                self._stop(f"record {self.packets + 1} claims {incl} bytes, more than any frame")
                return
            if not self._fill(16 + incl):
                self._stop(f"record {self.packets + 1} claims {incl} bytes but the file ends "
                           f"after {len(self._buf) - self._pos - 16}")
                return
            start = self._pos + 16
            self._pos = start + incl
            self._count_record(start - 16)
            yield linktype, sec + frac * scale, orig, memoryview(self._buf)[start:start + incl]

    # -- pcapng -----------------------------------------------------------------------------

    def _pcapng(self) -> Iterator[Record]:
        order = "<"
        interfaces: list[tuple[int, int, float]] = []  # linktype, ticks per second, offset
        last_ts = 0.0
        while True:
            if not self._fill(12):
                if len(self._buf) > self._pos:
                    self._stop("file ends inside a block header")
                return
            at = self._pos
            try:
                if self._buf[at:at + 4] == b"\x0a\x0d\x0d\x0a":
                    order = section_order(self._buf, at)
                    interfaces = []
                    if self._recorder is not None:
                        self._recorder.section(order)
                btype, blen = struct.unpack_from(order + "II", self._buf, at)
                check_block_length(btype, blen)
                if not self._fill(blen):
                    raise BadBlock(f"block of type {btype:#x} claims {blen} bytes but the file ends first")
                at = self._pos
                packet = check_block(self._buf, at, btype, blen, order, len(interfaces))
            except BadBlock as bad:
                self._stop(str(bad))
                return
            self._pos = at + blen
            body = at + 8
            if btype == IDB:
                interfaces.append(interface_of(self._buf, order, body, at + blen - 4))
                if self._recorder is not None:
                    self._recorder.interface(bytes(self._buf[at:at + blen]), *interfaces[-1])
            elif packet is not None:
                iface, ticks, incl, orig, data = packet
                linktype, units, offset = interfaces[iface]
                if btype != SPB:  # an SPB has no timestamp: it keeps the last one
                    seconds, ticks = divmod(ticks, units)  # exact, then one rounding
                    last_ts = seconds + ticks / units + offset
                self._count_record(at)
                yield linktype, last_ts, orig, memoryview(self._buf)[data:data + incl]
            # every other block type (statistics, name resolution, custom, unknown) is skipped


def interface_of(buf: bytes, order: str, body: int, end: int) -> tuple[int, int, float]:
    """An interface description block's (link type, ticks per second, offset in seconds), from
    its body at `body` up to its trailing length at `end`: what its packets' times need (also
    read by extract/ranges.py for a range that starts after it)."""
    linktype = struct.unpack_from(order + "H", buf, body)[0]
    units, offset = 1_000_000, 0.0
    at = body + 8
    while at + 4 <= end:
        code, length = struct.unpack_from(order + "HH", buf, at)
        if code == OPT_END:
            break
        if at + 4 + length > end:
            break  # an option overrunning its block: keep what the earlier ones said
        value = buf[at + 4:at + 4 + length]
        if code == OPT_TSRESOL and length >= 1:
            res = value[0]
            units = 2 ** (res & 0x7F) if res & 0x80 else 10 ** res
        elif code == OPT_TSOFFSET and length == 8:
            offset = float(struct.unpack(order + "q", value)[0])
        at += 4 + length + (-length % 4)
    return linktype, max(units, 1), offset
