"""CurrentActor: the one reader of verified claims."""

from __future__ import annotations

import pytest

from tracepcap.adjudicate.actor import SYSTEM_ACTOR, CurrentActor, roles_from_claims


@pytest.mark.parametrize("claims, path, roles", [
    ({"realm_access": {"roles": ["viewer"]}}, "realm_access.roles", {"viewer"}),
    ({"realm_access": {"roles": ["analyst", "offline_access"]}}, "realm_access.roles", {"viewer", "analyst"}),
    ({"realm_access": {"roles": ["admin"]}}, "realm_access.roles", {"viewer", "analyst", "admin"}),
    ({"realm_access": {"roles": "admin"}}, "realm_access.roles", set()),       # not a list
    ({"realm_access": {"roles": [{"name": "admin"}]}}, "realm_access.roles", set()),
    ({"realm_access": ["admin"]}, "realm_access.roles", set()),
    ({}, "realm_access.roles", set()),
    ({"resource_access": {"tracepcap-api": {"roles": ["analyst"]}}}, "resource_access.tracepcap-api.roles",
     {"viewer", "analyst"}),
    ({"groups": ["Admin"]}, "groups", set()),                                    # names are exact
])
def test_roles_from_claims(claims, path, roles):
    assert roles_from_claims(claims, path) == roles


def test_current_actor():
    resolve = CurrentActor()
    assert resolve(None) is SYSTEM_ACTOR and SYSTEM_ACTOR.name == "system" and not SYSTEM_ACTOR.authenticated
    alice = resolve({"preferred_username": "alice", "sub": "s-1", "realm_access": {"roles": ["analyst"]}})
    assert (alice.name, alice.authenticated, alice.can("analyst"), alice.can("admin")) == ("alice", True, True, False)
    assert resolve({"sub": "s-2"}).name == "s-2"
    with pytest.raises(ValueError, match="neither preferred_username nor sub"):
        resolve({"realm_access": {"roles": ["admin"]}})
