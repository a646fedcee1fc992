"""Whole-capture fixtures for the signal tests."""

from __future__ import annotations

import json

import pytest
from support.cli import run_cli, sqlite_store

from tracepcap.present.cli import ExitCode


@pytest.fixture(scope="module")
def analyze_json(tmp_path_factory):
    """analyze_json(path) -> {ip: host document} from `tracepcap analyze --json` (one SQLite
    store per test module, so module-scoped fixtures can analyze once)."""
    data = tmp_path_factory.mktemp("data")

    def run(path):
        code, out, err = run_cli("analyze", path, "--json", db=sqlite_store(data), data_dir=data)
        assert code == ExitCode.OK, err
        return {a: h for h in json.loads(out)["hosts"] for a in h["addresses"] or [h["key"]]}
    return run
