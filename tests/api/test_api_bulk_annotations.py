"""POST /api/captures/{cid}/annotations:bulk (issue 23, item 8): overrides, evidence and
dismissals from CSV or JSON in one transaction, each row audited as the token's actor,
all or nothing with every bad row named."""

from __future__ import annotations

import pytest
from api_helpers import DNS_DEMO, DNS_DEVICE, DNS_SERVER, WORKSTATION, assert_error
from sqlalchemy import func, select

from tracepcap.store.models import AuditEvent, Dismissal, HumanOverride, ManualEvidence, VerdictRow

ROUTE = "/captures/{cid}/annotations:bulk"


def _counts(db) -> tuple[int, int, int, int]:
    with db.session() as s:
        return tuple(s.scalar(select(func.count()).select_from(m))
                     for m in (HumanOverride, ManualEvidence, Dismissal, AuditEvent))


def _verdict(client, cid, entity, question="host-identity"):
    return client.get(f"/captures/{cid}/adjudications/{question}/{entity}").json()


def test_json_rows_apply_in_one_go_and_each_is_audited(api, client, dns_capture):
    rows = [{"kind": "override", "entity": DNS_SERVER, "label": "Router", "rationale": "asset list"},
            {"kind": "evidence", "entity": WORKSTATION, "label": "Printer", "weight": 30, "reason": "asset tag"},
            {"kind": "dismissal", "entity": WORKSTATION, "label": "Router", "reason": "not a router"},
            {"kind": "override", "question": "hostname", "entity": WORKSTATION, "label": "ws-20",
             "reason": "inventory"}]
    r = client.post(ROUTE.format(cid=dns_capture), json=rows)
    assert r.status_code == 200, r.text
    assert r.json() == {"rows": 4, "overrides": 2, "evidence": 1, "dismissals": 1, "keys_readjudicated": 3}
    # the verdicts are re-adjudicated: the override answers, the evidence races, the dismissal shows
    server = _verdict(client, dns_capture, DNS_SERVER)
    assert server["primary_label"] == "Router" and server["basis"] == "HUMAN"
    assert server["override"]["rationale"] == "asset list"
    workstation = _verdict(client, dns_capture, WORKSTATION)
    assert "Printer" in [c["label"] for c in workstation["candidates"]]
    assert "Router" in workstation["dismissed"]
    assert _verdict(client, dns_capture, WORKSTATION, "hostname")["primary_label"] == "ws-20"
    # one audit event per row, in the store and in each key's trail
    with api.db.session() as s:
        actions = sorted(s.scalars(select(AuditEvent.action)))
    assert actions == ["dismissal.added", "evidence.added", "override.set", "override.set"]
    trail = client.get(f"/captures/{dns_capture}/adjudications/host-identity/{WORKSTATION}/trail").json()
    assert sorted(e["action"] for e in trail) == ["dismissal.added", "evidence.added"]


def test_csv_rows_with_a_header_name_entities_by_any_of_their_names(api, client, dns_capture):
    csv = ("kind,question,entity,label,reason,weight\r\n"
           f"override,host-identity,{DNS_DEVICE},Router,\"from the CMDB, row 1\",\r\n"
           "\r\n"
           f"evidence,,{WORKSTATION},Printer,seen on the label,55\r\n")
    r = client.post(ROUTE.format(cid=dns_capture), content=csv.encode(), headers={"Content-Type": "text/csv"})
    assert r.status_code == 200, r.text
    assert r.json()["overrides"] == 1 and r.json()["evidence"] == 1
    verdict = _verdict(client, dns_capture, DNS_SERVER)  # the device, named by its address
    assert verdict["override"]["rationale"] == "from the CMDB, row 1"
    with api.db.session() as s:
        assert s.scalar(select(ManualEvidence.weight)) == 55


def test_one_bad_row_refuses_all_and_every_bad_row_is_named(api, client, dns_capture):
    before = _counts(api.db)
    verdict_before = _verdict(client, dns_capture, DNS_SERVER)
    rows = [{"kind": "override", "entity": DNS_SERVER, "label": "Router", "rationale": "fine"},
            {"kind": "evidence", "entity": WORKSTATION, "label": "Printer", "weight": 500, "reason": "too heavy"},
            {"kind": "override", "entity": "10.99.99.99", "label": "Router", "rationale": "no such host"},
            {"kind": "teleport", "entity": DNS_SERVER, "label": "Router", "reason": "x"},
            {"kind": "dismissal", "entity": WORKSTATION, "label": "Router", "reason": ""},
            "not an object",
            {"kind": "dismissal", "entity": WORKSTATION, "label": "Printer", "reason": "no"},
            {"kind": "dismissal", "entity": WORKSTATION, "label": "printer", "reason": "twice in one file"}]
    r = client.post(ROUTE.format(cid=dns_capture), json={"rows": rows})
    body = assert_error(r, 422, "bulk_rejected", "6 of 8 rows refused, nothing was applied")
    problems = body["details"]["problems"]
    assert [p["row"] for p in problems] == [2, 3, 4, 5, 6, 8]
    messages = {p["row"]: p["message"] for p in problems}
    assert "1..100" in messages[2] and "10.99.99.99" in messages[3] and "teleport" in messages[4]
    assert "reason" in messages[5] and "object" in messages[6] and "already dismissed" in messages[8]
    assert _counts(api.db) == before  # not even the good rows
    assert _verdict(client, dns_capture, DNS_SERVER) == verdict_before


