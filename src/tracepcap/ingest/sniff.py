"""Recognise a capture format from its first bytes, never from its file name."""

from __future__ import annotations

import io
from pathlib import Path

from ..errors import UnusableCapture
from .gunzip import GzipDamaged, gunzip_head

PCAP_MAGICS = {  # first four bytes -> (format, byte order)
    b"\xd4\xc3\xb2\xa1": ("pcap", "<"),
    b"\xa1\xb2\xc3\xd4": ("pcap", ">"),
    b"\x4d\x3c\xb2\xa1": ("pcap-ns", "<"),
    b"\xa1\xb2\x3c\x4d": ("pcap-ns", ">"),
}
PCAPNG_MAGIC = b"\x0a\x0d\x0d\x0a"  # Section Header Block type, the same in either byte order
GZIP_MAGIC = b"\x1f\x8b"
HEAD_BYTES = 64


def sniff(head: bytes) -> str:
    """Return "pcap", "pcap-ns" or "pcapng", with "+gzip" when compressed.

    Raises UnusableCapture with the bytes it saw when they match no known magic.
    """
    if not head:
        raise UnusableCapture("not a capture: the file is empty")
    if head[:2] == GZIP_MAGIC:
        try:
            inner = gunzip_head(io.BytesIO(head), 8)
        except GzipDamaged:
            inner = b""  # the head alone may not decompress far; the whole file decides later
        if len(inner) >= 4 and not _plain_format(inner):
            raise UnusableCapture(f"not a capture: gzip data starting {inner[:4].hex()} "
                                  "matches no pcap or pcapng magic")
        return (_plain_format(inner) or "pcap") + "+gzip"
    fmt = _plain_format(head)
    if fmt is None:
        raise UnusableCapture(f"not a capture: first bytes {head[:4].hex()} match no pcap or "
                              "pcapng magic")
    return fmt


def sniff_file(path: Path) -> str:
    """The format of a file, looking inside gzip compression to tell pcap from pcapng."""
    with open(path, "rb") as f:
        head = f.read(HEAD_BYTES)
    fmt = sniff(head)
    if fmt.endswith("+gzip"):
        with open(path, "rb") as raw:
            try:
                inner = gunzip_head(raw, HEAD_BYTES)
            except GzipDamaged as err:
                raise UnusableCapture(f"not a capture: gzip data unreadable ({err})") from err
        if len(inner) < 4:  # a cut pcap header is the reader's to report, as uncompressed
            raise UnusableCapture(f"not a capture: the gzip data holds only {len(inner)} bytes")
        fmt = sniff(inner) + "+gzip"
    return fmt


def _plain_format(head: bytes) -> str | None:
    if head[:4] in PCAP_MAGICS:
        return PCAP_MAGICS[head[:4]][0]
    if head[:4] == PCAPNG_MAGIC:
        return "pcapng"
    return None
