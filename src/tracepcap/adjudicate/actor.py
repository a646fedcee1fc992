"""CurrentActor: the one place that knows who acts.

The actor comes from a validated token's claims, never from a request body or header a
client could forge. Two things are kept apart:

- `subject`, who it is: the issuer and the token's `sub` ("{iss}#{sub}"), stable across
  renames. Authorship checks (who may edit or delete a piece of evidence) compare subjects.
- `name`, how trails show it: `preferred_username`, falling back to `sub`. A name is not an
  identity: two people may share one, and one may change it.

With auth off (the default) the actor is the system actor: subject and name "system",
holding every role: the feature degrades, it never breaks. A token user whose name reads as
the system's ("system", or "unattributed", which is how views show the system) is shown with
their `sub` beside it, and their subject is never the system's, so they get nothing of it.

Roles are read from one configurable place in the claims (Keycloak's `realm_access.roles`
by default) and are cumulative: an admin is also an analyst, an analyst also a viewer.
Names in the token that are not TracePcap roles are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SYSTEM = "system"
RESERVED_NAMES = (SYSTEM, "unattributed")  # what a person's name must not read as
MAX_NAME = 255  # the actor columns are String(255)
ROLES = ("viewer", "analyst", "admin")  # each one grants the ones before it
DEFAULT_ROLES_CLAIM = "realm_access.roles"


@dataclass(frozen=True, slots=True)
class Actor:
    name: str  # shown in trails
    authenticated: bool
    roles: frozenset[str]
    subject: str  # who it is: "{iss}#{sub}", or "system"

    def can(self, role: str) -> bool:
        return role in self.roles


SYSTEM_ACTOR = Actor(SYSTEM, False, frozenset(ROLES), SYSTEM)


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
    issuer, sub = claims.get("iss"), claims.get("sub")
    if not sub or not isinstance(sub, str):
        raise ValueError("token has no sub (subject)")
    if not issuer or not isinstance(issuer, str):
        raise ValueError("token has no iss (issuer)")
    name = claims.get("preferred_username")
    name = name.strip() if isinstance(name, str) and name.strip() else sub
    if name.casefold() in RESERVED_NAMES:
        name = f"{name} ({sub})"
    return Actor(name[:MAX_NAME], True, roles, f"{issuer}#{sub}")


@dataclass(frozen=True, slots=True)
class CurrentActor:
    """Resolves who acts from verified claims; `None` (auth off) is the system actor."""

    roles_claim: str = DEFAULT_ROLES_CLAIM

    def __call__(self, claims: Mapping | None) -> Actor:
        if claims is None:
            return SYSTEM_ACTOR
        return actor_from_claims(claims, roles_from_claims(claims, self.roles_claim))
