"""dns_demo.pcap analyzed (`capture_id`), and plugin questions for the tests: a fake installed distribution on sys.path whose
entry points name modules in this folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracepcap.adjudicate.registry import get_registry
from tracepcap.analysis import analyze
from tracepcap.ingest import store_file

HERE = Path(__file__).parent


def install_plugin(tmp_path: Path, monkeypatch, **questions: str) -> None:
    dist = tmp_path / "plugins" / "tracepcap_probe-0.1.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: tracepcap-probe\nVersion: 0.1\n")
    lines = "\n".join(f"{name} = {module}" for name, module in questions.items())
    (dist / "entry_points.txt").write_text(f"[tracepcap.questions]\n{lines}\n")
    monkeypatch.syspath_prepend(str(dist.parent))
    monkeypatch.syspath_prepend(str(HERE))
    get_registry.cache_clear()


@pytest.fixture
def plugins(tmp_path, monkeypatch):
    yield lambda **questions: install_plugin(tmp_path, monkeypatch, **questions)
    get_registry.cache_clear()


@pytest.fixture
def capture_id(db, settings, captures):
    """dns_demo.pcap stored and analyzed; its capture id."""
    with db.session() as s:
        capture, _ = store_file(s, settings.capture_dir, captures / "dns_demo.pcap",
                                uploaded_by="system", max_bytes=1 << 30)
        cid = capture.id
    assert analyze(db, settings, cid) == "done"
    return cid
