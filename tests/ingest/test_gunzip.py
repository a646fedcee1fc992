"""Damaged gzip (issue 17, item 6): every byte before the damage is handed out, the damage is
one error with a sentence (never a bare zlib.error), and sniffing a damaged or short gzip is
a clear "not a capture" or a format, never a traceback."""

from __future__ import annotations

import gzip
import io
import random
import zlib

import pytest

from tracepcap.errors import UnusableCapture
from tracepcap.ingest.gunzip import Gunzip, GzipDamaged, gunzip_head
from tracepcap.ingest.sniff import sniff, sniff_file

DATA = bytes(random.Random(17).choices(b"pcap-bytes\x00\x01", k=100_000))  # compresses ~2:1


def read_all(raw: bytes) -> tuple[bytes, GzipDamaged | None]:
    stream = Gunzip(io.BytesIO(raw))
    out = []
    try:
        while chunk := stream.read1(4096):
            out.append(chunk)
    except GzipDamaged as err:
        return b"".join(out), err
    return b"".join(out), None


def test_whole_stream_members_and_zero_padding():
    two_members = gzip.compress(DATA[:1000]) + gzip.compress(DATA[1000:]) + bytes(512)
    assert read_all(two_members) == (DATA, None)


@pytest.mark.parametrize("keep", [20, 200, 2000])
def test_a_cut_stream_hands_out_what_came_before_then_says_so(keep):
    compressed = gzip.compress(DATA, compresslevel=1)
    out, err = read_all(compressed[:keep])
    assert DATA.startswith(out)
    assert isinstance(err, GzipDamaged) and "ends inside gzip member 1" in str(err)


def test_corruption_inside_a_block_keeps_the_bytes_before_it():
    compressed = bytearray(gzip.compress(DATA, compresslevel=1))
    whole_prefix, _ = read_all(bytes(compressed[:len(compressed) // 2]))
    compressed[len(compressed) // 2] ^= 0xFF
    compressed[len(compressed) // 2 + 1] ^= 0x5A
    out, err = read_all(bytes(compressed))
    assert isinstance(err, GzipDamaged) and "is corrupt after" in str(err)
    # what the bytes before the damage decode to is handed out, not dropped with the bad call
    assert len(whole_prefix) > 10_000 and out.startswith(whole_prefix)


def test_a_bad_crc_is_damage_after_all_the_data():
    compressed = bytearray(gzip.compress(DATA))
    compressed[-8] ^= 0x01  # CRC-32 in the trailer
    out, err = read_all(bytes(compressed))
    assert out == DATA and "incorrect data check" in str(err)


def test_garbage_header_is_damage_not_zlib_error():
    with pytest.raises(GzipDamaged) as caught:
        gunzip_head(io.BytesIO(b"\x1f\x8b\x09" + bytes(40)), 64)  # compression method 9
    assert not isinstance(caught.value, zlib.error)


def test_gunzip_head_keeps_a_short_prefix():
    head = gunzip_head(io.BytesIO(gzip.compress(DATA)[:400]), 64)
    assert head == DATA[:64]
    assert gunzip_head(io.BytesIO(gzip.compress(b"abc")), 64) == b"abc"
    assert gunzip_head(io.BytesIO(gzip.compress(b"abc")[:-4]), 64) == b"abc"  # no size trailer


def test_sniff_of_corrupt_gzip_is_not_a_capture(tmp_path):
    path = tmp_path / "bad.pcap.gz"
    path.write_bytes(b"\x1f\x8b\x08\x00" + b"\xff" * 60)  # a gzip header, then no valid deflate
    with pytest.raises(UnusableCapture, match="gzip data unreadable"):
        sniff_file(path)
    assert sniff(path.read_bytes()) == "pcap+gzip"  # the head alone defers to the whole file


def test_sniff_of_gzip_holding_too_little_is_not_a_capture(tmp_path):
    path = tmp_path / "tiny.gz"
    path.write_bytes(gzip.compress(b"\xd4\xc3"))
    with pytest.raises(UnusableCapture, match="holds only 2 bytes"):
        sniff_file(path)
