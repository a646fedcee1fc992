"""scripts/screenshots.py writes the reviewer's pictures at 1366x768 and checks what a picture
cannot prove (labels on every control, no sideways scrolling, a visible focus)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "screenshots.py"


def test_screenshots_are_written_and_pass_their_checks(tmp_path):
    run = subprocess.run([sys.executable, str(SCRIPT), "--out", str(tmp_path)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    written = {p.name: p for p in tmp_path.glob("*.png")}
    # every page of issue 15: findings banner, host page, packet view, audit, topology at 1,000
    # hosts, network, search, export
    assert {"captures.png", "capture.png", "capture-full.png", "host.png", "host-full.png", "host-forms.png",
            "host-focus.png", "frame.png", "frame-full.png", "findings.png", "findings-full.png", "spoofer.png",
            "audit.png", "accepted.png", "topology.png", "topology-open.png", "topology-full.png", "export.png",
            "networks.png", "network.png", "network-full.png", "search.png"} <= set(written)
    for name in ("capture.png", "host.png", "host-focus.png"):
        width, height = struct.unpack(">II", written[name].read_bytes()[16:24])  # the PNG's IHDR
        assert (width, height) == (1366, 768), name
