"""Damaged copies of real captures, for the fuzz test and the fuzz benchmark.

`mutants(seeds, count, seed)` yields `Mutant`s, the same ones for the same arguments: each is
one seed capture with one kind of damage a hostile or broken capture shows (issue 17):

- `bit-flips`: 1-16 random bits flipped anywhere;
- `truncate`: cut at a random byte;
- `record-length`: one pcap record's captured length, or one pcapng block's total length
  (leading, trailing or both) or packet length, set to a hostile value (0, 12-28, odd, just
  past the end, 2^31, 2^32-1);
- `overwrite`: a run of random bytes written over a random place;
- `gzip`: the capture (or a damaged one) gzip'd, then cut, bit-flipped, CRC-broken or
  given a bad header;
- `gzip-zeros`: a pcap header and a run of zeros, gzip'd: a small bomb of empty records.

The structure walks below find length fields without the reader under test, so a bug there
cannot hide a mutation.
"""

from __future__ import annotations

import gzip
import random
import struct
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

KINDS = ("bit-flips", "truncate", "record-length", "overwrite", "gzip", "gzip-zeros")
HOSTILE_LENGTHS = (0, 4, 12, 16, 20, 24, 28, 13, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF)


@dataclass(frozen=True, slots=True)
class Mutant:
    name: str  #: "<seed file>#<index>:<kind>", enough to rebuild it
    kind: str
    data: bytes
    gzipped: bool


def mutants(seeds: Sequence[tuple[str, bytes]], count: int, seed: int) -> Iterator[Mutant]:
    """`count` mutants of the (name, bytes) seeds, round-robin over kinds and seeds."""
    rng = random.Random(seed)
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        name, data = seeds[(index // len(KINDS)) % len(seeds)]
        mutated, gzipped = _MUTATE[kind](rng, data)
        yield Mutant(f"{name}#{index}:{kind}", kind, mutated, gzipped)


def _bit_flips(rng: random.Random, data: bytes) -> tuple[bytes, bool]:
    out = bytearray(data)
    for _ in range(rng.randint(1, 16)):
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out), False


def _truncate(rng: random.Random, data: bytes) -> tuple[bytes, bool]:
    return data[:rng.randrange(len(data))], False


def _overwrite(rng: random.Random, data: bytes) -> tuple[bytes, bool]:
    at = rng.randrange(len(data))
    junk = rng.randbytes(rng.randint(1, 64))
    return data[:at] + junk + data[at + len(junk):], False


def _record_length(rng: random.Random, data: bytes) -> tuple[bytes, bool]:
    fields = length_fields(data)
    if not fields:
        return _bit_flips(rng, data)
    out = bytearray(data)
    order, spots = fields
    at_list = rng.choice(spots)
    value = rng.choice(HOSTILE_LENGTHS + (len(data) - at_list[0] + 4, rng.randrange(1 << 16)))
    for at in at_list:
        struct.pack_into(order + "I", out, at, value)
    return bytes(out), False


def _gzip(rng: random.Random, data: bytes) -> tuple[bytes, bool]:
    if rng.random() < 0.3:  # damage inside as well as outside the compression
        data = _MUTATE[rng.choice(("bit-flips", "truncate", "record-length"))](rng, data)[0]
    packed = bytearray(gzip.compress(data, compresslevel=rng.choice((1, 6, 9)), mtime=0))
    damage = rng.choice(("cut", "flip", "crc", "header", "none"))
    if damage == "cut":
        return bytes(packed[:rng.randrange(2, len(packed))]), True
    if damage == "flip":
        for _ in range(rng.randint(1, 8)):
            packed[rng.randrange(10, len(packed))] ^= 1 << rng.randrange(8)
    elif damage == "crc":
        packed[-8] ^= 0xFF
    elif damage == "header":
        packed[rng.randrange(2, 10)] = rng.randrange(256)
    return bytes(packed), True


def _gzip_zeros(rng: random.Random, data: bytes) -> tuple[bytes, bool]:
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    return gzip.compress(header + bytes(rng.randint(1, 16) << 18), mtime=0), True  # 256 KiB-4 MiB


_MUTATE = {"bit-flips": _bit_flips, "truncate": _truncate, "record-length": _record_length,
           "overwrite": _overwrite, "gzip": _gzip, "gzip-zeros": _gzip_zeros}


def length_fields(data: bytes) -> tuple[str, list[tuple[int, ...]]] | None:
    """(byte order, offsets of length fields: each a tuple written together) of a pcap or
    pcapng file, found by walking its records or blocks as far as they are sound."""
    if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        return "<", _pcap_fields(data, "<")
    if data[:4] in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        return ">", _pcap_fields(data, ">")
    if data[:4] == b"\x0a\x0d\x0d\x0a" and len(data) >= 12:
        order = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
        return order, _pcapng_fields(data, order)
    return None


def _pcap_fields(data: bytes, order: str) -> list[tuple[int, ...]]:
    spots, at = [], 24
    while at + 16 <= len(data) and len(spots) < 10_000:
        spots.append((at + 8,))  # captured length
        at += 16 + struct.unpack_from(order + "I", data, at + 8)[0]
    return spots


def _pcapng_fields(data: bytes, order: str) -> list[tuple[int, ...]]:
    spots, at = [], 0
    while at + 12 <= len(data) and len(spots) < 10_000:
        btype, blen = struct.unpack_from(order + "II", data, at)
        if blen < 12 or at + blen > len(data):
            break
        end = at + blen - 4
        spots += [(at + 4,), (end,), (at + 4, end)]  # leading, trailing, both
        if btype == 6 and blen >= 32:
            spots.append((at + 20,))  # EPB captured length
        at += blen
    return spots
