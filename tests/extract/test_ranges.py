"""Byte-range shards (extract/ranges.py, extract/spill.py): boundaries found from any offset
are the true ones, the ranges read exactly the records one walk reads, and shards that each
read only their range merge into exactly one walk's result; what cannot be read in ranges
(cut or damaged captures, gzip, interfaces described late) gets what one walk gives."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

import pytest

from support.shards import analyze_json, build_stress_capture, interleave, lan_traffic, tunnels
from tracepcap.extract import parallel, ranges
from tracepcap.extract.parallel import in_process, merge, run_extract
from tracepcap.extract.pipeline import extract
from tracepcap.extract.ranges import RangeDoubt, RangeReader, framing_of, resync, split
from tracepcap.extract.reader import CaptureReader
from tracepcap.limits import Limits
from tracepcap.testing.scenario import Scenario
from tracepcap.testing.writers import PcapngWriter, PcapWriter

SHARED = Path(__file__).resolve().parents[3] / "shared" / "captures"
REAL = sorted(p for p in SHARED.rglob("*") if p.suffix in (".pcap", ".pcapng") and p.stat().st_size < 8 << 20)


@pytest.fixture
def small_ranges(monkeypatch):
    """Ranges of any size: the test captures are small."""
    monkeypatch.setattr(ranges, "MIN_RANGE_BYTES", 1)


def boundaries(path: Path) -> list[int]:
    """Every record's (pcap) or block's (pcapng) offset, and the file's end."""
    data = path.read_bytes()
    framing = framing_of(path)
    at, found = (framing.first_record, []) if framing.format != "pcapng" else (0, [])
    while at < len(data):
        found.append(at)
        if framing.format == "pcapng":
            at += struct.unpack_from(framing.order + "I", data, at + 4)[0]
        else:
            at += 16 + struct.unpack_from(framing.order + "I", data, at + 8)[0]
    return [*found, len(data)]


def records(path: Path) -> list[tuple]:
    with CaptureReader(path, Limits()) as reader:
        return [(linktype, ts, orig, bytes(data)) for linktype, ts, orig, data in reader.records()]


def walk(path: Path, limits: Limits = Limits()):
    rows: list[dict] = []
    return extract(path, "ab", limits=limits, on_conversation=rows.append), rows


def assert_exact_by_ranges(path: Path, counts=(2, 3), limits: Limits = Limits()) -> None:
    expected, rows = walk(path, limits)
    for count in counts:
        outputs = in_process(str(path), "ab", limits, count, None)
        assert all(out.shard.given for out in outputs), "not read in byte ranges"
        result, merged_rows = merge(outputs, "ab", limits)
        assert result == expected, f"{count} ranges"
        assert list(merged_rows) == sorted(rows, key=lambda row: row["first_frame"]), f"{count} ranges"


def write_pcapng(path: Path, frames: list[bytes], nanos: bool = False, big_endian: bool = False) -> Path:
    with open(path, "wb") as out:
        writer = PcapngWriter(out, big_endian=big_endian)
        writer.interface(tsresol_nanos=nanos)
        for i, frame in enumerate(frames):
            writer.write(1_700_000_000.0 + i * 0.001, frame)
    return path


