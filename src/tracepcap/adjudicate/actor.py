"""CurrentActor: the one place that knows who acts.

The actor comes from a validated token's claims: `preferred_username`, falling back to
`sub`; never from a request body or header a client could forge. With auth off (the
default) the actor is "system", holding every role: the feature degrades, it never breaks.

Roles are read from one configurable place in the claims (Keycloak's `realm_access.roles`
by default) and are cumulative: an admin is also an analyst, an analyst also a viewer.
Names in the token that are not TracePcap roles are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SYSTEM = "system"
ROLES = ("viewer", "analyst", "admin")  # each one grants the ones before it
DEFAULT_ROLES_CLAIM = "realm_access.roles"


@dataclass(frozen=True, slots=True)
class Actor:
    name: str
    authenticated: bool
    roles: frozenset[str]

    def can(self, role: str) -> bool:
        return role in self.roles


SYSTEM_ACTOR = Actor(SYSTEM, False, frozenset(ROLES))


def roles_from_claims(claims: Mapping, path: str = DEFAULT_ROLES_CLAIM) -> frozenset[str]:
    """The TracePcap roles granted by the claims at dotted `path`, with the roles they imply.
    A missing path or a value that is not a list of strings grants nothing."""
    value: object = claims
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if not isinstance(value, list | tuple):
        return frozenset()
    named = {v for v in value if isinstance(v, str)}
    highest = max((ROLES.index(r) for r in named if r in ROLES), default=-1)
    return frozenset(ROLES[:highest + 1])


def actor_from_claims(claims: Mapping, roles: frozenset[str]) -> Actor:
    """The actor of a token whose signature and claims were already verified."""
    name = claims.get("preferred_username") or claims.get("sub")
    if not name or not isinstance(name, str):
        raise ValueError("token has neither preferred_username nor sub")
    return Actor(name, True, roles)


@dataclass(frozen=True, slots=True)
class CurrentActor:
    """Resolves who acts from verified claims; `None` (auth off) is the system actor."""

    roles_claim: str = DEFAULT_ROLES_CLAIM

    def __call__(self, claims: Mapping | None) -> Actor:
        if claims is None:
            return SYSTEM_ACTOR
        return actor_from_claims(claims, roles_from_claims(claims, self.roles_claim))
