"""Whole-capture fixtures for the signal tests."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tracepcap.present.cli import ExitCode, main


@pytest.fixture(scope="module")
def analyze_json(tmp_path_factory):
    """analyze_json(path) -> {ip: host document} from `tracepcap analyze --json` (one SQLite
    store per test module)."""
    data = tmp_path_factory.mktemp("data")

    def run(path):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main(["analyze", str(path), "--json", "--db", f"sqlite:///{data / 'db.sqlite3'}"])
        assert code == ExitCode.OK
        return {h["ip"]: h for h in json.loads(out.getvalue())["hosts"]}
    return run
