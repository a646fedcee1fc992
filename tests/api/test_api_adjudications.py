"""Verdicts and human actions over HTTP, through the same annotation services as the CLI:
override, evidence, dismissals, accept, the trail, and each refusal."""

from __future__ import annotations

import pytest
from api_helpers import DNS_DEVICE, DNS_SERVER, WORKSTATION, assert_error

from sqlalchemy import select

from tracepcap.adjudicate.registry import get_registry
from tracepcap.store.models import VerdictRow


@pytest.fixture
def base(dns_capture) -> str:
    return f"/captures/{dns_capture}/adjudications/host-identity"


def test_verdicts_are_the_stored_documents(client, dns_capture, base, db):
    listed = client.get(base)
    assert listed.status_code == 200
    with db.session() as s:
        stored = {row.entity_key: row.document for row in s.scalars(select(VerdictRow).where(
            VerdictRow.capture_id == dns_capture, VerdictRow.question == "host-identity"))}
    assert listed.headers["x-total-count"] == str(len(stored)) == str(len(listed.json()))
    assert {v["entity_key"]: v for v in listed.json()} == stored
    one = client.get(f"{base}/{DNS_SERVER}").json()
    assert one == stored["mac-52-54-00-aa-00-01"]  # its device's (issue 11): the shape of analyze --json, exactly
    assert (one["primary_label"], one["basis"], one["contested"]) == ("DNS Server", "MACHINE", False)
    assert one["candidates"][0]["reasons"]
    assert client.get(base, params={"offset": 1, "limit": 2}).json() == listed.json()[1:3]


def test_unknown_question_capture_or_entity_is_404_naming_it(client, dns_capture, base):
    known = ", ".join(a.question for a in get_registry())
    assert_error(client.get(f"/captures/{dns_capture}/adjudications/os-familee"), 404, "not_found",
                 f"unknown question 'os-familee'; known questions: {known}")
    assert_error(client.put(f"/captures/{dns_capture}/adjudications/os-familee/{DNS_SERVER}/override",
                            json={"label": "x", "rationale": "y"}), 404, "not_found", "unknown question 'os-familee'")
    assert_error(client.get(f"/captures/deadbeef/adjudications/host-identity/{DNS_SERVER}"), 404, "not_found",
                 "no capture with id, prefix or sha256 'deadbeef'")
    for response in (client.get(f"{base}/10.9.9.9"), client.get(f"{base}/10.9.9.9/trail"),
                     client.get(f"{base}/10.9.9.9/evidence"),
                     client.put(f"{base}/10.9.9.9/override", json={"label": "x", "rationale": "y"}),
                     client.post(f"{base}/10.9.9.9/evidence", json={"label": "x", "weight": 5, "reason": "y"}),
                     client.post(f"{base}/10.9.9.9/dismissals", json={"label": "x", "reason": "y"})):
        assert_error(response, 404, "not_found", f"no host or device '10.9.9.9' in capture {dns_capture}")


def test_override_set_then_cleared(client, base):
    url = f"{base}/{DNS_SERVER}/override"
    verdict = client.put(url, json={"label": "Router", "rationale": "the network diagram"}).json()
    assert (verdict["primary_label"], verdict["basis"], verdict["confidence"]) == ("Router", "HUMAN", 100)
    assert verdict["override"]["actor"] == "system" and verdict["override"]["rationale"] == "the network diagram"
    assert verdict["candidates"][0]["label"] == "DNS Server"  # the machine still explains itself
    assert client.get(f"{base}/{DNS_SERVER}").json() == verdict
    cleared = client.delete(url).json()
    assert (cleared["primary_label"], cleared["basis"], cleared["override"]) == ("DNS Server", "MACHINE", None)
    assert_error(client.delete(url), 404, "not_found", f"no override on host-identity for {DNS_DEVICE}")


BAD_OVERRIDES = [
    ({"label": "Router"}, "rationale", "missing"),
    ({"label": "", "rationale": "r"}, "label", "string_too_short"),
    ({"label": "   ", "rationale": "r"}, "label", "string_too_short"),
    ({"label": "x" * 101, "rationale": "r"}, "label", "string_too_long"),
    ({"label": 7, "rationale": "r"}, "label", "string_type"),
]


