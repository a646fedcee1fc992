"""Auth against a real OIDC issuer on loopback (Keycloak's layout, its own RSA and EC keys):
what verifies, what never does, who the actor is, what each role may do."""

from __future__ import annotations

import time

import httpx
import pytest
from api_helpers import DNS_DEMO, DNS_SERVER, assert_error
from oidc_issuer import AUDIENCE, CERTS, Issuer
from sqlalchemy import select

from tracepcap.settings import Settings
from tracepcap.store.models import AuditEvent


def placeholder(path: str) -> str:
    return (path.replace("{cid}", "abc").replace("{question}", "host-identity").replace("{entity}", "10.0.0.1")
            .replace("{ip}", "10.0.0.1").replace("{evidence_id}", "1").replace("{label}", "x"))


def test_every_route_but_health_needs_a_token(oidc, issuer):
    with oidc.client() as client:
        assert client.get("/health").json()["status"] == "ok"
        paths = client.get("/openapi.json").json()["paths"]
        checked = 0
        for path, operations in paths.items():
            for method in operations:
                if path == "/api/health":
                    continue
                response = client.request(method.upper(), placeholder(path).removeprefix("/api"), json={})
                assert_error(response, 401, "unauthenticated", "a bearer token is required")
                assert response.headers["www-authenticate"] == 'Bearer realm="tracepcap"'
                checked += 1
        assert checked >= 21
        assert_error(client.get("/me", headers={"Authorization": "Basic YWxpY2U6eA=="}), 401, "unauthenticated")


@pytest.mark.parametrize("key", ["rsa", "ec"])
def test_a_valid_token_names_the_actor_and_roles(oidc, issuer, key):
    with oidc.client(issuer.token("alice", ("analyst",), key=key)) as client:
        assert client.get("/me").json() == {"actor": "alice", "authenticated": True, "roles": ["analyst", "viewer"]}


def test_actor_falls_back_to_sub(oidc, issuer):
    token = issuer.token(None, ("viewer",), sub="f3a1-subject")
    with oidc.client(token) as client:
        assert client.get("/me").json()["actor"] == "f3a1-subject"


def test_expiry_has_a_small_leeway(oidc, issuer):
    now = int(time.time())
    with oidc.client(issuer.token(exp=now - 10, iat=now - 310)) as client:  # leeway is 30 s
        assert client.get("/me").status_code == 200


@pytest.mark.parametrize("make, message", [
    (lambda i: i.token(exp=int(time.time()) - 120, iat=int(time.time()) - 420), "token expired"),
    (lambda i: i.token(nbf=int(time.time()) + 600), "not valid yet"),
    (lambda i: i.token(iss="http://127.0.0.1:1/realms/other"), "token issuer is not"),
    (lambda i: i.token(aud="another-api"), f"audience does not include {AUDIENCE}"),
    (lambda i: i.token(exp=None), 'missing the "exp" claim'),
    (lambda i: i.unsigned_token(), "algorithm 'none' is not allowed"),
    (lambda i: i.hs256_with_public_key(), "algorithm 'HS256' is not allowed"),
    (lambda i: i.foreign_token(), "Signature verification failed"),
    (lambda i: i.token(kid="made-up"), "key id 'made-up' is not one of the issuer's keys"),
    (lambda i: "not.a.token", "malformed token"),
    (lambda i: i.token()[:-4] + "AAAA", "Signature verification failed"),
])
def test_tokens_that_never_verify(oidc, issuer, make, message):
    with oidc.client(make(issuer)) as client:
        response = client.get("/me")
        assert_error(response, 401, "unauthenticated", message)
        challenge = response.headers["www-authenticate"]
        assert challenge.startswith('Bearer realm="tracepcap", error="invalid_token"')


