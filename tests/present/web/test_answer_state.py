"""How the table and the panel say an answer stands (`views.answer_state`): every state from a
stored verdict, and never "machine" for an answer only analyst evidence carries."""

from __future__ import annotations

import pytest

from tracepcap.adjudicate.contract import Basis, Candidate, Override, Verdict
from tracepcap.adjudicate.registry import get_registry
from tracepcap.present.web.views import answer_state, question_meta


def verdict(label, *candidates, basis=Basis.MACHINE, contested=False, parent_of=(), override=None) -> Verdict:
    return Verdict("q", "c", "e", label, basis, 40, contested, tuple(candidates), override, parent_of=parent_of)


def cand(label: str, source: str = "machine", score: int = 40) -> Candidate:
    return Candidate(label, source, score, (f"{label} (+{score})",), ())


@pytest.fixture(scope="module")
def questions():
    metas = [question_meta(a) for a in get_registry()]
    deterministic = next(q for q in metas if q["tier"] == "DETERMINISTIC")
    assisted = next(q for q in metas if q["tier"] == "HUMAN_ASSISTED")
    return deterministic, assisted


def test_every_state_from_a_stored_verdict(questions):
    q, assisted = questions
    unknown = q["unknown_label"]
    assert answer_state(None, q) == "none"
    assert answer_state(verdict(None, cand("A"), cand("B"), contested=True), q) == "contested"
    assert answer_state(verdict("A", cand("A"), basis=Basis.HUMAN,
                                override=Override("A", "seen", "alice", "2026-01-01T00:00:00+00:00")), q) == "human"
    assert answer_state(verdict(unknown, cand(unknown, score=0)), q) == "unknown"
    assert answer_state(verdict("A", cand("A")), q) == "machine"
    assert answer_state(verdict("P", cand("A"), cand("B"), parent_of=("A", "B")), q) == "parent"
    assert answer_state(verdict("A", cand("A")), assisted) == "suggestion"  # nobody accepted it
    assert answer_state(verdict("A", cand("A"), basis=Basis.HUMAN), assisted) == "human"


def test_an_answer_only_analyst_evidence_carries_is_the_analysts(questions):
    q, _ = questions
    assert answer_state(verdict("Lab Resolver", cand("Lab Resolver", "analyst", 70), cand("DNS Server", score=60)),
                        q) == "analyst"
    # analyst evidence beside machine votes for the winner: the machine's answer
    assert answer_state(verdict("DNS Server", cand("DNS Server", score=100), cand("Router", "analyst", 20)),
                        q) == "machine"
