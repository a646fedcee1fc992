"""Carry-forward through a network of synthetic office weeks: human answers follow the entity
into later captures with their author, time and origin, lose to a later human answer, go stale
(sticky, with what moved and its frames) where the evidence under them moves, and are
recomputed when captures are re-ordered, removed or deleted. SQLite and PostgreSQL."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from fake_actor import person
from support.office_weeks import BASE, ROUTER, Device, Week

from tracepcap.adjudicate import annotations, networks
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Basis, Key
from tracepcap.adjudicate.runner import stored_verdict
from tracepcap.present.read import networks as read
from tracepcap.store.entities import resolve
from tracepcap.store.models import AuditEvent, HumanOverride

ALICE, BOB = person("alice"), person("bob")
GW = ROUTER[0]


def verdict(office, capture, question, entity):
    with office.db.session() as s:
        return stored_verdict(s, Key(question, capture, entity))


def audit(office, capture, entity=None):
    with office.db.session() as s:
        stmt = select(AuditEvent).where(AuditEvent.capture_id == capture)
        if entity:  # any name of the entity (an address): its key in that capture
            stmt = stmt.where(AuditEvent.entity_key == (resolve(s, capture, entity) or entity))
        return [(e.action, e.actor, e.after, e.before) for e in s.scalars(stmt.order_by(AuditEvent.id))]


def override(office, capture, question, entity, label, actor=ALICE):
    return office.act(lambda s, r: annotations.set_override(s, r, Key(question, capture, entity), label,
                                                            "seen on site", actor=actor))


def test_an_override_and_an_accepted_role_are_carried_with_author_time_and_origin(office):
    office.network("hq")
    w0, w1, w2 = (office.add("hq", n, Week(BASE)) for n in range(3))
    override(office, w0, "host-identity", GW, "Router")
    accepted = office.act(lambda s, r: annotations.accept(s, r, Key("node-role", w0, "10.9.0.20"), actor=BOB))
    assert accepted.primary_label == "File Server"
    for later in (w1, w2):
        v = verdict(office, later, "host-identity", GW)
        assert (v.primary_label, v.basis, v.override.actor) == ("Router", Basis.HUMAN, "alice")
        assert any(f"carried from week" not in n and f"({w0})" in n and "given by alice" in n for n in v.notes)
        role = verdict(office, later, "node-role", "10.9.0.20")
        assert (role.primary_label, role.override.actor, role.override.rationale) == (
            "File Server", "bob", annotations.ACCEPTED)
        assert not role.stale_since
        assert ("override.carried", "system") in [(a, b) for a, b, *_ in audit(office, later, GW)]
    with office.db.session() as s:
        rows = s.scalars(select(HumanOverride).where(
            HumanOverride.entity_key.in_({resolve(s, c, GW) for c in (w0, w1, w2)}))).all()
        by_capture = {o.capture_id: o for o in rows}
    assert by_capture[w0].carried_from is None and by_capture[w1].carried_from == w0
    assert by_capture[w1].created_at == by_capture[w0].created_at  # the time it was given, kept
    assert verdict(office, w0, "host-identity", GW).notes == ()  # the origin is the human's own


def test_a_later_human_answer_wins_from_then_on(office):
    office.network("hq")
    w0, w1, w2 = (office.add("hq", n, Week(BASE)) for n in range(3))
    override(office, w0, "host-identity", GW, "Router")
    override(office, w1, "host-identity", GW, "Firewall", actor=BOB)
    assert verdict(office, w0, "host-identity", GW).primary_label == "Router"
    assert verdict(office, w1, "host-identity", GW).override.actor == "bob"
    assert verdict(office, w1, "host-identity", GW).notes == ()
    later = verdict(office, w2, "host-identity", GW)
    assert (later.primary_label, later.override.actor) == ("Firewall", "bob")
    assert any(f"({w1})" in n for n in later.notes)


def test_evidence_and_dismissals_are_carried_and_a_cleared_copy_stops_there(office):
    office.network("hq")
    w0, w1, w2 = (office.add("hq", n, Week(BASE)) for n in range(3))
    key = Key("host-identity", w0, "10.9.0.10")
    office.act(lambda s, r: annotations.add_evidence(s, r, key, "Kiosk", 60, "label on the box", actor=ALICE))
    office.act(lambda s, r: annotations.dismiss(s, r, key, "Workstation", "it is a kiosk", actor=BOB))
    for later in (w1, w2):
        v = verdict(office, later, "host-identity", "10.9.0.10")
        kiosk = next(c for c in v.candidates if c.label == "Kiosk")
        assert any("analyst-provided by alice" in vote.reason and f"({w0})" in vote.reason for vote in kiosk.votes)
        assert "Workstation" in v.dismissed
    override(office, w0, "host-identity", GW, "Router")
    office.act(lambda s, r: annotations.clear_override(s, r, Key("host-identity", w1, GW), actor=BOB))
    assert verdict(office, w0, "host-identity", GW).primary_label == "Router"  # the origin stays
    for later in (w1, w2):
        assert verdict(office, later, "host-identity", GW).basis != Basis.HUMAN
    assert ("override.cleared", "bob") in [(a, b) for a, b, *_ in audit(office, w1, GW)]


def test_a_device_that_disappears_and_reappears_is_carried_where_it_is(office):
    office.network("hq")
    without = [d for d in BASE if d.ip != "10.9.0.11"]
    w0 = office.add("hq", 0, Week(BASE))
    w1 = office.add("hq", 1, Week(without))
    w2 = office.add("hq", 2, Week(BASE))
    override(office, w0, "hostname", "10.9.0.11", "till-2")
    assert verdict(office, w1, "hostname", "10.9.0.11") is None
    assert verdict(office, w2, "hostname", "10.9.0.11").primary_label == "till-2"
    with office.db.session() as s:
        network = networks.find_network(s, "hq")
        events = read.change_documents(s, network.id)
        grid = read.presence(s, network)
    till = "mac-00-11-22-00-00-11"  # a device is its own MAC's key, whatever addresses it holds
    assert any(e.kind == "device-disappeared" and e.entity_key == till and e.capture_id == w1
               for e in events)
    # back after an absence: "returned" (issue 27: the network's history, not the last week)
    appeared = [e for e in events if e.kind in ("device-appeared", "returned") and e.entity_key == till]
    assert [(e.capture_id, e.kind, e.severity) for e in appeared] == [(w2, "returned", "low")]
    assert appeared[0].frames
    assert "10.9.0.11" in appeared[0].summary
    row = next(r for r in grid.rows if r.entity_key == till)
    assert row.addresses == ("10.9.0.11",) and row.macs == ("00:11:22:00:00:11",)
    # coming back is its presence, not a change of it: present, not "changed"
    assert row.cells == ("present", "absent", "present")


def test_a_device_with_ipv4_and_ipv6_addresses_is_one_device(office):
    office.network("hq")
    dual = [replace(d, ip6="2001:db8:9::10") if d.ip == "10.9.0.10" else d for d in BASE]
    w0 = office.add("hq", 0, Week(BASE[1:]))
    w1 = office.add("hq", 1, Week(dual))
    kiosk = "mac-00-11-22-00-00-10"
    with office.db.session() as s:
        assert resolve(s, w1, "2001:db8:9::10") == resolve(s, w1, "10.9.0.10") == kiosk
        network = networks.find_network(s, "hq")
        events = read.change_documents(s, network.id)
        grid, inventory = read.presence(s, network), read.inventory(s, network)
    appeared = [e for e in events if e.kind == "device-appeared"
                and {"10.9.0.10", "2001:db8:9::10"} & set(e.detail["addresses"])]
    assert [e.entity_key for e in appeared] == [kiosk] and appeared[0].capture_id == w1
    assert "10.9.0.10" in appeared[0].summary and "2001:db8:9::10" in appeared[0].summary
    for rows in (grid.rows, inventory.rows):
        held = [r for r in rows if {"10.9.0.10", "2001:db8:9::10"} & set(r.addresses)]
        assert [r.entity_key for r in held] == [kiosk]
        assert held[0].addresses == ("10.9.0.10", "2001:db8:9::10")
    assert next(r for r in grid.rows if r.entity_key == kiosk).cells == ("absent", "present")
    assert not any(r.entity_key in ("10.9.0.10", "2001:db8:9::10") for r in grid.rows)
    with office.db.session() as s:
        hits = read.search(s, "2001:db8:9::10")
    assert [(h.entity_key, h.capture_id) for h in hits] == [(kiosk, w1)]


def test_a_carried_answer_goes_stale_when_its_mac_moves_sticky_until_reaffirmed(office):
    office.network("hq")
    moved = [replace(d, mac="00:11:22:00:00:99") if d.ip == "10.9.0.10" else d for d in BASE]
    w0 = office.add("hq", 0, Week(BASE))
    w1 = office.add("hq", 1, Week(moved))
    w2 = office.add("hq", 2, Week(BASE))  # the MAC is back: still stale (sticky)
    override(office, w0, "host-identity", "10.9.0.10", "Kiosk")
    v1 = verdict(office, w1, "host-identity", "10.9.0.10")
    assert v1.primary_label == "Kiosk" and v1.basis == Basis.HUMAN and v1.stale_since  # keeps precedence
    stale_note = next(n for n in v1.notes if n.startswith("stale since"))
    assert "00:11:22:00:00:99 new (frame" in stale_note and "00:11:22:00:00:10 gone" in stale_note
    assert verdict(office, w2, "host-identity", "10.9.0.10").stale_since
    assert "override.stale" in [a for a, *_ in audit(office, w1, "10.9.0.10")]
    with office.db.session() as s:
        events = read.change_documents(s, networks.find_network(s, "hq").id, w1)
    moved_event = next(e for e in events if e.kind == "address-moved" and e.entity_key == "10.9.0.10")
    assert moved_event.severity == "high" and moved_event.frames and "00:11:22:00:00:99" in moved_event.summary
    after = office.act(lambda s, r: networks.reaffirm(s, r, Key("host-identity", w1, "10.9.0.10"), actor=BOB))
    assert after.primary_label == "Kiosk" and not after.stale_since
    assert ("override.reaffirmed", "bob") in [(a, b) for a, b, *_ in audit(office, w1, "10.9.0.10")]
    # week 2 is now checked against week 1, where the MAC was ...:99: it moved back, so stale again
    assert "00:11:22:00:00:10 new" in next(n for n in verdict(office, w2, "host-identity", "10.9.0.10").notes
                                            if n.startswith("stale since"))


def test_new_services_make_a_carried_role_stale(office):
    office.network("hq")
    more = [replace(d, serves=(445, 21)) if d.ip == "10.9.0.20" else d for d in BASE]
    w0 = office.add("hq", 0, Week(BASE))
    w1 = office.add("hq", 1, Week(more))
    office.act(lambda s, r: annotations.accept(s, r, Key("node-role", w0, "10.9.0.20"), actor=BOB))
    v = verdict(office, w1, "node-role", "10.9.0.20")
    assert v.stale_since and any("tcp/21 new (frame" in n for n in v.notes)
    with office.db.session() as s:
        events = read.change_documents(s, networks.find_network(s, "hq").id, w1)
    assert any(e.kind == "new-service" and e.entity_key == "mac-00-11-22-00-00-20" and "tcp/21" in e.summary
               for e in events)


def test_arp_spoofing_appearing_later_is_a_change(office):
    office.network("hq")
    w0 = office.add("hq", 0, Week(BASE))
    w1 = office.add("hq", 1, Week(BASE, spoof=("10.9.0.11", "66:66:66:00:00:01")))
    with office.db.session() as s:
        events = read.change_documents(s, networks.find_network(s, "hq").id, w1)
    spoof = next(e for e in events if e.kind == "address-moved" and e.entity_key == "10.9.0.11")
    assert "66:66:66:00:00:01" in spoof.summary and spoof.severity == "high" and spoof.frames
    assert any(e.kind == "new-finding" for e in events)
    assert w0 not in {e.capture_id for e in events}


def test_a_randomised_mac_is_followed_by_dhcp_hostname_and_client_id(office):
    office.network("hq")
    w0 = office.add("hq", 0, Week(BASE))
    roamed = [Device("10.9.0.31", "02:bb:00:00:00:02", dhcp_name="alice-laptop", client_id=b"alice-laptop-1")
              if d.ip == "10.9.0.30" else d for d in BASE]
    w1 = office.add("hq", 1, Week(roamed))
    override(office, w0, "host-identity", "10.9.0.30", "Laptop")
    v = verdict(office, w1, "host-identity", "10.9.0.31")
    assert v.primary_label == "Laptop" and v.override.actor == "alice"
    note = next(n for n in v.notes if n.startswith("carried from"))
    assert "DHCP hostname alice-laptop" in note and "client id" in note and "randomised" in note
    assert verdict(office, w1, "host-identity", "10.9.0.30") is None


def test_reordering_and_deleting_captures_recompute_what_is_carried(office):
    office.network("hq")
    w2 = office.add("hq", 2, Week(BASE))
    w0 = office.add("hq", 0, Week(BASE))  # uploaded later, but its packets come first
    with office.db.session() as s:
        order = [c.id for c in read.network_detail(s, networks.find_network(s, "hq")).capture_list]
    assert order == [w0, w2]
    override(office, w2, "host-identity", GW, "Router")
    assert verdict(office, w0, "host-identity", GW).basis != Basis.HUMAN  # never carried backwards
    override(office, w0, "host-identity", GW, "Gateway", actor=BOB)
    w1 = office.add("hq", 1, Week(BASE))  # lands between them
    assert verdict(office, w1, "host-identity", GW).primary_label == "Gateway"
    assert verdict(office, w2, "host-identity", GW).primary_label == "Router"  # week 2's own stays
    # deleting the origin: its answer becomes the next capture's own, nothing a human wrote lost
    office.act(lambda s, r: annotations.delete_capture(s, office.settings.capture_dir, w0, actor=SYSTEM_ACTOR,
                                                       registry=r))
    v1 = verdict(office, w1, "host-identity", GW)
    assert (v1.primary_label, v1.override.actor) == ("Gateway", "bob") and v1.notes == ()
    with office.db.session() as s:
        assert s.scalar(select(HumanOverride).where(HumanOverride.capture_id == w1)).carried_from is None
    # removing a capture from the network withdraws what was carried into it
    office.act(lambda s, r: networks.remove_capture(s, r, networks.find_network(s, "hq"), w2, actor=SYSTEM_ACTOR))
    assert verdict(office, w2, "host-identity", GW).override.actor == "alice"  # its own answer stays


def test_two_networks_with_overlapping_addresses_do_not_mix(office):
    office.network("hq")
    office.network("branch")
    other = [replace(d, mac=d.mac.replace("00:11:22", "00:33:44")) for d in BASE]
    h0, h1 = office.add("hq", 0, Week(BASE)), office.add("hq", 1, Week(BASE))
    b0, b1 = office.add("branch", 0, Week(other), "b"), office.add("branch", 1, Week(other, upstream="203.0.113.9"), "b")
    override(office, h0, "host-identity", GW, "Router")
    assert verdict(office, h1, "host-identity", GW).primary_label == "Router"
    for cid in (b0, b1):
        assert verdict(office, cid, "host-identity", GW).basis != Basis.HUMAN
    with office.db.session() as s:
        hq, branch = networks.find_network(s, "hq"), networks.find_network(s, "branch")
        assert {e.capture_id for e in read.change_documents(s, hq.id)} <= {h1}
        changes = read.change_documents(s, branch.id)
    assert {e.capture_id for e in changes} == {b1}
    gateway = next(e for e in changes if e.kind == "gateway-changed")
    assert "203.0.113.9" in gateway.summary and gateway.frames


def test_a_capture_without_a_network_is_untouched(office):
    lone = office.add(None, 0, Week(BASE))
    v = override(office, lone, "host-identity", GW, "Router")
    assert v.notes == () and v.primary_label == "Router"


def test_search_finds_a_mac_on_its_own_device_not_on_routed_addresses(office):
    w0 = office.add(None, 0, Week(BASE))
    with office.db.session() as s:
        hits = read.search(s, ROUTER[1].upper())
    assert [(h.ip, h.capture_id) for h in hits] == [(GW, w0)]
    assert {f.matched for f in hits[0].matched} == {"mac"}
