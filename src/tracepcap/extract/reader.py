"""A streaming reader of pcap and pcapng files (optionally gzip-compressed).

It yields one record at a time from a fixed-size read buffer, so memory does not grow with
the capture. A file that ends inside a record, or a record that says something impossible,
stops the walk: what was read stands, and `partial` says why the rest was not.
Formats: tcpdump.org pcap (both byte orders, micro/nanosecond) and pcapng (IETF draft
"PCAP Now Generic": sections, several interfaces, mixed link types).
"""

from __future__ import annotations

import gzip
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..errors import UnusableCapture
from ..ingest.sniff import PCAP_MAGICS, sniff_file

CHUNK = 1 << 20
MAX_RECORD = 16 << 20  # no real frame is 16 MiB; a bigger length means corruption
PCAP_HEADER = 24
SHB, IDB, PB, SPB, EPB = 0x0A0D0D0A, 0x00000001, 0x00000002, 0x00000003, 0x00000006
BYTE_ORDER_MAGIC = 0x1A2B3C4D
OPT_END, OPT_TSRESOL, OPT_TSOFFSET = 0, 9, 14

Record = tuple[int, float, int, memoryview]  # linktype, timestamp, original length, data


class CaptureReader:
    """Iterate `records()`; afterwards `packets`, `partial` (None or why) and `bytes_read`."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.format = sniff_file(path)
        self._raw = open(path, "rb")
        self._stream: BinaryIO = gzip.GzipFile(fileobj=self._raw) if self.format.endswith("+gzip") else self._raw
        self.total_bytes = path.stat().st_size
        self.packets = 0
        self.partial: str | None = None
        self._buf = b""
        self._pos = 0
        self._offset = 0  # file offset (uncompressed) of _buf[0]
        self._stream_error: str | None = None

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
        if self.format.startswith("pcapng"):
            yield from self._pcapng()
        else:
            yield from self._pcap()
        if self._stream_error:
            self.partial = (f"compressed stream unreadable after {self.packets} packets "
                            f"({self._stream_error}); {self.partial}")

    # -- buffer -----------------------------------------------------------------------------

    def _fill(self, size: int) -> bool:
        """Make `size` bytes available at _pos; False when the file ends first."""
        if len(self._buf) - self._pos >= size:
            return True
        rest = self._buf[self._pos:]
        self._offset += self._pos
        chunks = [rest]
        have = len(rest)
        while have < size and not self._stream_error:
            try:
                data = self._stream.read1(max(CHUNK, size - have))  # read1: a gzip error keeps what came before
            except (OSError, EOFError, zlib.error) as err:  # a cut or corrupt gzip stream
                self._stream_error = str(err)
                break
            if not data:
                break
            chunks.append(data)
            have += len(data)
        self._buf = b"".join(chunks)
        self._pos = 0
        return have >= size

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
        header = struct.Struct(order + "IIII")  # seconds, fraction, captured length, original length
        self._pos = PCAP_HEADER
        while True:
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
            self.packets += 1
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
            if self._buf[at:at + 4] == b"\x0a\x0d\x0d\x0a":
                magic = self._buf[at + 8:at + 12]
                if magic == b"\x4d\x3c\x2b\x1a":
                    order = "<"
                elif magic == b"\x1a\x2b\x3c\x4d":
                    order = ">"
                else:
                    self._stop(f"section header with unknown byte-order magic {magic.hex()}")
                    return
                interfaces = []
            btype, blen = struct.unpack_from(order + "II", self._buf, at)
            if blen < 12 or blen % 4 or blen > MAX_RECORD:
                self._stop(f"block of type {btype:#x} has impossible length {blen}")
                return
            if not self._fill(blen):
                self._stop(f"block of type {btype:#x} claims {blen} bytes but the file ends first")
                return
            at = self._pos
            if struct.unpack_from(order + "I", self._buf, at + blen - 4)[0] != blen:
                self._stop(f"block of type {btype:#x} has mismatched trailing length")
                return
            self._pos = at + blen
            body = at + 8
            if btype == IDB:
                interfaces.append(self._interface(order, body, at + blen - 4))
            elif btype in (EPB, PB):
                if btype == EPB:
                    iface, hi, lo, incl, orig = struct.unpack_from(order + "IIIII", self._buf, body)
                else:
                    iface, _drops, hi, lo, incl, orig = struct.unpack_from(order + "HHIIII", self._buf, body)
                data = body + 20
                if iface >= len(interfaces) or data + incl > at + blen - 4:
                    self._stop(f"packet block names interface {iface} of {len(interfaces)} "
                               f"or overruns its block")
                    return
                linktype, units, offset = interfaces[iface]
                seconds, ticks = divmod((hi << 32) | lo, units)  # exact, then one rounding
                last_ts = seconds + ticks / units + offset
                self.packets += 1
                yield linktype, last_ts, orig, memoryview(self._buf)[data:data + incl]
            elif btype == SPB:
                if not interfaces:
                    self._stop("simple packet block before any interface")
                    return
                (orig,) = struct.unpack_from(order + "I", self._buf, body)
                incl = min(orig, blen - 16)
                self.packets += 1
                yield interfaces[0][0], last_ts, orig, memoryview(self._buf)[body + 4:body + 4 + incl]
            # every other block type (statistics, name resolution, custom, unknown) is skipped

    def _interface(self, order: str, body: int, end: int) -> tuple[int, int, float]:
        linktype = struct.unpack_from(order + "H", self._buf, body)[0]
        units, offset = 1_000_000, 0.0
        at = body + 8
        while at + 4 <= end:
            code, length = struct.unpack_from(order + "HH", self._buf, at)
            if code == OPT_END:
                break
            value = self._buf[at + 4:at + 4 + length]
            if code == OPT_TSRESOL and length >= 1:
                res = value[0]
                units = 2 ** (res & 0x7F) if res & 0x80 else 10 ** res
            elif code == OPT_TSOFFSET and length == 8:
                offset = float(struct.unpack(order + "q", value)[0])
            at += 4 + length + (-length % 4)
        return linktype, max(units, 1), offset
