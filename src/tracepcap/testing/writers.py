"""Capture file writers: classic libpcap and pcapng, byte-exact and deterministic.

Formats: the libpcap file format (draft-ietf-opsawg-pcap) and the pcapng format
(draft-ietf-opsawg-pcapng). Both writers take timestamps as float seconds since the epoch
and never consult the wall clock, so the same calls always produce the same bytes.
"""

from __future__ import annotations

import math
import struct
from typing import BinaryIO

__all__ = ["PcapWriter", "PcapngWriter", "LINKTYPE_ETHERNET"]

LINKTYPE_ETHERNET = 1

PCAP_MAGIC_MICROS = 0xA1B2C3D4
PCAP_MAGIC_NANOS = 0xA1B23C4D  # same layout, the fraction field counts nanoseconds
# magic, version major, minor, thiszone, sigfigs, snaplen, linktype
PCAP_HEADER = {"<": struct.Struct("<IHHiIII"), ">": struct.Struct(">IHHiIII")}
# ts seconds, ts fraction, captured length, original length
PCAP_RECORD = {"<": struct.Struct("<IIII"), ">": struct.Struct(">IIII")}

BT_SHB = 0x0A0D0D0A
BT_IDB = 0x00000001
BT_SPB = 0x00000003
BT_EPB = 0x00000006
BYTE_ORDER_MAGIC = 0x1A2B3C4D
OPT_ENDOFOPT = 0
SHB_USERAPPL = 4
IF_NAME = 2
IF_TSRESOL = 9  # one byte: negative power of ten when the top bit is clear
# pcapng is written in the writer's byte order; every fixed field layout is compiled once.
_NG_FORMATS = ("I", "HH", "II", "HHI", "IHHq", "IIIII")
NG_STRUCTS = {bo: {f: struct.Struct(bo + f) for f in _NG_FORMATS} for bo in "<>"}


def _split(ts: float, units: int) -> tuple[int, int]:
    """Whole seconds and the fraction in `units` per second, rounded (not truncated).
    The fraction is taken before scaling: `ts * 1e9` would lose the last ~8 bits."""
    sec = math.floor(ts)
    frac = round((ts - sec) * units)
    return (sec + 1, 0) if frac == units else (sec, frac)


def _pad4(data: bytes) -> bytes:
    return data + b"\x00" * (-len(data) % 4)


class PcapWriter:
    """Writes a classic pcap file: one global header, then one record per frame."""

    def __init__(self, fileobj: BinaryIO, linktype: int = LINKTYPE_ETHERNET, nanos: bool = False,
                 big_endian: bool = False, snaplen: int = 262144) -> None:
        self._f = fileobj
        self._bo = ">" if big_endian else "<"
        self._units = 1_000_000_000 if nanos else 1_000_000
        self._snaplen = snaplen
        magic = PCAP_MAGIC_NANOS if nanos else PCAP_MAGIC_MICROS
        self._f.write(PCAP_HEADER[self._bo].pack(magic, 2, 4, 0, 0, snaplen, linktype))

    def write(self, ts: float, frame: bytes, orig_len: int | None = None) -> None:
        """Append one record; frames longer than snaplen are cut, as a capture would."""
        sec, frac = _split(ts, self._units)
        data = frame[: self._snaplen]
        length = len(frame) if orig_len is None else orig_len
        self._f.write(PCAP_RECORD[self._bo].pack(sec, frac, len(data), length) + data)


class PcapngWriter:
    """Writes pcapng blocks: sections, interfaces, enhanced and simple packet blocks.

    Interface ids are numbered per section, as the format requires; `section()` starts a
    new numbering. `interface()` opens a section first when none is open.
    """

    def __init__(self, fileobj: BinaryIO, big_endian: bool = False,
                 userappl: str = "tracepcap.testing") -> None:
        self._f = fileobj
        self._s = NG_STRUCTS[">" if big_endian else "<"]
        self._userappl = userappl
        self._units: list[int] = []  # per interface of the open section
        self._snaplens: list[int] = []
        self._in_section = False

    def _u(self, fmt: str, *values: int) -> bytes:
        return self._s[fmt].pack(*values)

    def _options(self, options: list[tuple[int, bytes]]) -> bytes:
        if not options:
            return b""
        out = b"".join(self._u("HH", code, len(v)) + _pad4(v) for code, v in options)
        return out + self._u("HH", OPT_ENDOFOPT, 0)

    def raw_block(self, block_type: int, body: bytes) -> None:
        """Write any block: type, total length, padded body, total length again."""
        body = _pad4(body)
        total = 12 + len(body)
        self._f.write(self._u("II", block_type, total) + body + self._u("I", total))

    def section(self) -> None:
        """Start a Section Header Block; section length -1 means 'not given'."""
        opts = self._options([(SHB_USERAPPL, self._userappl.encode())] if self._userappl else [])
        self.raw_block(BT_SHB, self._u("IHHq", BYTE_ORDER_MAGIC, 1, 0, -1) + opts)
        self._units, self._snaplens, self._in_section = [], [], True

    def interface(self, linktype: int = LINKTYPE_ETHERNET, tsresol_nanos: bool = False,
                  snaplen: int = 262144, name: str | None = None) -> int:
        """Describe one interface (IDB) in the open section; returns its id."""
        if not self._in_section:
            self.section()
        options = [(IF_NAME, name.encode())] if name else []
        if tsresol_nanos:
            options.append((IF_TSRESOL, bytes([9])))  # 10^-9; absent means 10^-6
        self.raw_block(BT_IDB, self._u("HHI", linktype, 0, snaplen) + self._options(options))
        self._units.append(1_000_000_000 if tsresol_nanos else 1_000_000)
        self._snaplens.append(snaplen)
        return len(self._units) - 1

    def _check_iface(self, iface: int) -> None:
        if not 0 <= iface < len(self._units):
            raise ValueError(f"pcapng interface must be 0..{len(self._units) - 1} "
                             f"in this section (got {iface})")

    def write(self, ts: float, frame: bytes, iface: int = 0, orig_len: int | None = None) -> None:
        """Append an Enhanced Packet Block with a 64-bit timestamp in the interface's units."""
        self._check_iface(iface)
        sec, frac = _split(ts, self._units[iface])
        stamp = sec * self._units[iface] + frac
        data = frame[: self._snaplens[iface]]
        length = len(frame) if orig_len is None else orig_len
        head = self._u("IIIII", iface, stamp >> 32, stamp & 0xFFFFFFFF, len(data), length)
        self.raw_block(BT_EPB, head + _pad4(data))

    def write_simple(self, frame: bytes, orig_len: int | None = None) -> None:
        """Append a Simple Packet Block: no timestamp, always interface 0 (pcapng 4.4)."""
        self._check_iface(0)
        length = len(frame) if orig_len is None else orig_len
        self.raw_block(BT_SPB, self._u("I", length) + frame[: self._snaplens[0]])