def stress_frames() -> list[bytes]:
    lan = Scenario()
    lan_traffic(lan)
    return interleave(lan.frames(), [(0, fr) for fr in tunnels()])


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_resync_finds_the_true_boundary_from_any_offset(path):
    truth = boundaries(path)
    framing = framing_of(path)
    size = path.stat().st_size
    first_time = ranges._first_time(open(path, "rb"), framing)  # noqa: SIM115 - read once
    step = max(1, (size - framing.first_record) // 150)
    with open(path, "rb") as f:
        for guess in range(framing.first_record + 1, size, step):
            expected = next(b for b in truth if b >= guess)
            assert resync(f, framing, guess, size, first_time) == expected, f"from byte {guess}"


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_ranges_read_exactly_the_records_one_walk_reads(path):
    expected = records(path)
    for count in (2, 3, 7):
        framing, byte_ranges = split(path, count, min_range_bytes=1)
        assert 1 < len(byte_ranges) <= count  # fewer in a capture of a few records
        got: list[tuple] = []
        for byte_range in byte_ranges:
            counted = RangeReader(path, framing, byte_range).count()
            read = [(lt, ts, orig, bytes(data)) for lt, ts, orig, data in
                    RangeReader(path, framing, byte_range).records()]
            assert counted == len(read)
            got += read
        assert got == expected


@pytest.mark.parametrize("shape", ["pcap", "pcap-ns-big-endian", "pcapng", "pcapng-ns-big-endian"])
def test_shards_of_byte_ranges_merge_into_one_walk(tmp_path, small_ranges, shape):
    """Flows spanning every range (the frames interleaved), tunnels, DHCP, LLDP and CDP, and
    frames routed to another range's shard, in each byte order and time unit."""
    frames = stress_frames() * 3
    path = tmp_path / f"{shape}.cap"
    if shape.startswith("pcapng"):
        write_pcapng(path, frames, nanos="ns" in shape, big_endian="big" in shape)
    else:
        with open(path, "wb") as out:
            writer = PcapWriter(out, nanos="ns" in shape, big_endian="big" in shape)
            for i, frame in enumerate(frames):
                writer.write(1_700_000_000.0 + i * 0.001, frame)
    assert_exact_by_ranges(path, counts=(2, 3, 5))


def test_each_frame_is_walked_by_one_shard_and_the_files_are_removed(tmp_path, small_ranges, monkeypatch):
    path = build_stress_capture(tmp_path / "stress.pcap")
    monkeypatch.setattr(parallel, "RUN_ROWS", 2)  # conversation rows written out as sorted runs
    outputs = in_process(str(path), "ab", Limits(), 3, None)
    expected, rows = walk(path)
    assert sum(out.result.conversations for out in outputs) == expected.conversations
    assert all(out.runs for out in outputs)  # the work is spread, the rows in runs
    assert [p.name.split("-")[0] for p in Path(outputs[0].directory).iterdir()] == ["run"] * sum(
        len(out.runs) for out in outputs)  # the spill files are gone once the shards walked
    result, merged_rows = merge(outputs, "ab", Limits())
    assert result == expected
    assert list(merged_rows) == sorted(rows, key=lambda row: row["first_frame"])
    got: list[dict] = []
    assert run_extract(path, "ab", workers=3, runner=in_process, on_conversation=got.append) == expected
    assert got == sorted(rows, key=lambda row: row["first_frame"])
    parallel._remove(outputs)
    assert not list(tmp_path.glob(".tracepcap-shards-*"))  # run_extract removed its own


def test_checkpoints_and_idle_expiry_cross_the_ranges(tmp_path, small_ranges, monkeypatch):
    """30,000 records (several checkpoints), conversations silent past the idle time that
    resume in a later range; 12,600 conversation rows merged from runs of 500."""
    monkeypatch.setattr(parallel, "RUN_ROWS", 500)
    from tracepcap.testing import frames as f
    path = tmp_path / "idle.pcap"
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for n in range(30_000):
            client, port = f"10.2.{n % 7}.{n % 200 + 2}", 20_000 + n % 900
            frame = f.ethernet("02:00:00:00:00:0a", "02:00:00:00:00:0b", f.ETH_IPV4,
                               f.ipv4(client, "10.1.0.1", f.PROTO_UDP, f.udp(client, "10.1.0.1", port, 53, b"q")))
            writer.write(1_700_000_000.0 + n * 0.25 + (n // 9_000) * 900, frame)
    expected, rows = walk(path)
    assert len({(r["src"], r["sport"]) for r in rows}) < len(rows)  # some resumed as new rows
    assert_exact_by_ranges(path, counts=(2, 3, 4))
    assert_exact_by_ranges(path, counts=(2,), limits=Limits(flow_idle_seconds=60))


@pytest.mark.parametrize("damage", ["cut-record", "cut-header", "impossible-length", "gzip"])
def test_damaged_or_compressed_captures_give_what_one_walk_gives(tmp_path, small_ranges, damage):
    stress = build_stress_capture(tmp_path / "stress.pcap")
    good = stress.read_bytes()
    middle = next(b for b in boundaries(stress) if b >= len(good) // 2)  # a record's header
    data = {"cut-record": good[:-7], "cut-header": good + b"\x01\x02\x03",
            "impossible-length": good[:middle + 8] + b"\xff" * 4 + good[middle + 12:],
            "gzip": gzip.compress(good)}[damage]
    path = tmp_path / "damaged.pcap"
    path.write_bytes(data)
    expected, rows = walk(path)
    if damage != "gzip":
        assert expected.partial
    outputs = in_process(str(path), "ab", Limits(), 3, None)
    assert not any(out.shard.given for out in outputs)  # every shard read the whole capture
    result, merged_rows = merge(outputs, "ab", Limits())
    assert result == expected
    assert list(merged_rows) == sorted(rows, key=lambda row: row["first_frame"])


def test_an_interface_described_after_the_first_packet_is_read_once(tmp_path, small_ranges):
    frames = stress_frames()
    path = tmp_path / "late.pcapng"
    with open(path, "wb") as out:
        writer = PcapngWriter(out)
        writer.interface()
        for i, frame in enumerate(frames):
            if i == len(frames) * 3 // 4:
                writer.interface(tsresol_nanos=True)
            writer.write(1_700_000_000.0 + i * 0.001, frame, iface=int(i >= len(frames) * 3 // 4))
    framing, byte_ranges = split(path, 2)
    with pytest.raises(RangeDoubt, match="after the first packet"):
        for byte_range in byte_ranges:
            RangeReader(path, framing, byte_range).count()
    expected, _ = walk(path)
    result, _ = merge(in_process(str(path), "ab", Limits(), 2, None), "ab", Limits())
    assert result == expected


def test_small_captures_past_the_limits_and_gzip_are_not_split(tmp_path):
    path = build_stress_capture(tmp_path / "stress.pcap")
    with pytest.raises(RangeDoubt, match="too small"):
        split(path, 2)
    with pytest.raises(RangeDoubt, match="byte limit"):
        split(path, 2, Limits(max_read_bytes=100), min_range_bytes=1)
    zipped = tmp_path / "stress.pcap.gz"
    zipped.write_bytes(gzip.compress(path.read_bytes()))
    with pytest.raises(RangeDoubt, match="gzip"):
        split(zipped, 2, min_range_bytes=1)


def test_a_record_limit_counted_over_the_whole_capture_is_one_walks(tmp_path, small_ranges):
    path = build_stress_capture(tmp_path / "stress.pcap")
    limits = Limits(max_records=50)
    expected, _ = walk(path, limits)
    assert expected.partial
    result, _ = merge(in_process(str(path), "ab", limits, 2, None), "ab", limits)
    assert result == expected


def test_analyze_json_by_byte_ranges_is_byte_identical_for_1_2_and_3_workers(tmp_path, monkeypatch, small_ranges):
    """Through the CLI, on spawned processes: `--workers 2` and `3` read byte ranges."""
    monkeypatch.setenv("TRACEPCAP_PARALLEL_MIN_BYTES", "0")
    path = build_stress_capture(tmp_path / "stress.pcap")
    given: list[bool] = []
    real = parallel.on_processes

    def recorded(*args):
        outputs = real(*args)
        given.append(all(out.shard.given for out in outputs))
        return outputs
    monkeypatch.setattr(parallel, "on_processes", recorded)
    one = analyze_json(path, tmp_path / "1", 1)
    assert json.loads(one)
    assert analyze_json(path, tmp_path / "2", 2) == one
    assert analyze_json(path, tmp_path / "3", 3) == one
    assert given == [True, True]


def test_progress_over_the_three_steps_only_grows(tmp_path, small_ranges):
    path = build_stress_capture(tmp_path / "stress.pcap")
    seen: list[tuple[int, int]] = []
    expected, _ = walk(path)
    assert run_extract(path, "ab", workers=2, on_progress=lambda done, total: seen.append((done, total))) == expected
    done = [d for d, _ in seen]
    assert done == sorted(done) and done[-1] == seen[-1][1] == path.stat().st_size
