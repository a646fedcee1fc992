"""The hot path runs compiled (setup.py, mypyc) where it was built so and its sources still match
the build, and as Python source with TRACEPCAP_PURE=1: both give byte-identical
`analyze --json` on the shared captures, and the extract, tunnel and tshark cross-check tests
pass on the pure path too (the default run of the suite covers whichever path the install
built)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tracepcap
from tracepcap import _pure

SRC = Path(tracepcap.__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parents[1]
# the hot path's modules (setup.py's HOT) and a sample of every kind of shared capture:
# classic pcap and pcapng, tunnels (GTP-U), many small flows
HOT = ("tracepcap.extract.reader", "tracepcap.extract.packet", "tracepcap.extract.flows",
       "tracepcap.extract.streams", "tracepcap.extract.decoders.ethernet", "tracepcap.extract.decoders.ipv4",
       "tracepcap.extract.decoders.ipv6", "tracepcap.extract.decoders.tcp",
       "tracepcap.extract.decoders.udp", "tracepcap.extract.pipeline", "tracepcap.extract.extractor",
       "tracepcap.extract.segments", "tracepcap.extract.extractors.dns", "tracepcap.extract.extractors.dns_answers",
       "tracepcap.extract.extractors.http", "tracepcap.extract.extractors.tls",
       "tracepcap.extract.extractors.services", "tracepcap.extract.extractors.ttl",
       "tracepcap.extract.extractors.link_paths", "tracepcap.extract.decoders.dns",
       "tracepcap.extract.decoders.http", "tracepcap.extract.decoders.tls")
CAPTURES = ("dns_demo.pcap", "demo_all_rules.pcap", "free5gc.pcap", "telegram_voice.pcapng",
            "monitor_large_week2_personal_laptop_vpn.pcap")
# run again on the pure path: decoding, reading, tunnels, flows, the walk and the compiled
# extractors (their tshark cross-checks too), and plug-in extractors subclassing the contract
PURE_AGAIN = ("extract/test_packet.py", "extract/test_reader.py", "extract/test_tunnels.py",
              "extract/test_tunnel_shapes.py", "extract/test_link_types.py",
              "extract/test_flow_idle.py", "extract/test_malformed_breadth.py", "extract/test_segments.py",
              "extract/extractors/test_pipeline_boundary.py", "extract/extractors/test_basic_facts.py",
              "extract/extractors/test_dns_facts.py", "extract/extractors/test_http_facts.py",
              "extract/extractors/test_http_parity.py", "extract/extractors/test_tls_facts.py",
              "extract/extractors/test_link_paths_facts.py", "extract/extractors/test_tunnel_facts.py",
              "extract/test_compiled_parity.py::test_the_path_asked_for_is_the_one_loaded")

PROBE = """
import importlib, json, sys
from tracepcap import _pure
from tracepcap.extract import packet
print(json.dumps({name: _pure.is_compiled(importlib.import_module(name)) for name in sys.argv[1:]}
                 | {"native": packet._NATIVE}))
"""


def _env(pure: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != _pure.ENV}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(SRC), env.get("PYTHONPATH"))))
    if pure:
        env[_pure.ENV] = "1"
    return env


def _built(name: str) -> bool:
    """True when a compiled module for `name` lies beside its .py file, from the same source."""
    source = SRC / (name.replace(".", "/") + ".py")
    return _pure.build_matches(SRC / "tracepcap") \
        and any(source.with_suffix(suffix).exists() for suffix in _pure.EXTENSIONS)


def _probe(pure: bool) -> dict[str, bool]:
    import json
    done = subprocess.run([sys.executable, "-c", PROBE, *HOT], env=_env(pure), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_pure_switch_loads_python_source():
    loaded = _probe(pure=True)
    assert loaded == {name: False for name in HOT} | {"native": False}


def test_the_compiled_modules_are_loaded_where_built():
    loaded = _probe(pure=False)
    assert loaded == {name: _built(name) for name in HOT} | {"native": _built("tracepcap.extract.packet")}


def _package(root: Path, sources: dict[str, bytes], recorded: dict[str, bytes]) -> Path:
    """A package tree at root/tracepcap with these sources and a manifest of these."""
    import hashlib
    import json
    package = root / "tracepcap"
    for name, text in sources.items():
        path = root / (name.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
    (package / _pure.MANIFEST).write_text(json.dumps(
        {name: hashlib.sha256(text).hexdigest() for name, text in recorded.items()}))
    return package


def test_a_build_is_trusted_only_while_its_sources_match(tmp_path):
    sources = {"tracepcap.extract.packet": b"X = 1\n", "tracepcap.extract.flows": b"Y = 2\n"}
    assert _pure.build_matches(_package(tmp_path / "same", sources, sources))
    edited = sources | {"tracepcap.extract.flows": b"Y = 3\n"}
    assert not _pure.build_matches(_package(tmp_path / "edited", edited, sources))
    gone = _package(tmp_path / "gone", sources, sources)
    (gone / "extract" / "packet.py").unlink()
    assert not _pure.build_matches(gone)
    assert not _pure.build_matches(_package(tmp_path / "empty", sources, {}))
    assert not _pure.build_matches(tmp_path / "nothing-built")


def test_the_path_asked_for_is_the_one_loaded():
    """Run by the pure-path session below too: there, nothing of the package is compiled."""
    for name in HOT:
        module = importlib.import_module(name)
        assert _pure.is_compiled(module) == (_built(name) and not _pure.forced()), name


def _analyze(capture: Path, directory: Path, pure: bool) -> bytes:
    directory.mkdir(parents=True)
    env = _env(pure) | {"TRACEPCAP_DATA_DIR": str(directory)}
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from tracepcap.present.cli import main; sys.exit(main())",
         "analyze", str(capture), "--json", "--workers", "1",
         "--db", f"sqlite:///{directory / 'tracepcap.sqlite3'}"],
        env=env, capture_output=True, timeout=300)
    assert done.returncode in (0, 3), done.stderr.decode(errors="replace")
    return done.stdout


@pytest.mark.parametrize("name", CAPTURES)
def test_json_is_byte_identical_on_both_paths(captures, tmp_path, name):
    compiled = _analyze(captures / name, tmp_path / "default", pure=False)
    pure = _analyze(captures / name, tmp_path / "pure", pure=True)
    assert b'"hosts"' in compiled
    assert compiled == pure


def test_extract_tests_pass_on_the_pure_path(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "--rootdir", str(TESTS.parent),
         *(str(TESTS / test) for test in PURE_AGAIN)],
        cwd=TESTS.parent, env=_env(pure=True), capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
