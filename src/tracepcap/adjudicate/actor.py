"""CurrentActor: the one place that knows who acts.

The actor comes from a validated token's claims: `preferred_username`, falling back to
`sub`; never from a request body or header a client could forge. With auth off (the
default) the actor is "system", holding every role: the feature degrades, it never breaks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

SYSTEM = "system"
ROLES = ("viewer", "analyst", "admin")


@dataclass(frozen=True, slots=True)
class Actor:
    name: str
    authenticated: bool
    roles: frozenset[str]

    def can(self, role: str) -> bool:
        return role in self.roles


SYSTEM_ACTOR = Actor(SYSTEM, False, frozenset(ROLES))


def actor_from_claims(claims: Mapping, roles: frozenset[str]) -> Actor:
    """The actor of a token whose signature and claims were already verified."""
    name = claims.get("preferred_username") or claims.get("sub")
    if not name:
        raise ValueError("token has neither preferred_username nor sub")
    return Actor(str(name), True, roles)
