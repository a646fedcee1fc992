"""The question registry: built once at start from a package scan of
`tracepcap.adjudicate.questions` and the entry-point group `tracepcap.questions`.

Each module defines `ADJUDICATOR`. Import errors propagate; a second claim on one question
stops start-up naming both modules. A new question needs no registration edit.

Cross-question inputs: a signal that reads another question's machine answer declares it
(`INPUTS` in its module). Start-up fails on an input that names no question, a question's
own, or a cycle; `signals()` lists the questions inputs first (`runner.machine_answer` is
what scan hands the reading signals: the input question's verdict from its votes alone).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import os
import pkgutil
import sys
from collections.abc import Iterator
from functools import lru_cache
from types import ModuleType

from ..derived import derived
from ..errors import DuplicateQuestion, NotFound
from ..scan.signals import Signal, discover, inputs_of, signal_name
from . import questions as questions_pkg
from .contract import Adjudicator

ENTRY_POINT_GROUP = "tracepcap.questions"


class Registry:
    """A frozen mapping question -> Adjudicator, in display order."""

    def __init__(self, adjudicators: list[Adjudicator]) -> None:
        self._by_key = {a.question: a for a in adjudicators}
        self._scan_order = _dependency_order(adjudicators)

    def __iter__(self) -> Iterator[Adjudicator]:
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def __contains__(self, question: str) -> bool:
        return question in self._by_key

    def get(self, question: str) -> Adjudicator:
        try:
            return self._by_key[question]
        except KeyError:
            known = ", ".join(self._by_key)
            raise NotFound(f"unknown question {question!r}; known questions: {known}") from None

    def signals(self) -> dict[str, tuple[Signal, ...]]:
        """Each question's signals, a question's inputs before it (scan's order)."""
        return {a.question: a.signals or () for a in self._scan_order}

    def listing(self) -> list[str]:
        """One line per question: key, tier, module, signals (what discovery found)."""
        return [f"{a.question:<16} {a.tier:<15} {a.module}  signals: "
                f"{', '.join(signal_name(s) for s in a.signals or ()) or '-'}" for a in self]


def _installed_metadata() -> str:
    """What the entry points are read from: every distribution's metadata directory on
    sys.path and its entry_points.txt (size, time). Installing, removing or upgrading a
    distribution, or editing its entry points, changes it."""
    parts = []
    for place in sys.path:
        try:
            listing = sorted(e.name for e in os.scandir(place or ".") if e.name.endswith((".dist-info", ".egg-info")))
        except OSError:  # a zip file, a missing directory: no distributions there
            continue
        parts.append(f"{place}")
        for name in listing:
            try:
                st = os.stat(os.path.join(place or ".", name, "entry_points.txt"))
                parts.append(f" {name}:{st.st_size}:{st.st_mtime_ns}")
            except OSError:
                parts.append(f" {name}")
    return "\n".join(parts)


def _entry_points() -> list[tuple[str, str, str]]:
    """(name, module, attribute path) of each `tracepcap.questions` entry point, by name.
    importlib.metadata reads every installed distribution for them (~0.05 s with its import,
    on every command): they are derived once per state of the installed metadata."""
    def read() -> list[tuple[str, str, str]]:
        from importlib.metadata import entry_points
        return sorted((p.name, p.module, p.attr or "") for p in entry_points(group=ENTRY_POINT_GROUP))
    return [tuple(point) for point in derived("question-entry-points", _installed_metadata(), read)]


def _modules() -> Iterator[ModuleType]:
    for info in sorted(pkgutil.iter_modules(questions_pkg.__path__), key=lambda i: i.name):
        yield importlib.import_module(f"{questions_pkg.__name__}.{info.name}")
    for _name, module_name, attribute in _entry_points():  # loaded as EntryPoint.load does
        loaded = functools.reduce(getattr, filter(None, attribute.split(".")), importlib.import_module(module_name))
        yield loaded if isinstance(loaded, ModuleType) else importlib.import_module(loaded.__module__)


def build_registry() -> Registry:
    found: dict[str, Adjudicator] = {}
    for module in _modules():
        adjudicator = getattr(module, "ADJUDICATOR", None)
        if not isinstance(adjudicator, Adjudicator):
            raise TypeError(f"question module {module.__name__} defines no ADJUDICATOR")
        question = adjudicator.question
        if question in found:
            raise DuplicateQuestion(f"question {question!r} is claimed by {found[question].module} "
                                    f"and {module.__name__}")
        signals = adjudicator.signals if adjudicator.signals is not None else discover(adjudicator.snake)
        inputs = tuple(dict.fromkeys(q for s in signals for q in inputs_of(s)))
        found[question] = dataclasses.replace(adjudicator, signals=tuple(signals), inputs=inputs,
                                              module=module.__name__)
    ordered = sorted(found.values(), key=lambda a: (a.position, a.question))
    return Registry(ordered)


def _dependency_order(adjudicators: list[Adjudicator]) -> list[Adjudicator]:
    """The questions, each after the questions its signals read (display order otherwise);
    ValueError for an input that is no question, the question itself, or a cycle."""
    by_key = {a.question: a for a in adjudicators}
    for a in adjudicators:
        for q in a.inputs:
            if q == a.question:
                raise ValueError(f"question {a.question!r}: a signal declares its own answer as an input")
            if q not in by_key:
                raise ValueError(f"question {a.question!r}: a signal declares input {q!r}, which is "
                                 f"no question (known: {', '.join(by_key)})")
    ordered: list[Adjudicator] = []
    state: dict[str, str] = {}

    def visit(a: Adjudicator, path: tuple[str, ...]) -> None:
        if state.get(a.question) == "done":
            return
        if state.get(a.question) == "visiting":
            cycle = " -> ".join((*path[path.index(a.question):], a.question))
            raise ValueError(f"cross-question inputs form a cycle: {cycle}")
        state[a.question] = "visiting"
        for q in a.inputs:
            visit(by_key[q], (*path, a.question))
        state[a.question] = "done"
        ordered.append(a)
    for a in adjudicators:
        visit(a, ())
    return ordered


@lru_cache(maxsize=1)
def get_registry() -> Registry:
    return build_registry()
