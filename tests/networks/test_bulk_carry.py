"""A bulk import on a capture of a network is carried forward like single writes (issue 23,
item 8): the network is refreshed once, with every imported key's answer carried on."""

from __future__ import annotations

from fake_actor import person
from support.office_weeks import BASE, ROUTER, Week

from tracepcap.adjudicate.annotations import bulk
from tracepcap.adjudicate.contract import Basis, Key
from tracepcap.adjudicate.runner import stored_verdict

ALICE = person("alice")


def test_imported_answers_are_carried_into_later_captures_by_their_author(office):
    office.network("hq")
    w0, w1 = (office.add("hq", n, Week(BASE)) for n in range(2))
    rows = [bulk.Row(1, {"kind": "override", "entity": ROUTER[0], "label": "Router", "reason": "asset list"}),
            bulk.Row(2, {"kind": "dismissal", "entity": "10.9.0.10", "label": "Printer", "reason": "a laptop"})]
    result = office.act(lambda s, r: bulk.apply_bulk(s, r, w0, rows, actor=ALICE))
    assert (result.overrides, result.dismissals) == (1, 1)
    with office.db.session() as s:
        here = stored_verdict(s, Key("host-identity", w1, ROUTER[0]))
        dismissed = stored_verdict(s, Key("host-identity", w1, "10.9.0.10"))
    assert (here.primary_label, here.basis, here.override.actor) == ("Router", Basis.HUMAN, "alice")
    assert any(f"({w0})" in note and "given by alice" in note for note in here.notes)
    assert "Printer" in dismissed.dismissed


def test_an_evidence_write_recomputes_only_its_own_copies_and_a_full_refresh_agrees(office, monkeypatch):
    """Issue 23, item 8: adding, editing or deleting a piece of evidence (or one of its copies)
    on a network's capture plans that piece's copies alone; after each step a full refresh of
    the network finds nothing left to change."""
    from sqlalchemy import func, select

    from tracepcap.adjudicate import annotations, networks
    from tracepcap.adjudicate.networks import evidence as ev
    from tracepcap.store.models import AuditEvent, ManualEvidence

    net = office.network("hq")
    w0, w1, w2 = (office.add("hq", n, Week(BASE)) for n in range(3))
    office.act(lambda s, r: annotations.set_override(s, r, Key("host-identity", w0, ROUTER[0]), "Router", "r",
                                                     actor=ALICE))
    office.act(lambda s, r: annotations.dismiss(s, r, Key("host-identity", w0, "10.9.0.11"), "Printer", "no",
                                                actor=ALICE))
    loaded: list[set] = []
    real = ev.load_many
    monkeypatch.setattr(ev, "load_many", lambda s, ids, entities=None: (loaded.append(set(entities or ())),
                                                                        real(s, ids, entities))[1])

    def settled() -> None:
        with office.db.session(write=True) as s:
            events = s.scalar(select(func.count()).select_from(AuditEvent))
            assert networks.refresh(s, office.registry, net) == set()
            assert s.scalar(select(func.count()).select_from(AuditEvent)) == events

    def copies(origin: int) -> dict[str, tuple]:
        with office.db.session() as s:
            return {e.capture_id: (e.label, e.weight) for e in s.scalars(select(ManualEvidence).where(
                ManualEvidence.carried_id == origin))}

    entity = "10.9.0.10"
    evidence, _ = office.act(lambda s, r: annotations.add_evidence(s, r, Key("host-identity", w0, entity), "Laptop",
                                                                   30, "asset tag", actor=ALICE))
    assert [len(e) for e in loaded] == [1]  # the one entity, not every origin's
    assert copies(evidence.id) == {w1: ("Laptop", 30), w2: ("Laptop", 30)}
    settled()
    office.act(lambda s, r: annotations.edit_evidence(s, r, Key("host-identity", w0, entity), evidence.id,
                                                      actor=ALICE, weight=60))
    assert copies(evidence.id) == {w1: ("Laptop", 60), w2: ("Laptop", 60)}
    settled()
    with office.db.session() as s:
        copy_id = s.scalar(select(ManualEvidence.id).where(ManualEvidence.carried_id == evidence.id,
                                                           ManualEvidence.capture_id == w1))
    office.act(lambda s, r: annotations.delete_evidence(s, r, Key("host-identity", w1, entity), copy_id, actor=ALICE))
    assert copies(evidence.id) == {}  # cleared in w1: not carried there or later
    settled()
    office.act(lambda s, r: annotations.delete_evidence(s, r, Key("host-identity", w0, entity), evidence.id,
                                                        actor=ALICE))
    assert copies(evidence.id) == {}
    settled()
    with office.db.session() as s:  # the other origins' copies stood throughout
        assert stored_verdict(s, Key("host-identity", w2, ROUTER[0])).primary_label == "Router"
        assert "Printer" in stored_verdict(s, Key("host-identity", w2, "10.9.0.11")).dismissed
