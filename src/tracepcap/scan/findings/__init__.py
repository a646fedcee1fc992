"""Findings: contradictions Scan notices across facts, one module per kind, each a
`find(context) -> Iterator[Finding]`. Found by package scan like signals; a finding never
changes a vote, it is shown beside the verdicts with its witness frames."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..context import CaptureContext

SEVERITIES = ("low", "medium", "high")


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str  # kebab-case, e.g. "name-conflict"
    severity: str  # low | medium | high
    entities: tuple[str, ...]
    summary: str
    frames: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.severity not in SEVERITIES:
            raise ValueError(f"finding severity must be one of {SEVERITIES} (got {self.severity!r})")


Finder = Callable[[CaptureContext], Iterator[Finding]]


def discover() -> tuple[Finder, ...]:
    found = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if not callable(getattr(module, "find", None)):
            raise TypeError(f"finding module {module.__name__} has no find(context) function")
        found.append(module.find)
    return tuple(found)
