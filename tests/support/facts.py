"""Fake facts for signal, finding and question tests, without a capture or a store."""

from __future__ import annotations

from tracepcap.extract.facts import FactKind
from tracepcap.scan.context import CaptureContext, Fact, Traffic


def fact(kind: FactKind, value: str, frame: int = 1, count: int = 1, source: str | None = None) -> Fact:
    """A fact of a catalogue kind, with the kind's grade, first and last seen in `frame`;
    its source defaults to the kind's wire name."""
    return Fact(kind.name, value, source or kind.name, kind.grade, frame, frame, count)


def context(facts: dict[str, list[Fact]], traffic: dict[str, Traffic] | None = None) -> CaptureContext:
    """A capture whose hosts are the addresses `facts` names."""
    return CaptureContext("cap", facts, traffic or {}, sorted(facts))
