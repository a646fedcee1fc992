"""CurrentActor: the one reader of verified claims."""

from __future__ import annotations

import pytest

from tracepcap.adjudicate.actor import SYSTEM_ACTOR, CurrentActor, roles_from_claims
from tracepcap.present.web import views


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


ISS = "https://id.example/realms/tracepcap"


def test_current_actor():
    resolve = CurrentActor()
    assert resolve(None) is SYSTEM_ACTOR and SYSTEM_ACTOR.name == "system" and not SYSTEM_ACTOR.authenticated
    alice = resolve({"iss": ISS, "preferred_username": "alice", "sub": "s-1", "realm_access": {"roles": ["analyst"]}})
    assert (alice.name, alice.authenticated, alice.can("analyst"), alice.can("admin")) == ("alice", True, True, False)
    assert alice.subject == f"{ISS}#s-1"
    assert resolve({"iss": ISS, "sub": "s-2"}).name == "s-2"
    with pytest.raises(ValueError, match="no sub"):
        resolve({"iss": ISS, "preferred_username": "alice", "realm_access": {"roles": ["admin"]}})


def test_the_subject_is_who_acts_and_the_name_only_how_it_is_shown():
    """Two people may share a name, one may rename: the subject (issuer and sub) tells them
    apart; the same sub from another issuer is someone else."""
    resolve = CurrentActor()
    first = resolve({"iss": ISS, "sub": "s-1", "preferred_username": "alice"})
    renamed = resolve({"iss": ISS, "sub": "s-1", "preferred_username": "alice.smith"})
    namesake = resolve({"iss": ISS, "sub": "s-9", "preferred_username": "alice"})
    elsewhere = resolve({"iss": "https://other.example", "sub": "s-1", "preferred_username": "alice"})
    assert first.subject == renamed.subject
    assert len({first.subject, namesake.subject, elsewhere.subject}) == 3


@pytest.mark.parametrize("username", ["system", "System", " system ", "unattributed"])
def test_a_user_named_system_is_not_the_system(username):
    actor = CurrentActor()({"iss": ISS, "sub": "s-7", "preferred_username": username, "realm_access": {"roles": []}})
    assert actor.name == f"{username.strip()} (s-7)" and views.who(actor.name) == actor.name
    assert actor.subject == f"{ISS}#s-7" != SYSTEM_ACTOR.subject
    assert actor.roles == frozenset() and actor.authenticated
