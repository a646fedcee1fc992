"""Whole-pipeline helpers for question tests: analyze a capture through the CLI and read
the JSON document back."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from tracepcap.present.cli import main


@pytest.fixture
def cli(tmp_path, monkeypatch):
    """cli(*args) -> (exit code, stdout) against one SQLite store per test."""
    monkeypatch.setenv("TRACEPCAP_DATA_DIR", str(tmp_path / "data"))
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"

    def run(*args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = main([*map(str, args), "--db", db])
        return code, out.getvalue()
    return run


@pytest.fixture
def analyze(cli):
    """analyze(path) -> (capture id, {ip: host document}, document)."""
    def run(path):
        code, out = cli("analyze", path, "--json")
        assert code in (0, 3), out
        doc = json.loads(out)
        return doc["capture"]["id"], {h["ip"]: h for h in doc["hosts"]}, doc
    return run
