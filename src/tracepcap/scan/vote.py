"""Votes and the ScoreBoard: what a signal says, and how votes add up.

A vote is (label, weight, reason) plus the grade of the facts it used and the frames that
witness them. The ScoreBoard detects nothing: signals feed it; a new signal only adds votes.
Labels compare case-insensitively and whitespace-trimmed everywhere (`normalize_label`), so
evidence for "dns server" adds to "DNS Server".
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

from ..extract.facts import Grade


@lru_cache(maxsize=1 << 14)  # every vote's label, in scan and again in every board that adds it
def normalize_label(label: str) -> str:
    """The comparison key of a label: trimmed, inner whitespace collapsed, case-folded."""
    return " ".join(label.split()).casefold()


@dataclass(frozen=True, slots=True)
class Vote:
    """One signal's say. `reason` is user-facing prose ending with the signed weight."""

    label: str
    weight: int
    reason: str
    grade: str = Grade.MEASURED  # grade of the facts used; Grade.ANALYST for analyst evidence
    frames: tuple[int, ...] = ()
    signal: str = ""
    author: str | None = None  # set for analyst evidence

    def signed(self, signal: str) -> Vote:
        return Vote(self.label, self.weight, self.reason, self.grade, self.frames, signal, self.author)


GRADE_ORDER = {Grade.MEASURED: 0, Grade.INFERRED: 1, Grade.REPORTED: 2, Grade.ANALYST: 3}  # ties: measured first


@dataclass(slots=True)
class Tally:
    label: str  # the display form
    score: int = 0
    votes: list[Vote] = field(default_factory=list)


@lru_cache(maxsize=64)
def _canonical(vocabulary: tuple[str, ...], key: Callable[[str], str]) -> dict[str, str]:
    """Label key -> the vocabulary's form; one per question, not one per board (per host)."""
    return {key(label): label for label in vocabulary}


class ScoreBoard:
    """Sums votes per label key (`normalize_label` unless the question compares labels its own
    way). `ranking()` is deterministic: score descending, then label; never dict or database
    order. A tally shows the vocabulary's form of its label, else the first vote's."""

    def __init__(self, vocabulary: tuple[str, ...] = (),
                 key: Callable[[str], str] = normalize_label) -> None:
        self._key = key
        self._canonical = _canonical(vocabulary, key)
        self._tallies: dict[str, Tally] = {}

    def add(self, vote: Vote) -> None:
        key = self._key(vote.label)
        if not key:
            raise ValueError("a vote needs a label")
        tally = self._tallies.get(key)
        if tally is None:
            tally = self._tallies[key] = Tally(self._canonical.get(key, " ".join(vote.label.split())))
        tally.score += vote.weight
        tally.votes.append(vote)

    def remove(self, label: str) -> Tally | None:
        return self._tallies.pop(self._key(label), None)

    def ranking(self) -> list[Tally]:
        for tally in self._tallies.values():
            tally.votes.sort(key=lambda v: (-v.weight, GRADE_ORDER.get(v.grade, 9), v.signal, v.reason))
        return sorted(self._tallies.values(), key=lambda t: (-t.score, self._key(t.label), t.label))

    def __bool__(self) -> bool:
        return bool(self._tallies)
