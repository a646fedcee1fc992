"""Issue 28: traffic per device through the API (host listing: sort and filters), the JSON
export and both CSV shapes; packets checked against tshark's endpoint statistics of the same
shared capture."""

from __future__ import annotations

import csv
import io
import re
import subprocess

from tracepcap.adjudicate.registry import get_registry

from api_helpers import assert_error

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")


def tshark_endpoints(path) -> dict[str, tuple[int, int]]:
    """IPv4 address -> (Tx packets, Rx packets), as `tshark -z endpoints,ip` counts them."""
    out = subprocess.run(["tshark", "-r", str(path), "-q", "-z", "endpoints,ip"], check=True,
                         capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        cells = line.split()
        if len(cells) == 7 and re.fullmatch(r"\d+\.\d+\.\d+\.\d+", cells[0]):
            found[cells[0]] = (int(cells[3]), int(cells[5]))
    return found


def test_the_host_listing_carries_traffic_that_tshark_agrees_with(api, client, captures):
    cid = api.analyzed(client, captures / "http_demo.pcap")
    hosts = client.get(f"/captures/{cid}/hosts", params={"limit": 1000}).json()
    counted = tshark_endpoints(captures / "http_demo.pcap")
    assert len(counted) >= 4
    by_ip = {h["ip"]: h for h in hosts}
    for ip, (tx, rx) in counted.items():
        t = by_ip[ip]["traffic"]
        assert (t["packets_sent"], t["packets_received"]) == (tx, rx), ip
        assert ISO_UTC.match(t["first_seen"]) and t["first_seen"] <= t["last_seen"]
    server = by_ip["10.0.0.70"]["traffic"]
    assert "tcp/80" in server["ports_served"] and server["peers"] >= 1
    assert all(h["traffic"]["ports_used"] == [] for h in hosts)  # no handshake seen: nothing measured as opened
    one = client.get(f"/captures/{cid}/hosts/10.0.0.70").json()
    assert one["traffic"] == server


def test_hosts_sort_by_traffic_and_filter_by_packets_and_served_port(api, client, captures):
    cid = api.analyzed(client, captures / "http_demo.pcap")
    url = f"/captures/{cid}/hosts"
    by_bytes = client.get(url, params={"sort": "bytes"}).json()
    totals = [h["traffic"]["bytes_sent"] + h["traffic"]["bytes_received"] for h in by_bytes]
    assert totals == sorted(totals, reverse=True) and totals[0] > totals[-1]
    reverse = client.get(url, params={"sort": "bytes", "desc": True}).json()
    assert [h["traffic"]["bytes_sent"] + h["traffic"]["bytes_received"] for h in reverse] == sorted(totals)
    first = [h["traffic"]["first_seen"] for h in client.get(url, params={"sort": "first_seen"}).json()]
    assert first == sorted(first)
    packets = {h["key"]: h["traffic"]["packets_sent"] + h["traffic"]["packets_received"] for h in by_bytes}
    threshold = sorted(packets.values())[len(packets) // 2]
    response = client.get(url, params={"min_packets": threshold})
    assert {h["key"] for h in response.json()} == {k for k, n in packets.items() if n >= threshold}
    assert int(response.headers["X-Total-Count"]) == len(response.json()) < len(packets)
    servers = client.get(url, params={"port": "80"}).json()
    assert servers and all("tcp/80" in h["traffic"]["ports_served"] for h in servers)
    assert {h["key"] for h in servers} == {h["key"] for h in by_bytes if "tcp/80" in h["traffic"]["ports_served"]}
    assert [h["key"] for h in client.get(url, params={"port": "tcp/80"}).json()] == [h["key"] for h in servers]
    assert client.get(url, params={"port": "udp/80"}).json() == []
    for bad in ("http", "65536", "tcp/\u00b2", "icmp/8"):
        assert_error(client.get(url, params={"port": bad}), 422, None, "port")
    assert_error(client.get(url, params={"sort": "volume"}), 422)
    assert_error(client.get(url, params={"min_packets": -1}), 422)


def test_exports_carry_traffic_json_wide_and_long_csv(api, client, captures):
    cid = api.analyzed(client, captures / "http_demo.pcap")
    hosts = client.get(f"/captures/{cid}/hosts", params={"limit": 1000}).json()
    document = client.get(f"/captures/{cid}/export.json").json()
    assert {h["key"]: h["traffic"] for h in document["hosts"]} == {h["key"]: h["traffic"] for h in hosts}
    questions = [a.question for a in get_registry()]
    wide = client.get(f"/captures/{cid}/export.csv")
    assert wide.status_code == 200 and wide.headers["content-type"].startswith("text/csv")
    reader = csv.DictReader(io.StringIO(wide.text))
    rows = list(reader)
    assert reader.fieldnames[:8] == ["capture_id", "key", "ip", "addresses", "macs", "vendors", "names", "locality"]
    assert reader.fieldnames[8:17] == ["packets_sent", "packets_received", "bytes_sent", "bytes_received",
                                       "first_seen", "last_seen", "peers", "ports_served", "ports_used"]
    assert reader.fieldnames[17:] == [f"{q}{s}" for q in questions for s in ("", "_confidence", "_basis")]
    assert [r["key"] for r in rows] == [h["key"] for h in hosts]  # one row per device, inventory order
    for row, host in zip(rows, hosts):
        t = host["traffic"]
        assert (int(row["packets_sent"]), int(row["bytes_received"]), row["first_seen"], int(row["peers"])) == (
            t["packets_sent"], t["bytes_received"], t["first_seen"], t["peers"])
        assert row["ports_served"].split() == t["ports_served"]
        for q in questions:
            v = host["verdicts"][q]
            assert row[f"{q}_basis"] == v["basis"] and int(row[f"{q}_confidence"]) == v["confidence"]
            assert row[q] == ("contested" if v["contested"] else v["primary_label"] or "")
    long = list(csv.DictReader(io.StringIO(client.get(f"/captures/{cid}/export.csv",
                                                      params={"format": "long"}).text)))
    assert len(long) == len(hosts) * len(questions) and "candidates" in long[0]
    assert_error(client.get(f"/captures/{cid}/export.csv", params={"format": "tall"}), 422)
    assert client.get(f"/captures/{cid}/export.csv", params={"format": "long"}).headers["content-disposition"].endswith(
        f'"tracepcap-{cid}-long.csv"')