def test_unknown_kid_refetches_the_keys_once_then_rotation_works(serve):
    with Issuer() as issuer:
        api = serve(auth="oidc", oidc_issuer=issuer.url, oidc_audience=AUDIENCE,
                    oidc_jwks_min_refresh_seconds=60)
        old = issuer.token("alice")
        with api.client(old) as client:
            assert client.get("/me").status_code == 200
        assert issuer.hits[CERTS] == 1
        issuer.rotate()
        with api.client(issuer.token("alice")) as client:  # signed with a kid the server never saw
            assert client.get("/me").json()["actor"] == "alice"
            assert client.get("/me").status_code == 200
        assert issuer.hits[CERTS] == 2  # one refetch for the new kid
        for token in (old, issuer.token(kid="bogus-1"), issuer.token(kid="bogus-2")):
            with api.client(token) as client:
                assert_error(client.get("/me"), 401, "unauthenticated", "is not one of the issuer's keys")
        assert issuer.hits[CERTS] == 2  # unknown kids within the interval cost the issuer nothing
        assert issuer.hits["/realms/tracepcap/.well-known/openid-configuration"] == 1


def test_issuer_unreachable_is_503(serve, issuer):
    api = serve(auth="oidc", oidc_issuer="http://127.0.0.1:9/realms/tracepcap", oidc_audience=AUDIENCE,
                oidc_http_timeout_seconds=2)
    with api.client(issuer.token()) as client:
        assert_error(client.get("/me"), 503, "auth_unavailable", "cannot read the discovery document")


@pytest.fixture
def alice_capture(oidc, issuer, captures) -> str:
    with oidc.client(issuer.token("alice", ("analyst",))) as client:
        return oidc.analyzed(client, captures / DNS_DEMO)


def test_forged_actor_headers_and_body_fields_are_ignored(oidc, issuer, alice_capture, db):
    forged = {"X-Actor": "mallory", "X-Forwarded-User": "mallory", "X-Remote-User": "mallory",
              "X-Auth-Request-Preferred-Username": "mallory", "Remote-User": "mallory"}
    entity = f"/captures/{alice_capture}/adjudications/host-identity/{DNS_SERVER}"
    with oidc.client(issuer.token("alice"), **forged) as client:
        verdict = client.put(f"{entity}/override", json={"label": "Router", "rationale": "r", "actor": "mallory"})
        assert verdict.json()["override"]["actor"] == "alice"
        evidence = client.post(f"{entity}/evidence", json={"label": "Router", "weight": 5, "reason": "r",
                                                           "actor": "mallory", "author": "mallory"})
        assert evidence.json()["evidence"]["actor"] == "alice"
        assert [e["actor"] for e in client.get(f"{entity}/trail").json()] == ["alice", "alice"]
        assert client.get(f"/captures/{alice_capture}").json()["uploaded_by"] == "alice"
    with db.session() as s:
        assert set(s.scalars(select(AuditEvent.actor))) == {"alice"}


