"""Sharding one capture's walk: N shards merge into exactly one walk's result, and
`analyze --json` is byte-identical for --workers 1, 2 and 3, on every shared capture and on
captures built to stress the shard boundaries (fragments, tunnels, flows spanning the whole
capture, non-IP frames, DHCP, link announcements landing through ARP)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.shards import VM_A, VM_B, VTEP_A, VTEP_B, analyze_json, build_stress_capture, write_frames
from tracepcap.extract import parallel
from tracepcap.extract.parallel import Fallback, in_process, merge, run_extract
from tracepcap.extract.pipeline import extract
from tracepcap.limits import Limits
from tracepcap.extract.shard import GLOBAL, Shard, flow_key, shard_of
from tracepcap.testing import frames as f
from tracepcap.testing import tunnels as t
from tracepcap.testing.scenario import Scenario

SHARED = sorted(p.name for p in (Path(__file__).resolve().parents[3] / "shared" / "captures").glob("*.pcap*"))


@pytest.fixture(scope="module")
def stress(tmp_path_factory) -> Path:
    return build_stress_capture(tmp_path_factory.mktemp("stress") / "stress.pcap")


def _one_walk(path: Path):
    rows: list[dict] = []
    return extract(path, "ab", on_conversation=rows.append), rows


def _assert_exact(path: Path, counts=(2, 3)) -> None:
    expected, rows = _one_walk(path)
    for count in counts:
        result, merged_rows = merge(in_process(str(path), "ab", Limits(), count, None), "ab", Limits())
        assert result == expected, f"{count} shards"
        assert list(merged_rows) == sorted(rows, key=lambda row: row["first_frame"]), f"{count} shards"


@pytest.mark.parametrize("name", SHARED)
def test_every_shared_capture_merges_exactly(captures, name):
    _assert_exact(captures / name)


def test_the_stress_capture_merges_exactly_for_any_shard_count(stress):
    expected, _ = _one_walk(stress)
    kinds = {o.kind for o in expected.observations}
    # it exercises what crosses flows: DHCP landing, LLDP/CDP through ARP, vendors per MAC
    assert {"hostname-claim", "lldp-platform", "oui-vendor", "ip-mac-binding", "http-server"} <= kinds
    assert any(row.extractor == "decapsulation" for row in expected.manifest)
    assert expected.notice_counts
    _assert_exact(stress, counts=(2, 3, 4, 5, 8))


def test_each_shard_keeps_what_it_should(stress):
    """Every frame is in exactly one shard; cross-flow traffic is all in the global one."""
    shards = in_process(str(stress), "ab", Limits(), 3, None)
    expected, _ = _one_walk(stress)
    assert sum(out.result.conversations for out in shards) == expected.conversations
    dhcp = [fact for out in shards for fact in out.facts if fact[3] == "dhcp"]
    assert dhcp and all(fact in shards[GLOBAL].facts for fact in dhcp)
    assert all(len(out.conversations) for out in shards)  # the work is spread


def test_a_flow_key_is_the_same_both_ways_and_the_hash_is_stable():
    fwd = f.ethernet(VM_A, VM_B, f.ETH_IPV4, f.ipv4("10.0.0.1", "10.0.0.2", f.PROTO_TCP,
                                                    f.tcp("10.0.0.1", "10.0.0.2", 1234, 80, 1, 0, "S")))
    rev = f.ethernet(VM_B, VM_A, f.ETH_IPV4, f.ipv4("10.0.0.2", "10.0.0.1", f.PROTO_TCP,
                                                    f.tcp("10.0.0.2", "10.0.0.1", 80, 1234, 1, 2, "SA")))
    from tracepcap.extract.packet import decode_frame
    a, b = (decode_frame(1, memoryview(fr), 1, 0.0, len(fr)) for fr in (fwd, rev))
    assert flow_key(a) == flow_key(b) == (6, 0x0A000001 << 16 | 1234, 0x0A000002 << 16 | 80)
    # integer arithmetic, not Python's hash() (salted per process): a fixed value anywhere
    assert [shard_of(flow_key(a), n) for n in (2, 3, 7, 1000)] == [0, 1, 2, 896]
    assert [Shard(i, 7).keep(a) for i in range(7)].count(True) == 1
    assert Shard(shard_of(flow_key(a), 7), 7).keep(b)


def test_dhcp_inside_a_tunnel_is_walked_once_and_still_exact(tmp_path):
    """What routing cannot keep in one shard falls back to one walk: same answer."""
    sc = Scenario()
    server = sc.host("192.168.1.1", "00:11:22:33:44:01")
    sc.dhcp_exchange("3c:22:fb:00:00:01", server, "192.168.1.20", hostname="inside")
    frames = [f.ethernet("00:1b:21:0a:0b:0c", "00:1b:21:0a:0b:0d", f.ETH_IPV4,
                         t.over_udp(VTEP_A, VTEP_B, 51000, 4789, t.vxlan(9, fr))) for _, fr in sc.frames()]
    path = write_frames(tmp_path / "dhcp-in-vxlan.pcap", frames)
    with pytest.raises(Fallback, match="DHCP inside a tunnel"):
        merge(in_process(str(path), "ab", Limits(), 2, None), "ab", Limits())
    expected, rows = _one_walk(path)
    got: list[dict] = []
    assert run_extract(path, "ab", workers=2, runner=in_process, on_conversation=got.append) == expected
    assert got == rows


def test_past_a_bounded_table_it_falls_back(stress):
    limits = Limits(max_flows=5)
    with pytest.raises(Fallback):
        merge(in_process(str(stress), "ab", limits, 2, None), "ab", limits)


@pytest.mark.parametrize("name", SHARED)
def test_analyze_json_is_byte_identical_for_1_2_and_3_workers(captures, name, tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_PARALLEL_MIN_BYTES", "0")
    monkeypatch.setattr(parallel, "on_processes", in_process)  # the merge, without spawning
    one = analyze_json(captures / name, tmp_path / "1", 1)
    assert json.loads(one)
    assert analyze_json(captures / name, tmp_path / "2", 2) == one
    assert analyze_json(captures / name, tmp_path / "3", 3) == one


def test_analyze_on_spawned_processes_is_byte_identical(stress, tmp_path, monkeypatch):
    """The real thing: 1, 2 and 3 spawned processes, through the CLI, on the stress capture."""
    monkeypatch.setenv("TRACEPCAP_PARALLEL_MIN_BYTES", "0")
    used: list[int] = []
    real = parallel.on_processes

    def counted(*args):
        outputs = real(*args)
        used.append(len(outputs))
        merge(outputs, args[1], args[2])  # mergeable: not a fallback
        return outputs
    monkeypatch.setattr(parallel, "on_processes", counted)
    one = analyze_json(stress, tmp_path / "1", 1)
    assert analyze_json(stress, tmp_path / "2", 2) == one
    assert analyze_json(stress, tmp_path / "3", 3) == one
    assert used == [2, 3]


@pytest.mark.parametrize("name", [*SHARED, "stress"])
def test_the_raw_key_decides_as_the_decoded_packet_would(captures, stress, name):
    """A frame skipped by its raw bytes goes where its decoded packet's key would send it."""
    from tracepcap.extract.decoders import DecodeError
    from tracepcap.extract.packet import decode_frame
    from tracepcap.extract.reader import CaptureReader
    path = stress if name == "stress" else captures / name
    raw_decided = 0
    with CaptureReader(path, Limits()) as reader:
        for frame, (linktype, ts, wire_len, data) in enumerate(reader.records(), 1):
            for index in range(3):
                by_raw, by_packet = Shard(index, 3), Shard(index, 3)
                kept = by_raw.keep_raw(linktype, data)
                if by_raw.mine is None:
                    continue
                raw_decided += 1
                try:
                    pkt = decode_frame(linktype, data, frame, ts, wire_len)
                except DecodeError:
                    continue  # counted by the raw key's shard (keep_undecodable)
                assert kept == by_packet.keep(pkt), f"frame {frame}"
    assert raw_decided or linktype != 1  # only Ethernet frames are read raw


