"""The precedence and the vote, on votes made by hand: no store, no capture."""

from __future__ import annotations

from datetime import UTC, datetime

from tracepcap.adjudicate.contract import Adjudicator, Basis, Dismissed, Key, Override, Tier
from tracepcap.adjudicate.runner import Annotations, decide
from tracepcap.extract.facts import Grade
from tracepcap.scan.vote import Vote
from tracepcap.store.models import Dismissal, HumanOverride, ManualEvidence

ADJ = Adjudicator(question="host-identity", title="Device type", tier=Tier.DETERMINISTIC,
                  labels=("Router", "DNS Server", "Workstation", "Unknown"),
                  contest_below=35, margin_for_full=60)
KEY = Key("host-identity", "cap", "10.0.0.1")
AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
NONE = Annotations(None, [], [])


def v(label, weight, reason=None, grade="MEASURED", signal="s"):
    return Vote(label, weight, reason or f"{label} says so (+{weight})", grade, (7,), signal)


def evidence(label, weight, actor="alice", id=1):
    return ManualEvidence(id=id, question=KEY.question, capture_id="cap", entity_key=KEY.entity_key,
                          label=label, weight=weight, reason="rack label", actor=actor,
                          created_at=AT, updated_at=AT)


def test_walkover_is_not_contested():
    verdict = decide(ADJ, KEY, [v("DNS Server", 80), v("Router", 10)], NONE)
    assert (verdict.primary_label, verdict.contested, verdict.basis) == ("DNS Server", False, Basis.MACHINE)
    # margin 70 over 60 for full would be 100, but one signal alone backs it
    assert verdict.confidence == 75
    assert verdict.notes == ("confidence held at 75: one signal alone supports this answer",)


def test_two_signals_agreeing_may_reach_full_confidence():
    votes = [Vote("DNS Server", 50, "answered DNS (+50)", Grade.MEASURED, (1,), "services_answered"),
             Vote("DNS Server", 20, "named ns1 (+20)", Grade.REPORTED, (2,), "name_cues")]
    verdict = decide(ADJ, KEY, votes, NONE)
    assert (verdict.primary_label, verdict.confidence, verdict.notes) == ("DNS Server", 100, ())


def test_inferred_facts_alone_hold_confidence_at_50():
    votes = [Vote("Printer", 40, "MAC OUI is Brother (+40)", Grade.INFERRED, (1,), "oui_vendor"),
             Vote("Printer", 30, "port 9100 guess (+30)", Grade.INFERRED, (2,), "port_guess")]
    verdict = decide(ADJ, KEY, votes, NONE)
    assert (verdict.primary_label, verdict.confidence) == ("Printer", 50)
    assert verdict.notes == ("confidence held at 50: only inferred facts (reference data, port guesses) "
                             "support this answer",)


def test_knife_edge_is_contested_and_carries_both():
    verdict = decide(ADJ, KEY, [v("DNS Server", 50), v("Router", 45)], NONE)
    assert verdict.contested and verdict.primary_label is None
    assert [(c.label, c.score) for c in verdict.candidates] == [("DNS Server", 50), ("Router", 45)]
    assert verdict.confidence == 8  # round(100 * 5 / 60)


def test_single_weak_candidate_is_low_confidence_not_contested():
    verdict = decide(ADJ, KEY, [v("Router", 10)], NONE)
    assert (verdict.primary_label, verdict.contested, verdict.confidence) == ("Router", False, 17)


def test_override_wins_and_keeps_the_machine_reasons():
    override = HumanOverride(label="Workstation", rationale="asset register", actor="bob",
                             created_at=AT, updated_at=AT)
    verdict = decide(ADJ, KEY, [v("DNS Server", 80)], Annotations(override, [], []))
    assert (verdict.primary_label, verdict.basis, verdict.confidence, verdict.contested) == (
        "Workstation", Basis.HUMAN, 100, False)
    assert verdict.override == Override("Workstation", "asset register", "bob", AT.isoformat())
    assert verdict.candidates[0].reasons == ("DNS Server says so (+80)",)


def test_evidence_enters_the_vote_tagged_with_its_author():
    verdict = decide(ADJ, KEY, [v("Router", 10)], Annotations(None, [evidence("dns server", 40)], []))
    assert verdict.primary_label == "DNS Server"  # normalised into the vocabulary's label
    winner = verdict.candidates[0]
    assert winner.source == "analyst"
    assert winner.reasons == ("[analyst-provided by alice] rack label (+40)",)
    assert winner.votes[0].author == "alice" and winner.votes[0].grade == "ANALYST"


def test_evidence_does_not_become_the_answer_when_the_machine_disagrees():
    verdict = decide(ADJ, KEY, [v("DNS Server", 80)], Annotations(None, [evidence("Router", 20)], []))
    assert verdict.primary_label == "DNS Server" and not verdict.contested
    assert [c.label for c in verdict.candidates] == ["DNS Server", "Router"]


def test_labels_compare_case_and_space_insensitively():
    verdict = decide(ADJ, KEY, [v("DNS Server", 30), v("  dns   SERVER ", 30)], NONE)
    assert [(c.label, c.score) for c in verdict.candidates] == [("DNS Server", 60)]


def test_equal_scores_rank_the_same_way_every_time():
    orders = {tuple(c.label for c in decide(ADJ, KEY, votes, NONE).candidates)
              for votes in ([v("Router", 40), v("DNS Server", 40)], [v("DNS Server", 40), v("Router", 40)])}
    assert orders == {("DNS Server", "Router")}


def test_dismissed_label_cannot_win_and_shows_who_dismissed_it():
    dismissal = Dismissal(label="dns server", label_key="dns server", reason="forwarder only",
                          actor="carol", created_at=AT)
    verdict = decide(ADJ, KEY, [v("DNS Server", 80), v("Router", 20)], Annotations(None, [], [dismissal]))
    assert verdict.primary_label == "Router" and verdict.dismissed == ("DNS Server",)
    dismissed = verdict.candidates[-1]
    assert dismissed.label == "DNS Server" and dismissed.score == 80
    assert dismissed.dismissed == Dismissed("carol", "forwarder only", AT.isoformat())


def test_no_votes_is_unknown_with_a_reason():
    verdict = decide(ADJ, KEY, [], NONE)
    assert verdict.primary_label == "Unknown" and verdict.confidence == 0
    assert verdict.candidates[0].reasons == (
        "no signal found evidence for any label among this host's facts (+0)",)


def test_basis_is_reported_when_the_winner_rests_on_what_the_host_said():
    verdict = decide(ADJ, KEY, [v("Workstation", 30, grade="REPORTED"), v("Workstation", 10)], NONE)
    assert verdict.basis == Basis.REPORTED
