"""The publishers' labels of the real IoT captures (../shared/captures/real/LABELS.json):
every labelled IoT device is called "IoT Device" or one of its classes, never a
Workstation, Web Server, Router or Network device, and never given Windows (issue 25).
Scored on the first setup capture of each labelled device and on the other IoT captures,
read from LABELS.json, so a new labelled capture is checked without a new test."""

from __future__ import annotations

import json

import pytest
from support.cli import run_cli, sqlite_store

from tracepcap.adjudicate.questions.host_identity import ADJUDICATOR as HOST_IDENTITY
from tracepcap.present.cli import ExitCode

IOT = "IoT Device"
NEVER = {"Workstation", "Web Server", "Router", "Network device", "Server"}


def iot_cases(real):
    labels = json.loads((real / "LABELS.json").read_text())
    for pattern, hosts in labels.items():
        if pattern.startswith("_") or pattern.endswith(".zip"):
            continue
        files = sorted(real.glob(pattern))[:1] if "*" in pattern else [real / pattern]
        for path in files:
            for host, questions in hosts.items():
                if IOT in questions.get("host-identity", []):
                    yield path, host, tuple(questions["host-identity"])


def find(document, host):
    rows = document["hosts"]
    if len(host) == 17 and host.count(":") == 5:
        return next((h for h in rows if h["key"] == "mac-" + host.replace(":", "-")), None) or \
            next((h for h in rows if host in (h.get("macs") or [])), None)
    return next((h for h in rows if host in (h.get("addresses") or [])), None)


def test_real_iot_devices_are_iot_devices(captures, tmp_path):
    real = captures / "real"
    cases = list(iot_cases(real))
    assert len(cases) >= 10, "LABELS.json names the IoT Sentinel and Campos devices"
    documents = {}
    right, answers = 0, []
    for path, host, acceptable in cases:
        if path not in documents:
            data = tmp_path / path.parent.name
            data.mkdir(exist_ok=True)
            code, out, err = run_cli("analyze", path, "--json", db=sqlite_store(data), data_dir=data)
            assert code in (ExitCode.OK, 3), err
            documents[path] = json.loads(out)
        row = find(documents[path], host)
        assert row is not None, f"{path.name}: {host} is not in the inventory"
        identity = row["verdicts"]["host-identity"]
        label = identity.get("primary_label") or "contested"
        lineage = (label, *HOST_IDENTITY.lineage(label)) if label != "contested" else ()
        os_label = row["verdicts"]["os-family"].get("primary_label")
        answers.append((path.parent.name, host, label, identity.get("confidence"), os_label))
        assert label not in NEVER, answers[-1]
        assert os_label != "Windows", answers[-1]
        if IOT in lineage and (acceptable[0] in lineage or label == IOT):
            right += 1
    assert right >= 0.9 * len(cases), answers
    # a camera is named a camera where its labels say so
    cameras = [a for a, c in zip(answers, cases) if c[2][0] == "IP Camera"]
    assert cameras and all(a[2] == "IP Camera" for a in cameras), cameras
