"""Shards on a real Dask cluster (a LocalCluster of 2 worker processes): the same result as
one walk, through `run_extract` and `tracepcap analyze --scheduler`, and a worker killed
mid-walk costs its shard a retry on another worker, not the capture."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from tracepcap.extract import parallel, ranges
from tracepcap.extract.parallel import merge, on_dask, run_extract
from tracepcap.extract.pipeline import extract
from tracepcap.limits import Limits
from tracepcap.testing.writers import PcapWriter

from support.cli import run_cli, sqlite_store
from support.shards import analyze_json, build_stress_capture


@pytest.fixture(scope="module")
def stress(tmp_path_factory) -> Path:
    return build_stress_capture(tmp_path_factory.mktemp("stress") / "stress.pcap")


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      scheduler_port=0, silence_logs=40) as local:
        yield local


def _one_walk(path: Path):
    rows: list[dict] = []
    return extract(path, "ab", on_conversation=rows.append), rows


def test_shards_on_the_cluster_give_one_walks_result(cluster, stress):
    expected, rows = _one_walk(stress)
    got: list[dict] = []
    assert run_extract(stress, "ab", scheduler=cluster.scheduler_address, on_conversation=got.append) == expected
    assert got == sorted(rows, key=lambda row: row["first_frame"])


def test_byte_range_shards_on_the_cluster_give_one_walks_result(cluster, stress, monkeypatch):
    """Each worker reads only its range; the spill files are shared (next to the capture)."""
    monkeypatch.setattr(ranges, "MIN_RANGE_BYTES", 1)
    expected, rows = _one_walk(stress)
    outputs = on_dask(cluster.scheduler_address, str(stress), "ab", Limits(), 2, lambda done, total: None)
    assert [out.shard.given for out in outputs] == [True, True]
    assert len({out.pid for out in outputs}) == 2  # both workers walked
    result, merged_rows = merge(outputs, "ab", Limits())
    assert result == expected
    assert list(merged_rows) == sorted(rows, key=lambda row: row["first_frame"])
    parallel._remove(outputs)  # what run_extract does once the rows are stored
    assert not list(stress.parent.glob(".tracepcap-shards-*"))


@pytest.mark.parametrize("by_ranges", [False, True])
def test_analyze_with_a_scheduler_is_byte_identical(cluster, stress, tmp_path, monkeypatch, by_ranges):
    monkeypatch.setenv("TRACEPCAP_PARALLEL_MIN_BYTES", "0")
    if by_ranges:
        monkeypatch.setattr(ranges, "MIN_RANGE_BYTES", 1)
    one = analyze_json(stress, tmp_path / "1", 1)
    code_dir = tmp_path / "dask"
    code_dir.mkdir()
    code, out, err = run_cli("analyze", stress, "--json", "--scheduler", cluster.scheduler_address,
                             db=sqlite_store(code_dir), data_dir=code_dir)
    assert code in (0, 3), err
    assert out == one


@pytest.fixture(scope="module")
def long_capture(stress, tmp_path_factory) -> Path:
    """The stress capture's frames 1,000 times over: a shard takes seconds, long enough to
    kill its worker in the middle."""
    from tracepcap.extract.reader import CaptureReader
    with CaptureReader(stress, Limits()) as reader:
        frames = [bytes(data) for _, _, _, data in reader.records()]
    path = tmp_path_factory.mktemp("long") / "long.pcap"
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for i in range(1000):
            for j, frame in enumerate(frames):
                writer.write(1_700_000_000 + i + j * 1e-4, frame)
    return path


def test_a_worker_killed_mid_walk_costs_a_retry_not_the_capture(cluster, long_capture):
    client = Client(cluster.scheduler_address, set_as_default=False)
    killed: list[int] = []

    def kill_a_busy_worker() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            busy = [addr for addr, keys in client.processing().items()
                    if any("tracepcap-shard" in str(k) for k in keys)]
            if busy:
                time.sleep(0.2)  # into the walk
                pid = client.run(os.getpid, workers=busy[:1])[busy[0]]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            time.sleep(0.05)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    try:
        outputs = on_dask(cluster.scheduler_address, str(long_capture), "ab", Limits(), 2,
                          lambda done, total: None)
    finally:
        killer.join()
        client.close()
    assert killed, "no shard was seen running"
    assert all(out.shard.given for out in outputs)  # read in byte ranges
    assert killed[0] not in {out.pid for out in outputs}  # the killed worker's shard ran again
    result, rows = merge(outputs, "ab", Limits())
    expected, expected_rows = _one_walk(long_capture)
    assert result == expected
    assert list(rows) == sorted(expected_rows, key=lambda row: row["first_frame"])
