"""Changes of a capture against the one before it (its whole history) read from the rows an analysis stores (entities, their member
names, facts on the members, conversations), written directly: a MAC claiming an address that no
device owns appears as a device of its own; a device's facts on its IPv4 and IPv6 addresses are
one device's; a traffic peak needs both the factor and the floor. SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import count

from tracepcap.adjudicate.networks import baseline, changes
from tracepcap.keys import mac_key
from tracepcap.store.bulk import insert_rows
from tracepcap.store.models import Capture, Conversation, Entity, EntityMember, ObservationRow

DESK, DESK6, DESK_MAC = "10.9.0.10", "2001:db8:9::10", "00:11:22:00:00:10"
SHADOW_MAC, UPSTREAM = "66:66:66:00:00:01", "198.51.100.7"
NUMBERS = count()  # a capture id per capture written, across the tests of one store


def capture(session, n: int, *, shadow: bool = False, upload: int = 0, v6: bool = False) -> Capture:
    cid = f"{0xc0de000000000000 + n:016x}"
    now = datetime.now(UTC)
    session.add(Capture(id=cid, sha256=cid * 4, name=f"week-{n}.pcap", size=1, format="pcap", status="done",
                        packets=1, conversations=1, first_time=1.7e9 + n, last_time=1.7e9 + n, uploaded_at=now,
                        uploaded_by="system", analyzed_at=now))
    session.flush()
    desk, addresses = mac_key(DESK_MAC), [DESK] + ([DESK6] if v6 else [])
    insert_rows(session, Entity, [
        {"capture_id": cid, "key": desk, "position": 0, "ip": DESK, "addresses": addresses, "macs": [DESK_MAC],
         "locality": "on-link", "locality_reason": "test", "randomised": False},
        {"capture_id": cid, "key": UPSTREAM, "position": 1, "ip": UPSTREAM, "addresses": [UPSTREAM], "macs": [],
         "locality": "remote", "locality_reason": "test", "randomised": False}])
    insert_rows(session, EntityMember, [{"capture_id": cid, "member": m, "entity_key": desk}
                                        for m in [desk, *addresses]]
                + [{"capture_id": cid, "member": UPSTREAM, "entity_key": UPSTREAM}])

    def fact(entity, kind, value, frame):
        return {"capture_id": cid, "entity": entity, "kind": kind, "value": value, "source": "test",
                "grade": "MEASURED", "first_frame": frame, "last_frame": frame, "count": 1, "first_time": 1.7e9,
                "last_time": 1.7e9, "extractor": "test", "extractor_version": "1"}
    facts = [fact(a, "ip-mac-binding", DESK_MAC, 1) for a in addresses]
    if v6:
        facts.append(fact(DESK6, "served", "tcp/22", 3))
    if shadow:
        facts.append(fact(DESK, "ip-mac-binding", SHADOW_MAC, 7))
    insert_rows(session, ObservationRow, facts)
    insert_rows(session, Conversation, [{
        "capture_id": cid, "proto": "tcp", "src": DESK, "sport": 40000, "dst": UPSTREAM, "dport": 443,
        "first_time": 1.7e9, "last_time": 1.7e9, "first_frame": 11, "packets_fwd": 5, "bytes_fwd": 1000 + upload,
        "packets_rev": 5, "bytes_rev": 1000, "initiator": DESK}])
    return session.get(Capture, cid)


def events(db, before: dict, after: dict) -> list[dict]:
    with db.session(write=True) as s:
        a, b = capture(s, next(NUMBERS), **before), capture(s, next(NUMBERS), **after)
        history = baseline.History()
        history.add(changes.snapshot(s, a))
        return baseline.changes(history, changes.snapshot(s, b))


def test_a_mac_owning_no_address_but_claiming_one_appears_as_a_device(db):
    found = events(db, {}, {"shadow": True})
    appeared = [e for e in found if e["kind"] == "device-appeared"]
    assert [e["entity_key"] for e in appeared] == [mac_key(SHADOW_MAC)] and appeared[0]["frames"] == [7]
    assert f"claims {DESK}" in appeared[0]["summary"]
    moved = next(e for e in found if e["kind"] == "address-moved")
    assert moved["entity_key"] == DESK and moved["detail"]["device"] == mac_key(DESK_MAC)


def test_a_device_facts_on_its_ipv6_address_are_the_device_s(db):
    found = events(db, {}, {"v6": True})
    served = [e for e in found if e["kind"] == "new-service"]
    assert [e["entity_key"] for e in served] == [mac_key(DESK_MAC)] and "tcp/22" in served[0]["summary"]
    assert DESK6 in served[0]["summary"]
    assert not [e for e in found if e["kind"] == "device-appeared"]


def test_a_traffic_peak_needs_the_factor_and_the_floor(db):
    assert not [e for e in events(db, {}, {"upload": changes.PEAK_FLOOR - 10_000}) if e["kind"] == "traffic-peak"]
    peaks = [e for e in events(db, {"upload": 0}, {"upload": changes.PEAK_FLOOR})
             if e["kind"] == "traffic-peak"]
    assert [(e["entity_key"], e["frames"], e["detail"]["peer"]) for e in peaks] == [(mac_key(DESK_MAC), [11], UPSTREAM)]


def test_over_the_floor_but_under_ten_times_is_no_peak(db):
    found = events(db, {"upload": changes.PEAK_FLOOR}, {"upload": 5 * changes.PEAK_FLOOR})
    assert not [e for e in found if e["kind"] == "traffic-peak"]
