"""Fake facts for signal, finding and question tests, without a capture or a store."""

from __future__ import annotations

from tracepcap.extract.facts import FactKind
from tracepcap.scan.context import CaptureContext, Fact, HostFacts, Traffic


def fact(kind: FactKind, value: str, frame: int = 1, count: int = 1, source: str | None = None) -> Fact:
    """A fact of a catalogue kind, with the kind's grade, first and last seen in `frame`;
    its source defaults to the kind's wire name."""
    return Fact(kind.name, value, source or kind.name, kind.grade, frame, frame, count)


def context(facts: dict[str, list[Fact]], traffic: dict[str, Traffic] | None = None) -> CaptureContext:
    """A capture whose hosts are the addresses `facts` names."""
    return CaptureContext("cap", facts, traffic or {}, sorted(facts))


#: what a signal test compares of each vote: what it says, how strongly and why ...
SAID = ("label", "weight", "reason")
WITH_FRAMES = (*SAID, "frames")  #: ... and the frames it cites (the default)
EVERYTHING = (*SAID, "grade", "frames")  #: ... and the grade of the facts it read


def votes(signal, on: HostFacts | list[Fact], fields: tuple[str, ...] = WITH_FRAMES) -> list[tuple]:
    """What `signal` (anything with `vote(host)`: a signal module) says of the host `on`, or
    of the lone host 10.0.0.2 whose facts are the list `on`: a tuple of the named Vote fields
    per vote, in the order it voted."""
    host = on if isinstance(on, HostFacts) else context({"10.0.0.2": on}).host("10.0.0.2")
    return [tuple(getattr(vote, name) for name in fields) for vote in signal.vote(host)]
