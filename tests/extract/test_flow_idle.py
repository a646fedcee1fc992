"""Conversations silent for `Limits.flow_idle_seconds` leave the flow table (extract/flows.py):
a long capture of short conversations stays bounded, a conversation that resumes after the
silence is a new row, and a sharded walk still merges into exactly one walk's result."""

from __future__ import annotations

import pytest

from tracepcap.extract.parallel import Fallback, in_process, merge
from tracepcap.extract.pipeline import extract
from tracepcap.limits import Limits
from tracepcap.testing import frames as f
from tracepcap.testing.writers import PcapWriter

START = 1_700_000_000.0
SPACING = 0.5  # seconds between records: 600 s of silence is 1,200 records
CLIENTS, SERVER = 250, "10.1.0.1"
QUIET_A, QUIET_B = ("10.9.0.1", 5000), ("10.9.0.2", 6000)  # silent 12,000 s, then resumes
PAUSED_A, PAUSED_B = ("10.9.0.3", 5001), ("10.9.0.4", 6001)  # silent 300 s, then resumes
MAC_A, MAC_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"


def datagram(src: tuple[str, int], dst: tuple[str, int], payload: bytes = b"q") -> bytes:
    return f.ethernet(MAC_A, MAC_B, f.ETH_IPV4, f.ipv4(src[0], dst[0], f.PROTO_UDP,
                                                       f.udp(src[0], dst[0], src[1], dst[1], payload)))


@pytest.fixture(scope="module")
def long_capture(tmp_path_factory):
    """15,000 two-packet conversations over 15,000 s, plus the quiet and paused pairs."""
    records: list[tuple[float, bytes]] = []
    for n in range(15_000):
        client = (f"10.2.{n % CLIENTS // 250}.{n % CLIENTS + 2}", 20_000 + n)
        records.append((START + 2 * n * SPACING, datagram(client, (SERVER, 53))))
        records.append((START + (2 * n + 1) * SPACING, datagram((SERVER, 53), client, b"a")))
    for at, frame in ((0.1, datagram(QUIET_A, QUIET_B)), (0.2, datagram(QUIET_B, QUIET_A)),
                      (12_000.1, datagram(QUIET_A, QUIET_B)), (0.3, datagram(PAUSED_A, PAUSED_B)),
                      (300.3, datagram(PAUSED_A, PAUSED_B))):
        records.append((START + at, frame))
    records.sort(key=lambda record: record[0])
    path = tmp_path_factory.mktemp("idle") / "long.pcap"
    with open(path, "wb") as out:
        writer = PcapWriter(out)
        for ts, frame in records:
            writer.write(ts, frame)
    return path


def walk(path, limits: Limits):
    rows: list[dict] = []
    return extract(path, "idle", limits=limits, on_conversation=rows.append), rows


def pair_rows(rows, a, b) -> list[dict]:
    return [r for r in rows if {(r["src"], r["sport"]), (r["dst"], r["dport"])} == {a, b}]


def test_a_conversation_silent_past_the_idle_time_resumes_as_a_new_row(long_capture):
    result, rows = walk(long_capture, Limits())
    quiet = sorted(pair_rows(rows, QUIET_A, QUIET_B), key=lambda r: r["first_frame"])
    assert [(r["packets_fwd"] + r["packets_rev"]) for r in quiet] == [2, 1]
    assert quiet[1]["first_time"] == pytest.approx(START + 12_000.1)
    paused = pair_rows(rows, PAUSED_A, PAUSED_B)
    assert len(paused) == 1 and paused[0]["packets_fwd"] == 2
    assert result.conversations == 15_000 + 3


def test_the_flow_table_holds_only_the_recent_conversations(long_capture):
    """15,003 conversations through a table of 10,000: none is written out early for room.
    (Silence is dated from the checkpoint after a flow's last record, every 8,192 records:
    here 4,096 s, so a flow is held for up to two checkpoints, ~8,200 flows.)"""
    result, rows = walk(long_capture, Limits(max_flows=10_000))
    assert "flows" not in result.extra
    assert len(rows) == 15_003
    # with no silence rule the same table would have had to evict
    evicted, _ = walk(long_capture, Limits(max_flows=10_000, flow_idle_seconds=float("inf")))
    assert evicted.extra["flows"] > 0


@pytest.mark.parametrize("count", [2, 3])
def test_shards_expire_exactly_the_flows_one_walk_expires(long_capture, count):
    limits = Limits(max_flows=10_000)
    expected, rows = walk(long_capture, limits)
    result, merged_rows = merge(in_process(str(long_capture), "idle", limits, count, None), "idle", limits)
    assert result == expected
    assert list(merged_rows) == sorted(rows, key=lambda row: row["first_frame"])


def test_shards_fall_back_when_one_walk_would_have_held_more_than_its_limit(long_capture):
    limits = Limits(max_flows=3_000)  # each of 4 shards holds ~1/4 of what one walk holds
    shards = in_process(str(long_capture), "idle", limits, 4, None)
    assert all(max(out.shard.flow_peaks) <= 3_000 for out in shards)
    with pytest.raises(Fallback, match="at once"):
        merge(shards, "idle", limits)
