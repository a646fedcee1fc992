"""A question defined only in the test suite travels the whole seam: discovered, answered,
overridable, evidence-able, dismissable and audited through the CLI, with no line changed
outside tests/."""

from __future__ import annotations

import json
import logging

import pytest

from tracepcap.adjudicate.registry import get_registry
from tracepcap.errors import DuplicateQuestion, NotFound
from tracepcap.present.cli import ExitCode, build_parser, cmd_explain


def test_probe_question_end_to_end(plugins, cli, captures):
    plugins(parity="probe_parity")
    questions = [a.question for a in get_registry()]
    assert questions[0] == "host-identity" and questions[-1] == "probe-parity"  # by position
    code, out, _ = cli("analyze", captures / "dns_demo.pcap", "--json")
    assert code == ExitCode.OK
    doc = json.loads(out)
    cid = doc["capture"]["id"]
    verdicts = {h["ip"]: h["verdicts"]["probe-parity"] for h in doc["hosts"]}
    assert verdicts["192.168.1.21"]["primary_label"] == "odd"
    assert verdicts["192.168.1.20"]["candidates"][0]["reasons"] == ["address ends in 20 (+50)"]

    code, out, _ = cli("override", cid[:8], "probe-parity", "192.168.1.21", "even",
                       "--rationale", "counting from zero", "--json")
    assert code == ExitCode.OK
    assert json.loads(out)["primary_label"] == "even" and json.loads(out)["basis"] == "HUMAN"
    code, out, _ = cli("evidence", "add", cid, "probe-parity", "192.168.1.20", "odd",
                       "--weight", "30", "--reason", "the spreadsheet says odd", "--json")
    verdict = json.loads(out)
    assert code == ExitCode.OK and verdict["candidates"][1]["reasons"] == [
        "[analyst-provided by system] the spreadsheet says odd (+30)"]
    code, out, _ = cli("dismiss", cid, "probe-parity", "192.168.1.22", "EVEN", "--reason", "no", "--json")
    assert code == ExitCode.OK and json.loads(out)["dismissed"] == ["even"]
    code, out, _ = cli("override", "--clear", cid, "probe-parity", "192.168.1.21", "--json")
    assert json.loads(out)["primary_label"] == "odd"

    code, out, _ = cli("explain", cid, "probe-parity", "192.168.1.21", "--json")
    trail = json.loads(out)["trail"]
    assert [(e["action"], e["actor"]) for e in trail] == [("override.set", "system"), ("override.cleared", "system")]
    code, out, _ = cli("explain", cid, "probe-parity", "192.168.1.21")
    assert "override.set" in out and "override.cleared" in out and "address ends in 21 (+50)" in out


def test_two_modules_claiming_one_question_stop_start_up(plugins, cli, captures):
    plugins(parity="probe_parity", twin="probe_twin")
    with pytest.raises(DuplicateQuestion, match="question 'probe-parity' is claimed by probe_parity and probe_twin"):
        get_registry()
    code, out, err = cli("analyze", captures / "dns_demo.pcap")
    assert code == ExitCode.FAILED and out == ""
    assert "claimed by probe_parity and probe_twin" in err


def test_verdict_without_reasons_is_refused_and_costs_no_other_question(plugins, cli, captures, caplog, settings):
    plugins(mute="probe_mute")
    with caplog.at_level(logging.ERROR):
        code, out, _ = cli("analyze", captures / "dns_demo.pcap", "--json")
    doc = json.loads(out)
    assert code == ExitCode.PARTIAL and doc["capture"]["status"] == "partial"
    row = next(m for m in doc["manifest"] if m["extractor"] == "adjudicate:probe-mute")
    assert row["status"] == "failed" and "has no reasons; refusing to persist it" in row["error"]
    assert all("probe-mute" not in h["verdicts"] for h in doc["hosts"])
    assert all(h["verdicts"]["host-identity"]["candidates"] for h in doc["hosts"])
    assert any("probe-mute" in r.getMessage() for r in caplog.records)

    # explaining the verdict that was never stored: not found (the capture itself is fine)
    cid = doc["capture"]["id"]
    code, out, err = cli("explain", cid, "probe-mute", "192.168.1.21")
    assert code == ExitCode.UNUSABLE_INPUT and err == (
        f"tracepcap: no probe-mute verdict for mac-52-54-00-bb-00-21 in capture {cid} yet (capture status: partial)\n")
    args = build_parser().parse_args(["explain", cid, "probe-mute", "192.168.1.21", "--db", settings.database_url])
    with pytest.raises(NotFound):
        cmd_explain(args)


def test_an_entry_point_added_to_an_installed_distribution_is_found(plugins, tmp_path):
    """The entry points are read once per state of the installed metadata (registry.py): a
    distribution whose entry_points.txt changes is read again, a cached list is not trusted."""
    plugins(parity="probe_parity")
    assert "probe-parity" in get_registry() and "probe-mute" not in get_registry()
    points = tmp_path / "plugins" / "tracepcap_probe-0.1.dist-info" / "entry_points.txt"
    points.write_text(points.read_text() + "mute = probe_mute\n")
    get_registry.cache_clear()
    assert "probe-parity" in get_registry() and "probe-mute" in get_registry()
