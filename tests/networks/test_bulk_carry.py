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
