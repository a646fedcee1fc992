"""Frames of a capture written out as a pcapng slice that Wireshark and tshark open.

Every input gives pcapng: it is the one format that keeps what a slice must keep, the
original frame numbers (a comment per packet, `opt_comment`, "frame 74 of <name>"), each
frame's own interface and link type, and the original timestamps to the last tick. A pcapng
input's interfaces are its IDBs copied verbatim (name, resolution, offset and all), in a
section of the same byte order; a pcap input gets one IDB built from its file header (link
type, snap length, microsecond or nanosecond resolution). A packet's own options (flags,
hashes) are kept; the comment is added after them.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator

from .frame_index import Frame, FrameIndex
from .reader import EPB, IDB, SHB

BYTE_ORDER_MAGIC = 0x1A2B3C4D
OPT_COMMENT = 1
IF_TSRESOL = 9
SECTION_UNKNOWN_LENGTH = -1


def comment(number: int, name: str) -> str:
    """The comment a slice puts on a packet: where it came from."""
    return f"frame {number} of {name}"


def pcapng_slice(index: FrameIndex, frames: Iterable[Frame], name: str) -> Iterator[bytes]:
    """The blocks of a pcapng file holding `frames` (in order), one chunk per block."""
    section = None
    for frame in frames:
        if frame.section != section:
            section = frame.section
            yield from _section(index, section)
        yield _packet(index.sections[section].order, frame, comment(frame.number, name))


def _block(order: str, btype: int, body: bytes) -> bytes:
    body += b"\x00" * (-len(body) % 4)
    total = len(body) + 12
    return struct.pack(order + "II", btype, total) + body + struct.pack(order + "I", total)


def _option(order: str, code: int, value: bytes) -> bytes:
    return struct.pack(order + "HH", code, len(value)) + value + b"\x00" * (-len(value) % 4)


def _section(index: FrameIndex, number: int) -> Iterator[bytes]:
    order = index.sections[number].order
    yield _block(order, SHB, struct.pack(order + "IHHq", BYTE_ORDER_MAGIC, 1, 0, SECTION_UNKNOWN_LENGTH))
    for iface in index.sections[number].interfaces:
        if iface.block is not None:
            yield iface.block  # as the capture had it: same byte order as its section
            continue
        options = b""
        if iface.units == 10**9:
            options = _option(order, IF_TSRESOL, bytes([9])) + struct.pack(order + "HH", 0, 0)
        yield _block(order, IDB, struct.pack(order + "HHI", iface.linktype & 0xFFFF, 0, index.snaplen) + options)


def _packet(order: str, frame: Frame, text: str) -> bytes:
    data = frame.data + b"\x00" * (-len(frame.data) % 4)
    head = struct.pack(order + "IIIII", frame.interface, frame.ticks >> 32, frame.ticks & 0xFFFFFFFF,
                       len(frame.data), frame.orig_len)
    options = frame.options + _option(order, OPT_COMMENT, text.encode()) + struct.pack(order + "HH", 0, 0)
    return _block(order, EPB, head + data + options)