def test_override_validation_names_field_and_rule(client, base):
    for body, field, rule in BAD_OVERRIDES:
        error = assert_error(client.put(f"{base}/{DNS_SERVER}/override", json=body), 422, "validation_error", field)
        assert {"location": "body", "field": field, "rule": rule}.items() <= error["details"]["problems"][0].items()
    assert client.get(f"{base}/{DNS_SERVER}/trail").json() == []  # nothing recorded


def test_override_body_must_be_json(client, base):
    response = client.put(f"{base}/{DNS_SERVER}/override", content=b"label=Router",
                          headers={"Content-Type": "text/plain"})
    assert_error(response, 422, "validation_error")


def test_evidence_add_list_edit_delete(client, base):
    url = f"{base}/{WORKSTATION}/evidence"
    created = client.post(url, json={"label": "workstation", "weight": 40, "reason": "asset tag WS-20"})
    assert created.status_code == 201
    evidence, verdict = created.json()["evidence"], created.json()["verdict"]
    assert (evidence["label"], evidence["weight"], evidence["actor"]) == ("workstation", 40, "system")
    assert verdict["primary_label"] == "Workstation"
    assert verdict["candidates"][0]["reasons"] == ["[analyst-provided by system] asset tag WS-20 (+40)"]
    assert verdict["candidates"][0]["votes"][0]["author"] == "system"
    assert [e["id"] for e in client.get(url).json()] == [evidence["id"]]

    edited = client.put(f"{url}/{evidence['id']}", json={"weight": 60}).json()
    assert edited["evidence"]["weight"] == 60 and edited["verdict"]["candidates"][0]["score"] == 60
    assert edited["evidence"]["reason"] == "asset tag WS-20"  # untouched fields stay
    after = client.delete(f"{url}/{evidence['id']}").json()
    assert after["primary_label"] == "Unknown" and client.get(url).json() == []
    assert_error(client.delete(f"{url}/{evidence['id']}"), 404, "not_found", f"no evidence {evidence['id']}")
    assert_error(client.put(f"{url}/999999", json={"weight": 5}), 404, "not_found", "no evidence 999999")


BAD_EVIDENCE = [
    ({"label": "Router", "weight": 140, "reason": "r"}, "weight", "less_than_equal"),
    ({"label": "Router", "weight": 0, "reason": "r"}, "weight", "greater_than_equal"),
    ({"label": "Router", "weight": "40", "reason": "r"}, "weight", "int_type"),
    ({"label": "Router", "weight": 40.5, "reason": "r"}, "weight", "int_type"),
    ({"label": "Router", "weight": 40, "reason": " "}, "reason", "string_too_short"),
    ({"label": "Router", "weight": 40}, "reason", "missing"),
]


def test_invalid_evidence_is_422_with_field_and_rule(client, base):
    url = f"{base}/{DNS_SERVER}/evidence"
    for body, field, rule in BAD_EVIDENCE:
        error = assert_error(client.post(url, json=body), 422, "validation_error", field)
        assert {"location": "body", "field": field, "rule": rule}.items() <= error["details"]["problems"][0].items()
    eid = client.post(url, json={"label": "Router", "weight": 5, "reason": "r"}).json()["evidence"]["id"]
    for body, field, rule in BAD_EVIDENCE[:5]:
        error = assert_error(client.put(f"{url}/{eid}", json=body), 422, "validation_error", field)
        assert {"field": field, "rule": rule}.items() <= error["details"]["problems"][0].items()
    assert_error(client.put(f"{url}/{eid}", json={"actor": "mallory"}), 422, "validation_error",
                 "give at least one of label, weight, reason")
    assert [e["action"] for e in client.get(f"{base}/{DNS_SERVER}/trail").json()] == ["evidence.added"]