def test_roles_viewer_reads_analyst_writes_admin_deletes(oidc, issuer, alice_capture, db, captures):
    entity = f"/captures/{alice_capture}/adjudications/host-identity/{DNS_SERVER}"
    with oidc.client(issuer.token("victor", ("viewer",))) as viewer:
        assert viewer.get(f"/captures/{alice_capture}/hosts").status_code == 200
        assert viewer.get(entity).status_code == 200
        assert_error(viewer.put(f"{entity}/override", json={"label": "Router", "rationale": "r"}), 403,
                     "forbidden", "victor may not PUT", "the analyst role is required")
        assert_error(viewer.post(f"{entity}/evidence", json={"label": "Router", "weight": 5, "reason": "r"}),
                     403, "forbidden")
        assert_error(oidc.upload(viewer, captures / "ftp.pcap"), 403, "forbidden")
        assert_error(viewer.delete(f"/captures/{alice_capture}"), 403, "forbidden", "the admin role is required")
        assert viewer.get(entity).json()["override"] is None  # the refusals changed nothing ...
        assert [(e["actor"], e["action"]) for e in viewer.get(f"{entity}/trail").json()] == [
            ("victor", "access.denied")] * 2
    with db.session() as s:  # ... but each was recorded, with who tried what
        denied = s.scalars(select(AuditEvent).where(AuditEvent.action == "access.denied")
                           .order_by(AuditEvent.id)).all()
    assert [(e.actor, e.after["method"], e.after["required_role"]) for e in denied] == [
        ("victor", "PUT", "analyst"), ("victor", "POST", "analyst"), ("victor", "POST", "analyst"),
        ("victor", "DELETE", "admin")]
    assert (denied[0].capture_id, denied[0].question, denied[0].entity_key) == (
        alice_capture, "host-identity", DNS_SERVER)
    with oidc.client(issuer.token("alice", ("analyst",))) as analyst:
        assert analyst.put(f"{entity}/override", json={"label": "Router", "rationale": "r"}).status_code == 200
        assert_error(analyst.delete(f"/captures/{alice_capture}"), 403, "forbidden")
    with oidc.client(issuer.token("nobody", ())) as nobody:
        assert nobody.get("/me").json()["roles"] == []
        assert_error(nobody.get("/captures"), 403, "forbidden", "the viewer role is required")
    with oidc.client(issuer.token("ada", ("admin",))) as admin:
        assert admin.get("/me").json()["roles"] == ["admin", "analyst", "viewer"]
        assert admin.delete(f"/captures/{alice_capture}").status_code == 204
    with db.session() as s:
        deleted = s.scalars(select(AuditEvent).where(AuditEvent.action == "capture.deleted")).one()
    assert deleted.actor == "ada" and deleted.capture_id == alice_capture


def test_only_the_author_edits_or_deletes_evidence(oidc, issuer, alice_capture):
    url = f"/captures/{alice_capture}/adjudications/host-identity/{DNS_SERVER}/evidence"
    with oidc.client(issuer.token("alice")) as alice, oidc.client(issuer.token("bob")) as bob:
        eid = alice.post(url, json={"label": "Router", "weight": 30, "reason": "mine"}).json()["evidence"]["id"]
        assert_error(bob.put(f"{url}/{eid}", json={"weight": 90}), 403, "not_author",
                     f"evidence {eid} was added by alice")
        assert_error(bob.delete(f"{url}/{eid}"), 403, "not_author")
        assert alice.put(f"{url}/{eid}", json={"weight": 35}).json()["evidence"]["weight"] == 35
        assert alice.delete(f"{url}/{eid}").status_code == 200
        assert [e["actor"] for e in bob.get(f"{url[:-len('/evidence')]}/trail").json()] == ["alice"] * 3


def test_roles_claim_path_is_configurable(serve, issuer):
    api = serve(auth="oidc", oidc_issuer=issuer.url, oidc_audience=AUDIENCE,
                oidc_roles_claim="resource_access.tracepcap-api.roles")
    token = issuer.token("carol", (), resource_access={"tracepcap-api": {"roles": ["analyst"]}})
    with api.client(token) as client:
        assert client.get("/me").json()["roles"] == ["analyst", "viewer"]
    with api.client(issuer.token("dave", ("admin",))) as client:  # realm roles no longer count
        assert client.get("/me").json()["roles"] == []


def test_the_web_login_client_comes_from_settings(serve, issuer, monkeypatch):
    def login_page(**overrides) -> str:
        url = serve(auth="oidc", oidc_issuer=issuer.url, oidc_audience=AUDIENCE, **overrides).url
        with httpx.Client() as http:
            return http.get(f"{url}/").text
    assert 'data-client-id="tracepcap-web"' in login_page()  # the shipped realm's public client
    monkeypatch.setenv("TRACEPCAP_OIDC_CLIENT_ID", "inventory-ui")
    assert Settings().oidc_client_id == "inventory-ui"  # no longer ignored
    assert 'data-client-id="inventory-ui"' in login_page(oidc_client_id="inventory-ui")
