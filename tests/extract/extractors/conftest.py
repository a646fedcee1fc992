"""Run extractors through the real pipeline on a real capture or a synthetic scenario, and
read the facts back as plain tuples."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracepcap.extract.pipeline import ExtractResult, extract
from tracepcap.limits import Limits


@pytest.fixture
def run(tmp_path):
    """run(capture path or Scenario, *extractor classes, limits=...) -> ExtractResult."""
    def run_(source, *classes, limits: Limits = Limits()) -> ExtractResult:
        path = source if isinstance(source, Path) else source.write_pcap(tmp_path / "s.pcap")
        return extract(path, "cap", classes=classes, limits=limits)
    return run_


@pytest.fixture
def rows():
    """rows(result, kind=None) -> {(entity, kind, value, source, first frame, last frame,
    count)} for every fact, or those of one kind."""
    def rows_(result: ExtractResult, kind: str | None = None) -> set[tuple]:
        return {(o.entity, o.kind, o.value, o.source, o.witness.first_frame,
                 o.witness.last_frame, o.witness.count)
                for o in result.observations if kind is None or o.kind == kind}
    return rows_


@pytest.fixture
def manifest():
    """manifest(result, extractor name) -> that extractor's manifest row."""
    def manifest_(result: ExtractResult, name: str):
        return next(row for row in result.manifest if row.extractor == name)
    return manifest_