def test_evidence_under_other_coordinates_is_404_not_403(client, base, dns_capture):
    evidence = client.post(f"{base}/{DNS_SERVER}/evidence",
                           json={"label": "Router", "weight": 10, "reason": "x"}).json()["evidence"]
    elsewhere = [f"{base}/{WORKSTATION}/evidence/{evidence['id']}",
                 f"/captures/{dns_capture}/adjudications/os-family/{DNS_SERVER}/evidence/{evidence['id']}"]
    for url in elsewhere:
        assert_error(client.put(url, json={"weight": 5}), 404, "not_found", f"no evidence {evidence['id']}")
        assert_error(client.delete(url), 404, "not_found", f"no evidence {evidence['id']}")
    assert_error(client.put(f"{base}/{DNS_SERVER}/evidence/abc", json={"weight": 5}), 422, "validation_error",
                 "evidence_id")


def test_dismiss_and_take_back(client, base):
    url = f"{base}/{DNS_SERVER}/dismissals"
    verdict = client.post(url, json={"label": "dns server", "reason": "it only forwards"}).json()
    assert verdict["primary_label"] != "DNS Server" and verdict["dismissed"] == ["DNS Server"]
    dismissed = next(c for c in verdict["candidates"] if c["label"] == "DNS Server")
    assert dismissed["dismissed"]["by"] == "system" and dismissed["dismissed"]["reason"] == "it only forwards"
    assert_error(client.post(url, json={"label": "DNS Server", "reason": "again"}), 422, "invalid_annotation",
                 "already dismissed")
    back = client.delete(f"{url}/DNS Server").json()
    assert back["primary_label"] == "DNS Server" and back["dismissed"] == []
    assert_error(client.delete(f"{url}/DNS Server"), 404, "not_found", "is not dismissed")
    assert_error(client.post(url, json={"label": "Router"}), 422, "validation_error", "reason")


def test_dismissed_label_with_a_slash(client, base):
    url = f"{base}/{DNS_SERVER}/dismissals"
    assert client.post(url, json={"label": "NAS/SAN", "reason": "no storage here"}).status_code == 200
    assert client.delete(f"{url}/NAS%2FSAN").json()["dismissed"] == []


def test_accept_the_machine_suggestion(client, dns_capture):
    url = f"/captures/{dns_capture}/adjudications/node-role/192.168.1.53"
    suggested = client.get(url).json()
    assert suggested["basis"] != "HUMAN" and suggested["primary_label"]
    accepted = client.post(f"{url}/accept").json()
    assert (accepted["primary_label"], accepted["basis"]) == (suggested["primary_label"], "HUMAN")
    assert accepted["override"]["rationale"] == "accepted suggestion"
    assert_error(client.post(f"{url}/accept"), 422, "invalid_annotation", "nothing to accept")


def test_trail_is_every_action_oldest_first(client, base):
    entity = f"{base}/{DNS_SERVER}"
    client.put(f"{entity}/override", json={"label": "Router", "rationale": "r1"})
    client.put(f"{entity}/override", json={"label": "Firewall", "rationale": "r2", "actor": "mallory"})
    client.delete(f"{entity}/override")
    added = client.post(f"{entity}/evidence", json={"label": "Router", "weight": 5, "reason": "e"})
    eid = added.json()["evidence"]["id"]
    client.put(f"{entity}/evidence/{eid}", json={"reason": "e2"})
    client.delete(f"{entity}/evidence/{eid}")
    client.post(f"{entity}/dismissals", json={"label": "Router", "reason": "no"})
    client.delete(f"{entity}/dismissals/Router")
    trail = client.get(f"{entity}/trail").json()
    assert [e["action"] for e in trail] == ["override.set", "override.set", "override.cleared", "evidence.added",
                                            "evidence.edited", "evidence.deleted", "dismissal.added",
                                            "dismissal.removed"]
    assert {e["actor"] for e in trail} == {"system"}  # a body's "actor" is ignored
    assert [e["id"] for e in trail] == sorted(e["id"] for e in trail)
    assert trail[1]["before"]["label"] == "Router" and trail[1]["after"]["label"] == "Firewall"
    assert set(trail[0]) >= {"id", "at", "actor", "action", "question", "entity_key", "before", "after"}
    assert trail[0]["question"] == "host-identity" and trail[0]["entity_key"] == DNS_DEVICE
