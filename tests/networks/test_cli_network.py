"""`tracepcap network ...`, `analyze --network` and `reaffirm` on synthetic office weeks."""

from __future__ import annotations

import json
from dataclasses import replace

from support.office_weeks import BASE, Week, write_week

KIOSK = "10.9.0.10"


def test_network_commands(cli, tmp_path):
    code, out, _ = cli("network", "create", "hq")
    assert code == 0 and "hq" in out
    moved = [replace(d, mac="00:11:22:00:00:99") if d.ip == KIOSK else d for d in BASE]
    w0 = write_week(tmp_path / "w0.pcap", 0, Week(BASE))
    w1 = write_week(tmp_path / "w1.pcap", 1, Week(moved))
    code, out, err = cli("analyze", w0, "--network", "hq", "--json")
    assert code == 0, err
    first = json.loads(out)["capture"]["id"]
    code, _, err = cli("override", first, "host-identity", KIOSK, "Kiosk", "--rationale", "seen on site")
    assert code == 0, err
    code, out, err = cli("analyze", w1, "--network", "hq", "--json")
    second = json.loads(out)["capture"]["id"]
    code, out, _ = cli("network", "show", "hq")
    assert code == 0 and "2 captures" in out
    assert "host-identity: Kiosk  [stale" in out and "00:11:22:00:00:99 new (frame" in out
    code, out, _ = cli("network", "changes", "hq", "--json")
    events = json.loads(out)
    assert any(e["kind"] == "address-moved" and e["entity_key"] == KIOSK and e["capture_id"] == second for e in events)
    code, out, _ = cli("network", "changes", "hq")
    assert "w0.pcap -> w1.pcap" in out and "[high] address-moved" in out
    code, out, err = cli("reaffirm", second, "host-identity", KIOSK)
    assert code == 0, err
    code, out, _ = cli("network", "show", "hq", "--json")
    # the kiosk's new MAC is a new device holding its address: the carried answer is there
    row = next(r for r in json.loads(out)["inventory"]["rows"] if r["entity_key"] == "mac-00-11-22-00-00-99")
    assert row["addresses"] == [KIOSK] and row["last_seen_id"] == second
    assert row["answers"]["host-identity"]["state"] == "carried"
    assert cli("network", "changes", "nowhere")[0] == 2
    code, out, _ = cli("network", "list")
    assert "hq  2 captures" in out


def test_network_changes_opens_with_its_summary_and_folds_the_low_ones(cli, tmp_path):
    """Issue 27: counts by severity, per capture and by kind first, then the high and medium
    changes; the low ones are counted, and listed with --all."""
    from support.office_weeks import series_week
    assert cli("network", "create", "office")[0] == 0
    for n in range(3):
        code, _, err = cli("analyze", write_week(tmp_path / f"s{n}.pcap", n, series_week(n)), "--network", "office")
        assert code == 0, err
    code, out, _ = cli("network", "changes", "office", "--json")
    events = json.loads(out)
    low = [e for e in events if e["severity"] == "low"]
    top = [e for e in events if e["severity"] != "low"]
    assert low and top
    code, out, _ = cli("network", "changes", "office")
    lines = out.splitlines()
    high, medium = (sum(e["severity"] == s for e in events) for s in ("high", "medium"))
    assert lines[0] == f"{high} high, {medium} medium, {len(low)} low (folded) over 2 captures after the first"
    assert lines[1].startswith("  s1.pcap: ") and lines[3].startswith("by kind: ")
    assert "new-tunnel 1/0/0" in lines[3] or "new-tunnel 1/" in lines[3]
    assert sum(line.startswith("  [") for line in lines) == len(top)
    assert "[low]" not in out and f"{len(low)} low changes folded" in out
    code, out, _ = cli("network", "changes", "office", "--all")
    assert sum(line.startswith("  [") for line in out.splitlines()) == len(events)
