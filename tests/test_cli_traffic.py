"""Issue 28: `tracepcap analyze --json` gives each host a "traffic" object; on ftp.pcap its
numbers agree with tshark's endpoint and conversation statistics of the same capture."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime

import pytest

from tracepcap.present.cli import ExitCode


def tshark_endpoints(path) -> dict[str, tuple[int, int]]:
    """IPv4 address -> (Tx packets, Rx packets), as `tshark -z endpoints,ip` counts them."""
    out = subprocess.run(["tshark", "-r", str(path), "-q", "-z", "endpoints,ip"], check=True,
                         capture_output=True, text=True).stdout
    return {cells[0]: (int(cells[3]), int(cells[5])) for line in out.splitlines()
            if len(cells := line.split()) == 7 and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", cells[0])}


def tshark_times(path) -> dict[str, tuple[float, float]]:
    """IPv4 address -> (first, last) packet time from the frames tshark lists."""
    out = subprocess.run(["tshark", "-r", str(path), "-T", "fields", "-e", "frame.time_epoch", "-e", "ip.src",
                          "-e", "ip.dst", "-Y", "ip"], check=True, capture_output=True, text=True).stdout
    times: dict[str, tuple[float, float]] = {}
    for line in out.splitlines():
        ts, *addresses = line.split("\t")
        for a in addresses:
            first, last = times.get(a, (float(ts), float(ts)))
            times[a] = (min(first, float(ts)), max(last, float(ts)))
    return times


def test_json_hosts_carry_traffic_that_tshark_agrees_with(cli, captures):
    code, out, _ = cli("analyze", captures / "ftp.pcap", "--json")
    assert code == ExitCode.OK
    # addresses only: the router's MAC is a device row of its own without one
    hosts = {h["ip"]: h for h in json.loads(out)["hosts"] if h["ip"]}
    counted = tshark_endpoints(captures / "ftp.pcap")
    times = tshark_times(captures / "ftp.pcap")
    assert set(counted) == set(hosts)
    for ip, (tx, rx) in counted.items():
        t = hosts[ip]["traffic"]
        assert (t["packets_sent"], t["packets_received"]) == (tx, rx), ip
        seen = [datetime.fromisoformat(t[k].replace("Z", "+00:00")) for k in ("first_seen", "last_seen")]
        assert all(s.tzinfo == UTC for s in seen)
        assert [s.timestamp() for s in seen] == pytest.approx(list(times[ip]), abs=1e-6), ip
    server = hosts["192.168.0.193"]["traffic"]
    assert server["ports_served"] == ["tcp/21", "tcp/7254"] and server["peers"] == 1
    assert "tcp/21" in hosts["192.168.0.114"]["traffic"]["ports_used"]
