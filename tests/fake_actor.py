"""The fake actor of the tests: a person as CurrentActor would resolve a verified token."""

from __future__ import annotations

from tracepcap.adjudicate.actor import ROLES, Actor

ISSUER = "https://issuer.test/realms/tracepcap"


def person(name: str, *, sub: str | None = None, roles: tuple[str, ...] = ROLES) -> Actor:
    """`name`, whose subject is `ISSUER#sub` (sub defaults to "sub-{name}")."""
    return Actor(name, True, frozenset(roles), f"{ISSUER}#{sub or f'sub-{name}'}")
