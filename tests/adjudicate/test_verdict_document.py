"""The verdict document: `Verdict.to_document()` and `Verdict.from_document()` are inverse,
and the document keeps the shape `analyze --json` has always had (optional parts absent, not
null)."""

from __future__ import annotations

import pydantic
import pytest

from tracepcap.adjudicate.contract import Basis, Candidate, Dismissed, Override, Verdict, VoteView

MACHINE_VOTE = VoteView("oui_vendor", 40, "INFERRED", "MAC OUI is Cisco Systems (+40)", (3, 9))
ANALYST_VOTE = VoteView("analyst-evidence", 30, "ANALYST", "[analyst-provided by bob] rack label (+30)", (), "bob")
FULL = Verdict(
    "host-identity", "cap", "10.0.0.1", "Router", Basis.HUMAN, 100, False,
    (Candidate("Router", "machine", 70, (MACHINE_VOTE.reason, ANALYST_VOTE.reason), (MACHINE_VOTE, ANALYST_VOTE)),
     Candidate("Printer", "machine", 0, (), (), Dismissed("carol", "no paper tray", "2026-11-30T12:00:00+00:00"))),
    Override("Router", "asset register", "alice", "2026-11-30T12:05:00+00:00"), ("Printer",),
    ("stale: the facts beneath this answer moved since alice gave it (mac 00:11 gone)",),
    "2026-11-30T13:00:00+00:00")
BARE = Verdict("os-family", "cap", "10.0.0.2", None, Basis.MACHINE, 12, True,
               (Candidate("Linux", "machine", 30, ("ttl 64 (+30)",), (VoteView("ttl", 30, "MEASURED", "ttl 64 (+30)",
                                                                                    (1,)),)),))
SYN = VoteView("syn_signature", 40, "MEASURED", "SYN signature of Apple's stack (+40)", (4,))
PARENT = Verdict("os-family", "cap", "10.0.0.4", "Apple", Basis.MACHINE, 75, False,
                 (Candidate("iOS", "machine", 40, (SYN.reason,), (SYN,)),
                  Candidate("macOS", "machine", 40, (SYN.reason,), (SYN,))),
                 notes=("stopped at Apple: iOS (40) and macOS (40) are both Apple, and nothing here tells "
                        "them apart",), parent_of=("iOS", "macOS"))


def test_from_document_reads_back_what_to_document_wrote():
    for verdict in (FULL, BARE, PARENT):
        assert Verdict.from_document(verdict.to_document()) == verdict
    older = PARENT.to_document()
    del older["parent_of"]  # stored before the taxonomy: an answer at the level of its label
    assert Verdict.from_document(older).parent_of == ()


def test_the_document_has_the_analyze_json_shape():
    doc = FULL.to_document()
    assert list(doc) == ["question", "capture_id", "entity_key", "primary_label", "basis", "confidence",
                         "contested", "candidates", "override", "dismissed", "notes", "stale_since", "parent_of"]
    assert doc["basis"] == "HUMAN" and doc["override"] == {
        "label": "Router", "rationale": "asset register", "actor": "alice", "at": "2026-11-30T12:05:00+00:00"}
    router, printer = doc["candidates"]
    assert "dismissed" not in router and printer["dismissed"] == {
        "by": "carol", "reason": "no paper tray", "at": "2026-11-30T12:00:00+00:00"}
    assert [("author" in v, v["frames"]) for v in router["votes"]] == [(False, [3, 9]), (True, [])]
    assert BARE.to_document()["override"] is None
    assert (BARE.to_document()["parent_of"], PARENT.to_document()["parent_of"]) == ([], ["iOS", "macOS"])


def test_readings_of_a_verdict():
    assert [c.label for c in FULL.live] == ["Router"]
    assert [c.label for c in FULL.dismissed_candidates] == ["Printer"]
    assert FULL.suggestion("Unknown") is None  # already a human's answer
    assert BARE.suggestion("Unknown") is None  # contested
    assert PARENT.suggestion("Unknown") == "Apple"  # a parent-level answer is accepted like any other
    machine = Verdict("node-role", "cap", "10.0.0.3", "Gateway", Basis.MACHINE, 80, False, BARE.candidates)
    assert machine.suggestion("Unknown") == "Gateway" and machine.suggestion("Gateway") is None


def test_the_api_schema_states_the_same_fields():
    from tracepcap.present.api.schemas import Verdict as VerdictOut
    for verdict in (FULL, BARE, PARENT):
        doc = verdict.to_document()
        assert VerdictOut.model_validate(doc).model_dump(mode="json") == doc
    doc = FULL.to_document()
    doc["candidates"][0]["votes"][0]["colour"] = "red"  # not a field of the contract
    with pytest.raises(pydantic.ValidationError, match="colour"):
        VerdictOut.model_validate(doc)
