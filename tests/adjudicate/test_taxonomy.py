"""A question's label taxonomy: when the leaders share a parent, the parent is the answer
(commit at the level the evidence supports); a real disagreement stays contested."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tracepcap.adjudicate.contract import Adjudicator, Basis, Key, Tier
from tracepcap.adjudicate.questions.os_family import ADJUDICATOR as OS_FAMILY
from tracepcap.adjudicate.runner import Annotations, decide
from tracepcap.extract.facts import Grade
from tracepcap.scan.vote import Vote
from tracepcap.store.models import Dismissal, HumanOverride, ManualEvidence

KEY = Key("os-family", "cap", "10.0.0.9")
AT = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
NONE = Annotations(None, [], [])


def syn(*families):
    """One measured SYN signature votes 40 for every family its stack runs under."""
    return [Vote(f, 40, f"SYN signature shared by {', '.join(families)} (+40)", Grade.MEASURED, (3,),
                 "syn_signature") for f in families]


def claim(label, weight=20, signal="user_agent"):
    return Vote(label, weight, f"User-Agent says {label} (+{weight})", Grade.REPORTED, (5,), signal)


def dismissal(label):
    return Dismissal(label=label, label_key=label.casefold(), reason="seen the device", actor="carol",
                     created_at=AT)


def test_leaders_sharing_a_parent_assert_the_parent_and_stay_candidates():
    verdict = decide(OS_FAMILY, KEY, syn("macOS", "iOS"), NONE)
    assert (verdict.primary_label, verdict.contested, verdict.parent_of) == ("Apple", False, ("iOS", "macOS"))
    assert [(c.label, c.score) for c in verdict.candidates] == [("iOS", 40), ("macOS", 40)]
    # no rival outside Apple: margin 40 of 50 is 80, held at 75 because one signal backs it
    assert verdict.confidence == 75
    assert verdict.notes[0] == ("stopped at Apple: iOS (40) and macOS (40) are both Apple, and nothing here "
                                "tells them apart")
    assert verdict.suggestion(OS_FAMILY.unknown_label) == "Apple"  # accepted like any answer


def test_three_children_and_a_rival_outside_the_family():
    votes = [*syn("Linux", "Android", "ChromeOS"), claim("Android", 10), claim("Windows", 15, "dhcp_vendor_class")]
    verdict = decide(OS_FAMILY, KEY, votes, NONE)
    assert (verdict.primary_label, verdict.contested) == ("Linux-based", False)
    assert verdict.parent_of == ("Android", "ChromeOS", "Linux")  # every candidate within the margin
    assert verdict.notes[0].startswith("stopped at Linux-based: Android (50), ChromeOS (40) and Linux (40) are "
                                       "all Linux-based, and the evidence does not tell them apart")
    assert verdict.confidence == 70  # round(100 * (50 - 15) / 50): the margin over Windows


def test_a_real_disagreement_stays_contested():
    votes = [*syn("Windows"), *syn("Linux")]
    verdict = decide(OS_FAMILY, KEY, votes, NONE)
    assert (verdict.primary_label, verdict.contested, verdict.parent_of) == (None, True, ())


def test_a_rival_within_the_margin_outside_the_family_keeps_it_contested():
    votes = [*syn("macOS", "iOS"), Vote("Windows", 35, "NTLM says Windows (+35)", Grade.REPORTED, (9,), "os_version")]
    verdict = decide(OS_FAMILY, KEY, votes, NONE)
    assert verdict.contested and verdict.primary_label is None and verdict.parent_of == ()


def test_a_child_that_wins_outright_is_answered_at_its_own_level():
    verdict = decide(OS_FAMILY, KEY, [*syn("macOS", "iOS"), claim("iOS")], NONE)
    assert (verdict.primary_label, verdict.parent_of) == ("iOS", ())
    assert not any(n.startswith("stopped at") for n in verdict.notes)


def test_dismissing_one_child_answers_the_other():
    verdict = decide(OS_FAMILY, KEY, syn("macOS", "iOS"), Annotations(None, [], [dismissal("macOS")]))
    assert (verdict.primary_label, verdict.parent_of, verdict.dismissed) == ("iOS", (), ("macOS",))


def test_a_dismissed_parent_is_not_asserted():
    verdict = decide(OS_FAMILY, KEY, syn("macOS", "iOS"), Annotations(None, [], [dismissal("Apple")]))
    assert verdict.contested and verdict.primary_label is None and verdict.parent_of == ()


def test_an_override_still_wins_over_a_parent_level_answer():
    override = HumanOverride(label="iOS", rationale="it is an iPhone", actor="bob", created_at=AT, updated_at=AT)
    verdict = decide(OS_FAMILY, KEY, syn("macOS", "iOS"), Annotations(override, [], []))
    assert (verdict.primary_label, verdict.basis, verdict.parent_of) == ("iOS", Basis.HUMAN, ())
    assert not any(n.startswith("stopped at") for n in verdict.notes)


def test_an_override_may_name_the_parent():
    override = HumanOverride(label="Apple", rationale="an Apple device", actor="bob", created_at=AT, updated_at=AT)
    verdict = decide(OS_FAMILY, KEY, [*syn("Windows")], Annotations(override, [], []))
    assert (verdict.primary_label, verdict.basis, verdict.contested) == ("Apple", Basis.HUMAN, False)


def test_evidence_for_the_parent_takes_its_vocabulary_form_and_counts_as_the_family():
    def evidence(weight):
        return ManualEvidence(id=1, question=KEY.question, capture_id="cap", entity_key=KEY.entity_key,
                              label="apple", weight=weight, reason="Apple logo on the case", actor="alice",
                              created_at=AT, updated_at=AT)
    verdict = decide(OS_FAMILY, KEY, syn("iOS"), Annotations(None, [evidence(50)], []))
    assert (verdict.primary_label, verdict.parent_of) == ("Apple", ("iOS",))
    assert verdict.notes[0] == ("stopped at Apple: iOS (40) is one kind of Apple, and Apple itself has 50, "
                                "and the evidence does not tell them apart firmly enough to choose")


def test_evidence_for_an_ancestor_does_not_argue_against_the_leading_child():
    evidence = ManualEvidence(id=1, question=KEY.question, capture_id="cap", entity_key=KEY.entity_key,
                              label="Apple", weight=30, reason="Apple logo on the case", actor="alice",
                              created_at=AT, updated_at=AT)
    verdict = decide(OS_FAMILY, KEY, syn("iOS"), Annotations(None, [evidence], []))
    # iOS is a kind of Apple: the Apple evidence is no rival, so iOS leads by all its 40
    assert (verdict.primary_label, verdict.contested, verdict.parent_of) == ("iOS", False, ())
    assert verdict.confidence == 75  # 40 of 50 is 80, held at the lone-signal cap


def test_a_grandparent_is_the_nearest_parent_two_branches_share():
    adj = Adjudicator(question="kind", title="Kind", tier=Tier.DETERMINISTIC,
                      labels=("Laptop", "Desktop", "Phone", "Unknown"),
                      parents={"Laptop": "Computer", "Desktop": "Computer", "Computer": "Client",
                               "Phone": "Client"})
    assert adj.vocabulary == ("Laptop", "Desktop", "Phone", "Unknown", "Computer", "Client")
    key = Key("kind", "cap", "h")
    votes = [Vote("Laptop", 40, "a (+40)"), Vote("Desktop", 40, "b (+40)")]
    assert decide(adj, key, votes, NONE).primary_label == "Computer"
    votes.append(Vote("Phone", 40, "c (+40)", signal="other"))
    verdict = decide(adj, key, votes, NONE)
    assert (verdict.primary_label, verdict.parent_of) == ("Client", ("Desktop", "Laptop", "Phone"))


def test_the_taxonomy_is_checked_when_the_question_is_declared():
    def adj(parents):
        return Adjudicator(question="kind", title="Kind", tier=Tier.DETERMINISTIC, labels=("A", "B"),
                           parents=parents)
    with pytest.raises(ValueError, match="'C' .* is not one of its labels"):
        adj({"C": "P"})
    with pytest.raises(ValueError, match=r"cycle \(A -> P -> A\)"):
        adj({"A": "P", "P": "A"})
    with pytest.raises(ValueError, match="cycle"):
        adj({"A": "A"})
    assert adj({"a": "P", "B": "P"}).parent("A") == "P"  # labels compare by the question's label_key


def test_the_table_output_names_the_parent_level():
    from tracepcap.present.report import verdict_headline
    verdict = decide(OS_FAMILY, KEY, syn("macOS", "iOS"), NONE)
    assert verdict_headline(verdict) == "Apple (parent level: iOS · macOS)  [machine, confidence 75]"
