"""`tracepcap analyze`'s default output (issue 28, the terminal): a line per device, local
devices first, remote ones grouped by the MAC they came through; `--long` keeps the reasons."""

from __future__ import annotations

import json

import pytest

from tracepcap.present.cli import ExitCode
from tracepcap.present.table import LEGEND, answer_cell, table


def device_rows(out: str) -> tuple[list[str], list[list[str]]]:
    """(group headings, each device's lines) of a default table: a heading ends with ":" and
    starts the line; a device's first line is indented 2, its answers' line (if any) 6."""
    lines = out.splitlines()
    body = lines[lines.index("") + 2:]  # the blank line, then the column header
    headings, devices = [], []
    for line in body:
        if line.startswith("      ") and devices:
            devices[-1].append(line)
        elif line.startswith("  ") and not line.startswith("   "):
            devices.append([line])
        elif line.endswith(":"):
            headings.append(line)
    return headings, devices


@pytest.mark.parametrize("columns", [120, 80])
def test_the_demo_is_a_line_or_two_per_device_within_the_width(cli, captures, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = cli("analyze", captures / "demo_all_rules.pcap")
    assert code == ExitCode.OK
    doc = json.loads(cli("analyze", captures / "demo_all_rules.pcap", "--json")[1])
    headings, devices = device_rows(out)
    assert len(devices) == len(doc["hosts"]) == 49
    assert all(len(lines) <= 2 for lines in devices)
    assert all(len(line) <= columns for lines in devices for line in lines)
    if columns == 120:  # wide enough for one line each
        assert all(len(lines) == 1 for lines in devices)
    # local first (on-link, then local-routed), then the remote groups, largest first
    assert [h.split(" (")[0] for h in headings[:2]] == ["on-link", "local-routed"]
    remote = headings[2:]
    assert remote and all(h.startswith("remote, ") for h in remote)
    sizes = [int(h.rsplit("(", 1)[1].rstrip("):")) for h in remote]
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == 26
    assert "remote, via 10:13:31:f1:39:76 (10):" in headings
    # every device is there by its IP (or its key when it has none), each once
    firsts = [lines[0].split()[0] for lines in devices]
    assert sorted(firsts) == sorted(h["ip"] or h["key"] for h in doc["hosts"])
    assert out.splitlines()[-1].startswith(LEGEND[:20])


def test_a_row_holds_the_mac_vendor_and_every_answer_with_its_confidence(cli, captures, monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    code, out, _ = cli("analyze", captures / "demo_all_rules.pcap")
    header = out.splitlines()[out.splitlines().index("") + 1]
    assert header.split() == ["DEVICE", "MAC", "VENDOR", "host-identity", "hostname", "os-family", "node-role",
                              "vendor-model"]
    row = next(line for line in out.splitlines() if line.startswith("  192.168.1.43 "))
    assert "04:92:26:5c:97:35" in row and "ASUSTek" in row and "Windows 100" in row and "DESKTOP-RB5T12G 75" in row
    # the gateway's row shows its own MAC and vendor alone, not the spoofer's (frames 390, 708),
    # whose MAC its address was also sent from: the spoofer is a device of its own (issue 24)
    gateway = next(line for line in out.splitlines() if line.startswith("  192.168.1.1 "))
    assert "10:13:31:f1:39:76 " in gateway and "+1" not in gateway.split()[2] and "C. Itoh" not in gateway
    spoofer = next(line for line in out.splitlines() if line.startswith("  mac-00-80-8f-9a-ae-bd "))
    assert "00:80:8f:9a:ae:bd" in spoofer and "C. Itoh" in spoofer
    # the demo has no contested answer since remote servers stopped voting Router; test_answer_cells
    # shows the ⚠ cell
    assert "confidence held" not in out and "(+50)" not in out  # reasons are --long's


def verdict(label, confidence, *, basis="MACHINE", contested=False, candidates=()):
    return {"primary_label": label, "confidence": confidence, "basis": basis, "contested": contested,
            "stale_since": None, "candidates": [{"label": c, "dismissed": None} for c in candidates]}


def test_answer_cells():
    assert answer_cell(verdict("Unknown", 0)) == "-"
    assert answer_cell(None) == "-"
    assert answer_cell(verdict("Router", 75)) == "Router\t75"
    assert answer_cell(verdict("Printer", 100, basis="HUMAN")) == "Printer*\t100"
    assert answer_cell(verdict("Web Server", 50, contested=True,
                               candidates=("Web Server", "Database Server", "NAS"))) == "⚠ Web Server / Database Server"


def host(ip, locality, mac, answers):
    return {"key": ip, "ip": ip, "addresses": [ip], "macs": [mac] if mac else [], "locality": locality,
            "facts": [{"kind": "OUI_VENDOR", "value": "Some Very Long Vendor Name, Incorporated"}],
            "verdicts": {q: verdict(label, 80) for q, label in answers.items()}}


HEAD = {"capture": {"id": "c1", "name": "x.pcap", "format": "pcap", "packets": 1, "status": "done"},
        "manifest": [], "conversations": 0, "findings": [], "notice_counts": {}}


def test_a_narrow_terminal_cuts_labels_but_keeps_confidences_then_wraps_answers():
    questions = ["q-one", "q-two", "q-three", "q-four", "q-five"]
    answers = {q: "An Extraordinarily Long Answer Label" for q in questions}
    hosts = [host("10.0.0.1", "local-routed", "02:00:00:00:00:01", answers),
             host("192.168.1.2", "on-link", "00:11:22:33:44:55", answers),
             host("8.8.8.8", "remote", None, answers)]
    wide = list(table(HEAD, hosts, 3, questions, 150))
    rows = [line for line in wide if line.startswith("  ") and line[2].isdigit()]
    assert [r.split()[0] for r in rows] == ["192.168.1.2", "10.0.0.1", "8.8.8.8"]  # on-link, routed, remote
    assert all(len(r) <= 150 and r.count("… 80") == 5 for r in rows)
    assert "remote, no MAC seen (1):" in wide
    narrow = list(table(HEAD, hosts, 3, questions, 60))
    first = narrow.index("on-link (1):")
    assert narrow[first + 1].startswith("  192.168.1.2 ") and narrow[first + 2].startswith("      An Extra")
    assert all(len(line) <= 60 for line in narrow[narrow.index(""):])


def test_long_keeps_the_blocks_with_reasons_and_json_is_unchanged_by_either(cli, captures):
    code, long, _ = cli("analyze", captures / "dns_demo.pcap", "--long")
    assert code == ExitCode.OK and "    host-identity: " in long and "      - " in long
    first = cli("analyze", captures / "dns_demo.pcap", "--json")[1]
    assert cli("analyze", captures / "dns_demo.pcap", "--json", "--long")[1] == first
    json.loads(first)
