"""The shipped Keycloak realm holds what TracePcap expects of an issuer."""

from __future__ import annotations

import json
from pathlib import Path

from tracepcap.adjudicate.actor import ROLES, roles_from_claims

REALM = Path(__file__).resolve().parents[2] / "deploy" / "keycloak" / "realm-tracepcap.json"


def test_realm_has_roles_clients_audience_and_users():
    realm = json.loads(REALM.read_text())
    assert realm["realm"] == "tracepcap" and realm["enabled"]
    roles = {r["name"]: r for r in realm["roles"]["realm"]}
    assert set(roles) == set(ROLES)
    assert roles["analyst"]["composites"]["realm"] == ["viewer"]
    assert roles["admin"]["composites"]["realm"] == ["analyst"]
    clients = {c["clientId"]: c for c in realm["clients"]}
    web = clients["tracepcap-web"]
    assert web["publicClient"] and web["standardFlowEnabled"] and not web["implicitFlowEnabled"]
    assert not web["directAccessGrantsEnabled"] and web["attributes"]["pkce.code.challenge.method"] == "S256"
    audience = next(m for m in web["protocolMappers"] if m["protocolMapper"] == "oidc-audience-mapper")
    assert audience["config"]["included.client.audience"] == "tracepcap-api"
    assert audience["config"]["access.token.claim"] == "true"
    assert "tracepcap-api" in clients
    users = {u["username"]: u for u in realm["users"]}
    assert len(users) == 2 and all(u["credentials"][0]["temporary"] for u in users.values())
    granted = {name: roles_from_claims({"realm_access": {"roles": u["realmRoles"]}}) for name, u in users.items()}
    assert granted == {"alice": {"viewer", "analyst"}, "ada": set(ROLES)}