def test_a_failure_while_applying_rolls_every_row_back(api, client, dns_capture, monkeypatch):
    from tracepcap.adjudicate.annotations import bulk
    before = _counts(api.db)
    with api.db.session() as s:
        verdicts_before = sorted((v.entity_key, v.question, v.primary_label) for v in s.scalars(select(VerdictRow)))

    def explode(*_a, **_k):
        raise RuntimeError("the store failed half way")
    monkeypatch.setattr(bulk, "rerun_many", explode)
    rows = [{"kind": "override", "entity": DNS_SERVER, "label": "Router", "rationale": "r"},
            {"kind": "evidence", "entity": WORKSTATION, "label": "Printer", "weight": 5, "reason": "r"}]
    r = client.post(ROUTE.format(cid=dns_capture), json=rows)
    assert r.status_code == 500
    assert _counts(api.db) == before
    with api.db.session() as s:
        assert sorted((v.entity_key, v.question, v.primary_label) for v in s.scalars(select(VerdictRow))) == \
            verdicts_before


@pytest.mark.parametrize("content, content_type, status, code", [
    (b"<rows/>", "application/xml", 415, "unsupported_bulk_format"),
    (b"[", "application/json", 400, "usage_error"),
    (b"[]", "application/json", 400, "usage_error"),
    (b"[" * 100_000 + b"]" * 100_000, "application/json", 422, "validation_error"),  # refused before parsing
    (b"label,reason\nRouter,x\n", "text/csv", 400, "usage_error"),
    (b"kind,entity\nover\x00ride,x\n", "text/csv", 422, "bulk_rejected"),
    (b"\xff\xfe", "text/csv", 400, "usage_error"),
])
def test_documents_that_are_no_rows_are_refused_with_a_message(client, dns_capture, content, content_type,
                                                               status, code):
    r = client.post(ROUTE.format(cid=dns_capture), content=content, headers={"Content-Type": content_type})
    assert r.status_code == status, r.text
    assert r.json()["error"]["code"] == code and r.json()["error"]["message"]


def test_a_document_over_the_limit_is_413_before_it_is_read(client, dns_capture):
    from tracepcap.adjudicate.annotations.bulk import MAX_BODY_BYTES
    r = client.post(ROUTE.format(cid=dns_capture), content=b" " * (MAX_BODY_BYTES + 1),
                    headers={"Content-Type": "application/json"})
    # the body cap answers first (present/api/body_limit.py), at the bulk service's own limit
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"
    assert str(MAX_BODY_BYTES) in r.json()["error"]["message"]


def test_unknown_capture_is_404(client):
    assert client.post(ROUTE.format(cid="abcdef"), json=[{"kind": "override"}]).status_code == 404


def test_the_actor_is_the_tokens_never_the_documents(oidc, issuer, captures, db):
    with oidc.client(issuer.token("alice", ("analyst",))) as client:
        cid = oidc.analyzed(client, captures / DNS_DEMO)
        rows = [{"kind": "override", "entity": DNS_SERVER, "label": "Router", "rationale": "r", "actor": "mallory"},
                {"kind": "evidence", "entity": DNS_SERVER, "label": "Router", "weight": 5, "reason": "r",
                 "actor": "mallory", "author": "mallory"}]
        r = client.post(ROUTE.format(cid=cid), json=rows, headers={"X-Actor": "mallory"})
        assert r.status_code == 200, r.text
        assert _verdict(client, cid, DNS_SERVER)["override"]["actor"] == "alice"
    with oidc.client(issuer.token("victor", ("viewer",))) as viewer:
        refused = viewer.post(ROUTE.format(cid=cid), json=rows)
        assert refused.status_code == 403
    with db.session() as s:
        events = s.execute(select(AuditEvent.action, AuditEvent.actor)).all()
        assert sorted(a for a, who in events if who == "alice") == ["evidence.added", "override.set"]
        assert {who for _a, who in events} == {"alice", "victor"}  # victor: only his refusal
        assert s.scalar(select(ManualEvidence.actor)) == "alice"
