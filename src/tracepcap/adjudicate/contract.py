"""The adjudication contract (our hookspec): what a question declares, what a verdict is.

A question is one module in `tracepcap.adjudicate.questions` (or a plugin module named by
the entry-point group `tracepcap.questions`) that defines `ADJUDICATOR = Adjudicator(...)`.
Its signals are the modules of `tracepcap.scan.signals.<question_snake_name>` unless the
module passes `signals=` itself.

Calling convention, the same for every question:
- Scan runs each signal on each host of a capture after analysis, and the votes are stored.
- The runner re-adjudicates all questions of a capture when analysis completes, and one
  (question, capture, entity) synchronously after each human action, from the stored votes
  and annotations only: it never re-reads facts or the capture.
- Precedence: a human override is the answer (basis HUMAN, confidence 100, never
  contested); then, for a question that `defers` to another, that question's human answer
  mapped to this one's label; otherwise the machine vote, with analyst evidence as one more
  signal, minus dismissed labels; contested when confidence < `contest_below` and a
  runner-up exists, or when the leading label has a vote against it (negative weight) —
  unless every label within the contest margin of the leader shares a parent in the
  question's `parents` taxonomy: then the parent is the answer (`Verdict.parent_of` names the
  children it stands for) and the children stay ranked candidates.
A signal or adjudicator must never open the capture, write the store, or return a machine
verdict without reasons (the runner refuses to persist one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from ..scan.signals import Signal
from ..scan.vote import normalize_label

QUESTION_KEY = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class Tier(StrEnum):
    DETERMINISTIC = "DETERMINISTIC"
    LLM = "LLM"
    HUMAN_ASSISTED = "HUMAN_ASSISTED"


class Basis(StrEnum):
    HUMAN = "HUMAN"  #: a human override (or confirmation) is the answer
    MACHINE = "MACHINE"  #: the winning evidence is measured or inferred
    REPORTED = "REPORTED"  #: the winning evidence is what a host said about itself


@dataclass(frozen=True, slots=True)
class Key:
    """What one verdict answers: a question about one entity of one capture."""

    question: str
    capture_id: str
    entity_key: str


@dataclass(frozen=True, slots=True)
class Deference:
    """A human's answer to `question` on the same entity decides this question too, through
    `labels` (that question's label -> this one's). Labels without a mapping defer nothing."""

    question: str
    labels: Mapping[str, str]

    def label_for(self, theirs: str) -> str | None:
        """This question's answer when a human answers `question` with `theirs`; None when
        that label defers nothing."""
        wanted = normalize_label(theirs)
        return next((mine for label, mine in self.labels.items() if normalize_label(label) == wanted), None)


@dataclass(frozen=True, slots=True)
class Adjudicator:
    """One question. `labels` are what its signals vote for; `vocabulary` (those and the
    taxonomy's parent labels) is what the UI offers (free text stays allowed)."""

    question: str
    title: str
    tier: Tier
    labels: tuple[str, ...]
    signals: tuple[Signal, ...] | None = None  # None: discovered under scan/signals/<name>/
    contest_below: int = 35  #: contested when confidence is below this and a runner-up exists
    margin_for_full: int = 60  #: score margin that gives confidence 100
    unknown_label: str = "Unknown"  #: the answer, with its reason, when no signal voted
    position: int = 100  #: display order among questions (then by key)
    label_key: Callable[[str], str] = normalize_label  #: when two labels are the same answer
    defers: Deference | None = None
    #: the label taxonomy, child -> parent (macOS -> Apple): when the labels a vote cannot tell
    #: apart share a parent, the parent is asserted instead of a contest
    parents: Mapping[str, str] = field(default_factory=dict)
    #: the questions whose machine answers its signals read (their modules' `INPUTS`),
    #: filled in by the registry, which answers those questions first
    inputs: tuple[str, ...] = ()
    module: str = field(default="", compare=False)
    # the taxonomy and vocabulary worked out once per question, not once per verdict (per host):
    # label key -> parent label, label key -> lineage
    _parent_of: dict[str, str] = field(init=False, repr=False, compare=False)
    _lineage_of: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    _vocabulary: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not QUESTION_KEY.match(self.question):
            raise ValueError(f"question key must be kebab-case (got {self.question!r})")
        if not self.labels:
            raise ValueError(f"question {self.question!r} must declare a label vocabulary")
        if not self.margin_for_full > 0:
            raise ValueError(f"margin_for_full must be positive (got {self.margin_for_full})")
        parent_of: dict[str, str] = {}
        for child, parent in self.parents.items():
            parent_of.setdefault(self.label_key(child), parent)  # the first child of a key decides, as it did
        object.__setattr__(self, "_parent_of", parent_of)
        self._check_taxonomy()
        object.__setattr__(self, "_lineage_of", {key: self._climb(parent) for key, parent in parent_of.items()})
        keys = {self.label_key(label) for label in self.labels}
        extra = dict.fromkeys(p for p in self.parents.values() if self.label_key(p) not in keys)
        object.__setattr__(self, "_vocabulary", (*self.labels, *extra))

    def _check_taxonomy(self) -> None:
        """Every child is a vocabulary label or another parent, and following parents upward
        ends: a cycle would make "the nearest common parent" meaningless."""
        known = {self.label_key(label) for label in (*self.labels, *self.parents.values())}
        for child, parent in self.parents.items():
            if self.label_key(child) not in known:
                raise ValueError(f"question {self.question!r}: {child!r} (a child of {parent!r}) is not "
                                 "one of its labels")
            seen = [child]
            while (up := self.parent(seen[-1])) is not None:
                if self.label_key(up) in {self.label_key(s) for s in seen}:
                    raise ValueError(f"question {self.question!r}: its label taxonomy has a cycle "
                                     f"({' -> '.join((*seen, up))})")
                seen.append(up)

    def parent(self, label: str) -> str | None:
        """The label's parent in the taxonomy (labels compared by `label_key`), if it has one."""
        return self._parent_of.get(self.label_key(label))

    def lineage(self, label: str) -> tuple[str, ...]:
        """The label's parent, grandparent, ... nearest first (not the label itself)."""
        return self._lineage_of.get(self.label_key(label), ())

    def _climb(self, parent: str) -> tuple[str, ...]:
        line = [parent]
        while (up := self.parent(line[-1])) is not None:
            line.append(up)
        return tuple(line)

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """The labels and the taxonomy's parent labels: what the UI offers."""
        return self._vocabulary

    @property
    def snake(self) -> str:
        return self.question.replace("-", "_")


@dataclass(frozen=True, slots=True)
class VoteView:
    signal: str
    weight: int
    grade: str
    reason: str
    frames: tuple[int, ...]
    author: str | None = None  #: who gave it, for analyst evidence

    def to_document(self) -> dict:
        return {"signal": self.signal, "weight": self.weight, "grade": self.grade, "reason": self.reason,
                "frames": list(self.frames), **({"author": self.author} if self.author else {})}

    @classmethod
    def from_document(cls, d: Mapping) -> VoteView:
        return cls(d["signal"], d["weight"], d["grade"], d["reason"], tuple(d["frames"]), d.get("author"))


@dataclass(frozen=True, slots=True)
class Dismissed:
    """A human said "it is not this label"."""

    by: str
    reason: str
    at: str  #: ISO 8601

    def to_document(self) -> dict:
        return {"by": self.by, "reason": self.reason, "at": self.at}

    @classmethod
    def from_document(cls, d: Mapping) -> Dismissed:
        return cls(d["by"], d["reason"], d["at"])


@dataclass(frozen=True, slots=True)
class Override:
    """The human answer in force."""

    label: str
    rationale: str
    actor: str
    at: str  #: ISO 8601, when it was last set

    def to_document(self) -> dict:
        return {"label": self.label, "rationale": self.rationale, "actor": self.actor, "at": self.at}

    @classmethod
    def from_document(cls, d: Mapping) -> Override:
        return cls(d["label"], d["rationale"], d["actor"], d["at"])


@dataclass(frozen=True, slots=True)
class Candidate:
    label: str
    source: str  # "machine" or "analyst" (all its votes are analyst evidence)
    score: int
    reasons: tuple[str, ...]
    votes: tuple[VoteView, ...]
    dismissed: Dismissed | None = None  # when a human said "not this"

    def to_document(self) -> dict:
        return {"label": self.label, "source": self.source, "score": self.score, "reasons": list(self.reasons),
                "votes": [v.to_document() for v in self.votes],
                **({"dismissed": self.dismissed.to_document()} if self.dismissed else {})}

    @classmethod
    def from_document(cls, d: Mapping) -> Candidate:
        dismissed = d.get("dismissed")
        return cls(d["label"], d["source"], d["score"], tuple(d["reasons"]),
                   tuple(VoteView.from_document(v) for v in d["votes"]),
                   Dismissed.from_document(dismissed) if dismissed else None)


@dataclass(frozen=True, slots=True)
class Verdict:
    """One answer. `to_document()` is its JSON shape (stored in `verdict.document`, printed by
    `analyze --json`, returned by the API) and `from_document()` reads it back: the only two
    converters, so every reader sees the same fields."""

    question: str
    capture_id: str
    entity_key: str
    primary_label: str | None
    basis: Basis
    confidence: int
    contested: bool
    candidates: tuple[Candidate, ...]
    override: Override | None = None
    dismissed: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # why the verdict took its shape (e.g. a human confirmation)
    stale_since: str | None = None
    #: a parent-level answer: the children (live candidates) the asserted parent stands for,
    #: which the evidence does not tell apart; empty for an answer at the level of its label
    parent_of: tuple[str, ...] = ()

    @property
    def reasons(self) -> tuple[str, ...]:
        return tuple(r for c in self.candidates for r in c.reasons)

    @property
    def live(self) -> tuple[Candidate, ...]:
        """The candidates still in the race (not dismissed), best first."""
        return tuple(c for c in self.candidates if c.dismissed is None)

    @property
    def dismissed_candidates(self) -> tuple[Candidate, ...]:
        return tuple(c for c in self.candidates if c.dismissed is not None)

    def suggestion(self, unknown_label: str) -> str | None:
        """The machine's one answer a human could accept: none when contested, already
        overridden, or unknown."""
        if self.contested or self.override is not None or self.primary_label in (None, unknown_label):
            return None
        return self.primary_label

    def to_document(self) -> dict:
        return {
            "question": self.question, "capture_id": self.capture_id, "entity_key": self.entity_key,
            "primary_label": self.primary_label, "basis": str(self.basis), "confidence": self.confidence,
            "contested": self.contested, "candidates": [c.to_document() for c in self.candidates],
            "override": self.override.to_document() if self.override else None,
            "dismissed": list(self.dismissed), "notes": list(self.notes), "stale_since": self.stale_since,
            "parent_of": list(self.parent_of),
        }

    @classmethod
    def from_document(cls, d: Mapping) -> Verdict:
        override = d.get("override")
        return cls(d["question"], d["capture_id"], d["entity_key"], d["primary_label"], Basis(d["basis"]),
                   d["confidence"], d["contested"], tuple(Candidate.from_document(c) for c in d["candidates"]),
                   Override.from_document(override) if override else None, tuple(d.get("dismissed", ())),
                   tuple(d.get("notes", ())), d.get("stale_since"), tuple(d.get("parent_of", ())))
