"""Signals, grouped by question: `signals/<question_snake_name>/<signal>.py`, each module a
few constants and a `vote(host) -> Iterator[Vote]` function. Found by package scan; an import
error propagates (a broken signal stops start-up instead of silently vanishing).

Cross-question inputs: a signal module may read other questions' machine answers through
`host.answer(question)`, and must declare them, `INPUTS = ("os-family",)`. The registry
checks the declarations (known questions, no cycle) and orders the questions so that an
input is answered, from its own votes, before the signals that read it run.

Fact kinds read: a signal module that votes only from some fact kinds may say so,
`READS = (USER_AGENT,)`; Scan then does not run it for a host holding none of them (most hosts
of a large capture hold few kinds, and most signals read one or two). The other kinds it reads
of a host, only beside one of those (its owned MACs, its locality, the knowledge base's
matches), it names in `CONSULTS`; tests/scan/test_signal_reads.py runs every signal on every
entity of the shared captures, records the kinds each asks for, and holds a declaring signal
to READS and CONSULTS. A signal that may vote without any one kind (from traffic, another
host's facts, a question's answer alone) declares nothing and runs for every host.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterable

from ..context import HostFacts
from ..vote import Vote

Signal = Callable[[HostFacts], Iterable[Vote]]


def discover(question_snake: str) -> tuple[Signal, ...]:
    """The `vote` functions of every module under signals/<question_snake>/, sorted by name."""
    try:
        package = importlib.import_module(f"{__name__}.{question_snake}")
    except ModuleNotFoundError as err:
        if err.name == f"{__name__}.{question_snake}":
            return ()
        raise
    found = []
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if not callable(getattr(module, "vote", None)):
            raise TypeError(f"signal module {module.__name__} has no vote(host) function")
        found.append(module.vote)
    return tuple(found)


def inputs_of(signal: Signal) -> tuple[str, ...]:
    """The questions whose machine answers a signal reads: its module's `INPUTS`."""
    module = sys.modules.get(getattr(signal, "__module__", "") or "")
    return tuple(getattr(signal, "inputs", None) or getattr(module, "INPUTS", ()))


def reads_of(signal: Signal) -> frozenset[str]:
    """The names of the fact kinds a signal votes from, its module's `READS`; empty when it
    declares none (it runs for every host)."""
    module = sys.modules.get(getattr(signal, "__module__", "") or "")
    return frozenset(kind.name for kind in getattr(signal, "reads", None) or getattr(module, "READS", ()))


def consults_of(signal: Signal) -> frozenset[str]:
    """The names of the other fact kinds a declaring signal reads beside its `READS`, its
    module's `CONSULTS`."""
    module = sys.modules.get(getattr(signal, "__module__", "") or "")
    return frozenset(kind.name for kind in getattr(signal, "consults", None) or getattr(module, "CONSULTS", ()))


def signal_name(signal: Signal) -> str:
    """A signal's name: its module's last part (`oui_vendor`), or the callable's name."""
    module = getattr(signal, "__module__", "") or ""
    if getattr(signal, "__name__", "") == "vote" and module:
        return module.rsplit(".", 1)[-1]
    return getattr(signal, "__name__", type(signal).__name__)
