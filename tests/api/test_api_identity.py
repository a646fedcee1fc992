"""Who acts, with auth on: authorship follows the token's stable subject (issuer and sub), not
the name it shows; a user named "system" is not the system; refused writes are recorded
without growing the audit log without bound; a token's header is never echoed at length
(SQLite and PostgreSQL, against the loopback issuer)."""

from __future__ import annotations

import pytest
from api_helpers import DNS_DEMO, DNS_SERVER, assert_error
from sqlalchemy import select, update

from tracepcap.adjudicate import annotations
from tracepcap.adjudicate.actor import SYSTEM_ACTOR
from tracepcap.adjudicate.contract import Key
from tracepcap.adjudicate.registry import get_registry
from tracepcap.store.models import AccessDenial, AuditEvent


@pytest.fixture
def capture(oidc, issuer, captures) -> str:
    with oidc.client(issuer.token("alice", ("analyst",))) as client:
        return oidc.analyzed(client, captures / DNS_DEMO)


@pytest.fixture
def entity(capture) -> str:
    return f"/captures/{capture}/adjudications/host-identity/{DNS_SERVER}"


def test_authorship_follows_the_subject_not_the_name(oidc, issuer, entity):
    alice_sub = issuer.claims("alice")["sub"]
    with oidc.client(issuer.token("alice")) as alice:
        eid = alice.post(f"{entity}/evidence", json={"label": "Router", "weight": 30, "reason": "mine"}
                         ).json()["evidence"]["id"]
    with oidc.client(issuer.token("alice", sub="someone-else")) as namesake:  # same name, another person
        assert_error(namesake.put(f"{entity}/evidence/{eid}", json={"weight": 90}), 403, "not_author",
                     f"evidence {eid} was added by alice")
        assert_error(namesake.delete(f"{entity}/evidence/{eid}"), 403, "not_author")
    with oidc.client(issuer.token("alice.smith", sub=alice_sub)) as renamed:  # same person, new name
        assert renamed.put(f"{entity}/evidence/{eid}", json={"weight": 35}).json()["evidence"]["weight"] == 35
        trail = renamed.get(f"{entity}/trail").json()
    assert [(e["action"], e["actor"], e["actor_subject"]) for e in trail] == [
        ("evidence.added", "alice", f"{issuer.url}#{alice_sub}"),
        ("evidence.edited", "alice.smith", f"{issuer.url}#{alice_sub}")]


def test_a_user_named_system_is_not_the_system(oidc, issuer, capture, entity, db):
    with db.session() as s:  # evidence the system actor gave (auth off, or the CLI)
        evidence, _ = annotations.add_evidence(s, get_registry(), Key("host-identity", capture, DNS_SERVER),
                                               "Router", 20, "from the CLI", actor=SYSTEM_ACTOR)
        eid = evidence.id
    impostor = issuer.token("system", ("analyst",), sub="imp-1")
    with oidc.client(impostor) as client:
        me = client.get("/me").json()
        assert me == {"actor": "system (imp-1)", "authenticated": True, "roles": ["analyst", "viewer"]}
        assert_error(client.delete(f"{entity}/evidence/{eid}"), 403, "not_author", "added by system")
        assert_error(client.delete(f"/captures/{capture}"), 403, "forbidden", "the admin role is required")
        client.put(f"{entity}/override", json={"label": "Router", "rationale": "r"})
        trail = client.get(f"{entity}/trail").json()
    assert [(e["actor"], e["actor_subject"]) for e in trail][-1] == ("system (imp-1)", f"{issuer.url}#imp-1")
    assert trail[0]["actor_subject"] == "system"


def test_refused_writes_add_at_most_one_audit_event_a_minute_per_route(oidc, issuer, entity, db):
    with oidc.client(issuer.token("victor", ("viewer",))) as viewer:
        for _ in range(25):
            assert viewer.put(f"{entity}/override", json={"label": "R", "rationale": "r"}).status_code == 403
        for _ in range(3):
            assert viewer.post(f"{entity}/evidence", json={"label": "R", "weight": 1, "reason": "r"}).status_code == 403
    with db.session() as s:
        denied = s.scalars(select(AuditEvent).where(AuditEvent.action == "access.denied").order_by(AuditEvent.id)).all()
        assert [(e.after["method"], e.after["unrecorded_before"]) for e in denied] == [("PUT", 0), ("POST", 0)]
        assert {(t.method, t.route): t.unrecorded for t in s.scalars(select(AccessDenial))} == {
            ("PUT", "tracepcap.present.api.routes.adjudications.set_override"): 24,
            ("POST", "tracepcap.present.api.routes.adjudications.add_evidence"): 2}
        s.execute(update(AccessDenial).values(recorded_at=denied[0].at.replace(year=2020)))  # a minute passes
    with oidc.client(issuer.token("victor", ("viewer",))) as viewer:
        assert viewer.put(f"{entity}/override", json={"label": "R", "rationale": "r"}).status_code == 403
    with db.session() as s:
        last = s.scalars(select(AuditEvent).where(AuditEvent.action == "access.denied")
                         .order_by(AuditEvent.id.desc())).first()
    assert (last.after["method"], last.after["unrecorded_before"], last.actor) == ("PUT", 24, "victor")
    assert last.after["path"].endswith(f"{DNS_SERVER}/override")


@pytest.mark.parametrize("kid", ["k" * 6000, "a\r\nSet-Cookie: session=stolen", "ключ-\u2028-\x00"])
def test_the_challenge_never_echoes_a_long_or_unprintable_kid(oidc, issuer, kid):
    with oidc.client(issuer.token(kid=kid)) as client:
        response = client.get("/me")
    error = assert_error(response, 401, "unauthenticated", "is not one of the issuer's keys")
    challenge = response.headers["www-authenticate"]
    assert len(challenge) <= 300 and all(" " <= c <= "~" for c in challenge)
    assert "Set-Cookie" not in response.headers and "stolen" not in response.headers.get("set-cookie", "")
    assert len(error["message"]) < 120