def test_a_cancelled_sharded_walk_stops_its_processes(stress):
    from tracepcap.errors import AnalysisCancelled

    def cancel(done, total):
        raise AnalysisCancelled("stop")
    with pytest.raises(AnalysisCancelled):
        run_extract(stress, "ab", workers=2, on_progress=cancel)


def test_the_plan_walks_small_captures_in_one_process(tmp_path):
    from tracepcap.dask_trust import DaskCluster
    from tracepcap.settings import Settings
    small, big = tmp_path / "small.pcap", tmp_path / "big.pcap"
    small.write_bytes(bytes(10))
    big.write_bytes(bytes(2000))
    settings = Settings(data_dir=tmp_path, parallel_min_bytes=1000, capture_workers=3,
                        dask_scheduler="tcp://10.0.0.1:8786")
    assert settings.extract_plan(small) == (1, None)
    assert settings.extract_plan(big) == (3, DaskCluster("tcp://10.0.0.1:8786"))
    assert settings.extract_plan(tmp_path / "missing.pcap") == (1, None)
    assert Settings(data_dir=tmp_path, parallel_min_bytes=0).extract_plan(big)[0] >= 1


def test_the_default_shards_only_on_machines_with_more_than_two_cores(monkeypatch):
    """On 2 cores two shards cost ~1.5 walks of CPU for little or no wall time (BENCHMARKS.md)."""
    from tracepcap import settings
    for cores, expected in ((1, 1), (2, 1), (3, 3), (8, 8)):
        monkeypatch.setattr(settings.os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        assert settings.default_workers() == expected


def test_a_failed_pool_or_cluster_costs_one_walk_not_the_capture(stress):
    def broken(*args):
        raise OSError("the scheduler at tcp://10.255.0.1:8786 did not answer")
    expected, rows = _one_walk(stress)
    got: list[dict] = []
    assert run_extract(stress, "ab", workers=2, runner=broken, on_conversation=got.append) == expected
    assert got == rows
