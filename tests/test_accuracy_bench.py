"""benchmarks/accuracy_bench.py's scoring on a 20-device corpus: the shape of what it prints
and that its truth covers exactly the devices in the capture. Accuracy itself is the
benchmark's figure (docs/BENCHMARKS.md), not a threshold here."""

from __future__ import annotations

import importlib.util
import ipaddress
import sys
from pathlib import Path

import pytest

from tracepcap.testing.accuracy_corpus import SUBNET_MASK, Truth, build

SEGMENT = ipaddress.ip_network(f"10.20.0.0/{SUBNET_MASK}")


@pytest.fixture(scope="module")
def bench():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "accuracy_bench.py"
    spec = importlib.util.spec_from_file_location("accuracy_bench", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus(bench, tmp_path_factory):
    work = tmp_path_factory.mktemp("accuracy")
    truth = build(work / "corpus.pcap", hosts=20, seed=7)
    return truth, bench.analyze(work / "corpus.pcap", work)


def test_the_corpus_is_deterministic(tmp_path):
    first = build(tmp_path / "a.pcap", hosts=20, seed=7)
    second = build(tmp_path / "b.pcap", hosts=20, seed=7)
    assert first == second
    assert (tmp_path / "a.pcap").read_bytes() == (tmp_path / "b.pcap").read_bytes()
    assert build(tmp_path / "c.pcap", hosts=20, seed=8) != first


def test_truth_covers_exactly_the_devices_on_the_segment(corpus):
    truth, document = corpus
    on_segment = {h["ip"] for h in document["hosts"]
                  if ":" not in h["ip"] and ipaddress.ip_address(h["ip"]) in SEGMENT}
    assert set(truth) == on_segment
    assert len(truth) == 22  # 20 devices, the router and the admin box


def test_every_truth_host_is_scored_on_each_question_it_labels(bench, corpus):
    truth, document = corpus
    rows = bench.score_capture(document, truth)
    for question in bench.QUESTIONS:
        labelled = [t for t in truth.values() if bench.expected(question, t) is not None]
        assert len([r for r in rows if r.question == question]) == len(labelled)
    assert {r.outcome for r in rows} <= set(bench.OUTCOMES)


def test_report_prints_counts_matrices_and_calibration(bench, corpus):
    truth, document = corpus
    text = bench.report("corpus", bench.score_capture(document, truth))
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("question") and "scored" in line)
    assert header.split() == ["question", "scored", *bench.OUTCOMES, "conf.", "wrong", "right+parent"]
    for question in bench.QUESTIONS:
        row = next(line for line in lines if line.startswith(question + " "))
        assert int(row.split()[1]) > 0
    assert "confusion matrix, host-identity" in text and "confusion matrix, os-family" in text
    for device_type in {t.device_type for t in truth.values()}:
        assert any(line.startswith(device_type + " ") for line in lines), device_type
    assert "0-39" in text and "40-59" in text and "60-79" in text and "80-100" in text


def verdict(label, confidence=70, contested=False, parent_of=()):
    return {"primary_label": label, "confidence": confidence, "contested": contested,
            "parent_of": list(parent_of)}


def test_scoring_rules(bench):
    score = bench.score
    assert score("os-family", "iOS", verdict("Apple", parent_of=["iOS", "macOS"])).outcome == "parent"
    assert score("os-family", "iOS", verdict("macOS", 90)).outcome == "wrong"
    assert score("os-family", "iOS", verdict("iOS", 40, contested=True)).outcome == "contested"
    assert score("os-family", "iOS", None).outcome == "unknown"
    contested = {**verdict(None, 20, contested=True), "candidates": [{"label": "Windows"}, {"label": "iOS"}]}
    assert (score("os-family", "iOS", contested).answer, score("os-family", "iOS", contested).outcome) == (
        "Windows", "contested")
    assert score("host-identity", "Server", verdict("File Server")).outcome == "right"
    assert score("host-identity", "File Server", verdict("Server")).outcome == "parent"
    assert score("hostname", "Annas-iPhone", verdict("annas-iphone.local")).outcome == "right"
    assert score("hostname", "Unknown", verdict("Unknown", 0)).outcome == "right"
    assert score("hostname", "Unknown", verdict("printer-7")).outcome == "wrong"


def test_confidently_wrong_counts_only_wrong_answers_at_80_or_more(bench):
    rows = [bench.score("os-family", "Linux", verdict("Windows", 85)),
            bench.score("os-family", "Linux", verdict("Windows", 79)),
            bench.score("os-family", "Linux", verdict("Linux", 95))]
    row = next(line for line in bench.report("t", rows, matrices=False).splitlines()
               if line.startswith("os-family "))
    assert row.split()[-3:] == ["1", "33.3", "%"]  # confidently wrong, then right+parent
    assert bench.expected("os-family", Truth("Access Point", None, None)) is None
