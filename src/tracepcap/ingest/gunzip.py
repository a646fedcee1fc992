"""Streaming gzip decompression that hands out every byte decoded before any damage.

`gzip.GzipFile` raises on a cut or corrupt stream without returning the bytes it decoded
just before (a file cut 40 bytes in gives nothing at all), and its errors come as OSError,
EOFError or a bare `zlib.error` depending on where the damage is. `Gunzip.read1` returns
what decompressed so far first and only then raises `GzipDamaged`, one error with a
sentence, so a damaged capture reads like the same damage uncompressed: what came before
stands. Several members (RFC 1952 section 2.2) are one stream; zero padding after the last
member (tape-style blocks) is ignored, as gzip(1) does.

A `max_ratio` bounds decompressed bytes per compressed byte consumed: deflate's best is about
1032:1 (runs of one byte), real captures stay far below 100:1, so a stream past the ratio is
a bomb and `read1` raises `TooCompressed` instead of inflating it further.
"""

from __future__ import annotations

import zlib
from typing import BinaryIO

GZIP_WBITS = 16 + zlib.MAX_WBITS  # zlib: expect a gzip header and trailer (CRC-32, size)
CHUNK = 1 << 16  # compressed bytes read at a time
SALVAGE_STEP = 1  # compressed bytes fed at a time after damage: zlib drops a failing call's output
#: decompressed bytes always allowed before the ratio is judged: a small capture's first
#: block may inflate steeply without being a bomb, and a bomb this small costs nothing
RATIO_FLOOR = 1 << 20


class GzipDamaged(ValueError):
    """The compressed stream is cut short or corrupt; every byte before it was returned."""


class TooCompressed(ValueError):
    """The stream inflates past its decompression-ratio limit (a bomb); nothing more is read."""


class Gunzip:
    """Decompress `raw` (a binary file) as it is read; `read1(n)` returns up to n bytes,
    b"" at the clean end, and raises GzipDamaged once the good bytes are used up, or
    TooCompressed once more than `max_ratio` bytes came out per compressed byte consumed
    (past the first `RATIO_FLOOR` bytes; None: no ratio limit)."""

    def __init__(self, raw: BinaryIO, max_ratio: float | None = None) -> None:
        self._raw = raw
        self._max_ratio = max_ratio
        self._fed = 0  # compressed bytes read from raw
        self._inflate = zlib.decompressobj(GZIP_WBITS)
        self._pending = b""  # compressed bytes not yet given to the decompressor
        self._members = 1
        self._damage: GzipDamaged | None = None
        self.decompressed = 0  #: bytes handed out so far

    def read1(self, size: int) -> bytes:
        size = max(size, 1)
        while True:
            if self._damage is not None:
                raise self._damage
            if self._inflate.eof and not self._next_member():
                return b""
            if self._max_ratio is not None and self.decompressed > RATIO_FLOOR \
                    and self.decompressed > self._max_ratio * self.consumed:
                raise TooCompressed(f"{self.consumed} compressed bytes inflated to {self.decompressed}")
            data = self._inflate.unconsumed_tail or self._pending or self._read_raw()
            self._pending = b""
            if not data:
                raise GzipDamaged(f"compressed data ends inside gzip member {self._members} "
                                  f"after {self.decompressed} decompressed bytes")
            before = self._inflate.copy()
            try:
                out = self._inflate.decompress(data, size)
            except zlib.error as err:
                # zlib drops the output of a call that fails: decode again in small steps
                # from the state before it, to hand out every byte up to the damage
                out = _salvage(before, data)
                self._damage = GzipDamaged(f"gzip member {self._members} is corrupt after "
                                           f"{self.decompressed + len(out)} decompressed bytes ({err})")
            if out:
                self.decompressed += len(out)
                return out

    @property
    def consumed(self) -> int:
        """Compressed bytes decompressed so far (read from raw and not waiting)."""
        return self._fed - len(self._inflate.unconsumed_tail) - len(self._pending) - len(self._inflate.unused_data)

    def _read_raw(self) -> bytes:
        data = self._raw.read(CHUNK)
        self._fed += len(data)
        return data

    def _next_member(self) -> bool:
        """After a member's trailer: start the next one, or report the clean end."""
        rest = self._inflate.unused_data.lstrip(b"\x00")
        while not rest:  # nothing more, or zero padding: read on to be sure
            more = self._read_raw()
            if not more:
                return False
            rest = more.lstrip(b"\x00")
        self._inflate = zlib.decompressobj(GZIP_WBITS)
        self._pending = rest
        self._members += 1
        return True


def _salvage(inflate, data: bytes) -> bytes:
    out = []
    for at in range(0, len(data), SALVAGE_STEP):
        try:
            out.append(inflate.decompress(data[at:at + SALVAGE_STEP]))
        except zlib.error:
            break
    return b"".join(out)


def gunzip_head(raw: BinaryIO, size: int) -> bytes:
    """Up to `size` decompressed bytes from the start of `raw`; fewer when the stream ends or
    is damaged within them. Raises GzipDamaged only when not one byte decompresses."""
    stream = Gunzip(raw)
    out = b""
    while len(out) < size:
        try:
            data = stream.read1(size - len(out))
        except GzipDamaged:
            if out:
                break
            raise
        if not data:
            break
        out += data
    return out[:size]
