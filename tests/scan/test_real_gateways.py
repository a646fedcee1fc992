"""Issue 24, done-when: on every capture whose labels name its gateway, that address is a
device answering Router (or Firewall) and node-role Default Gateway, and no other host is a
Default Gateway; on every shared capture no remote host is a Router or a Default Gateway.

The labels are read from the publishers' `real/LABELS.json` and the analysts'
`LABELS.md`, never written here. The mta captures are real malware traffic: they are only
unzipped (with their published password) into a temporary folder and read."""

from __future__ import annotations

import contextlib
import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from tracepcap.present.cli import main

GATEWAY = "Default Gateway"
ROUTING = ("Router", "Firewall")
CONFIDENT = 80  # benchmarks/real_bench.py: a wrong answer at this confidence or above is confidently wrong
ZIP_PASSWORD = b"infected"  # as published by malware-traffic-analysis.net
CAPTURES = Path(__file__).resolve().parents[3] / "shared" / "captures"  # as tests/conftest.py
REAL = CAPTURES / "real"


def named_gateways() -> list[tuple[str, str]]:
    """(capture path relative to the shared captures, gateway address) of every label naming one."""
    out = []
    labels = json.loads((REAL / "LABELS.json").read_text())
    for capture, hosts in labels.items():
        if capture.startswith("_") or "*" in capture:
            continue
        for host, answers in hosts.items():
            if GATEWAY in answers.get("node-role", ()):
                out.append(("real/" + capture, host))
    section = None
    for line in (CAPTURES / "LABELS.md").read_text().splitlines():
        if line.startswith("## "):
            section = line[3:].split()[0]
        elif line.startswith("|") and section and "role " + GATEWAY in line.split("|")[2]:
            address = re.search(r"\b\d{1,3}(?:\.\d{1,3}){3}\b", line.split("|")[1])
            if address:
                out.append((section, address.group()))
    return out


def analyze(path: Path, work: Path) -> dict:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            member = next(m for m in archive.namelist() if m.endswith((".pcap", ".pcapng")))
            path = Path(archive.extract(member, work / "unzipped", pwd=ZIP_PASSWORD))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{work / 'db.sqlite3'}"])
    assert code in (0, 3), f"analyze {path} exited {code}"
    return json.loads(out.getvalue())


def label(host: dict, question: str) -> str | None:
    return host["verdicts"][question]["primary_label"]


GATEWAYS = named_gateways()


def test_the_labels_name_gateways():
    assert len(GATEWAYS) >= 3 and any(c.startswith("real/mta/") for c, _ in GATEWAYS)


@pytest.mark.parametrize(("capture", "gateway"), GATEWAYS, ids=[c.rsplit("/", 1)[-1] for c, _ in GATEWAYS])
def test_the_labelled_gateway_is_the_one_default_gateway(capture, gateway, tmp_path):
    doc = analyze(CAPTURES / capture, tmp_path)
    row = next((h for h in doc["hosts"] if gateway in h["addresses"]), None)
    assert row is not None, f"{gateway} is not in the inventory of {capture}"
    assert row["key"].startswith("mac-"), f"{gateway} is no device: {row['locality_reason']}"
    assert label(row, "host-identity") in ROUTING
    assert label(row, "node-role") == GATEWAY
    others = [h for h in doc["hosts"] if label(h, "node-role") == GATEWAY and h is not row]
    # an owner the bytes did not decide (several zero-hop senders on one MAC: LABELS.md's
    # synthetic segment) may answer anything its reasons admit, never with confidence
    undecided = [h for h in others if "nothing in the capture decides" in h["locality_reason"]
                 and h["verdicts"]["node-role"]["confidence"] < CONFIDENT]
    assert [h["key"] for h in others if h not in undecided] == []


SHARED = sorted(p.name for p in CAPTURES.iterdir() if p.suffix in (".pcap", ".pcapng"))


@pytest.mark.parametrize("capture", SHARED)
def test_no_remote_host_is_a_router_or_a_gateway(capture, tmp_path):
    doc = analyze(CAPTURES / capture, tmp_path)
    for host in doc["hosts"]:
        if host["locality"] == "remote":
            assert label(host, "node-role") != GATEWAY, host["key"]
            assert label(host, "host-identity") not in ROUTING, host["key"]
