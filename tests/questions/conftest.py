"""Whole-pipeline helper for question tests: analyze a capture through the CLI (the shared
`cli` fixture) and read the JSON document back."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def analyze(cli):
    """analyze(path) -> (capture id, {ip: host document}, document)."""
    def run(path):
        code, out, _ = cli("analyze", path, "--json")
        assert code in (0, 3), out
        doc = json.loads(out)
        return doc["capture"]["id"], {a: h for h in doc["hosts"] for a in h["addresses"] or [h["key"]]}, doc
    return run
