"""Revealing a credential's secret: the secret is never stored, so a reveal changes nothing,
but who saw which secret, and when, is audited (`credential.revealed`). The event names the
credential, its protocol, user, server and frame, never the secret."""

from __future__ import annotations

from sqlalchemy.orm import Session

from ...store.models import AuditEvent
from ..actor import Actor
from ..ledger.audit import AuditAction, record


def record_reveal(session: Session, actor: Actor, capture_id: str, *, credential: int, protocol: str,
                  user: str | None, server: str, port: int, frame: int, shown: bool) -> AuditEvent:
    """Record that `actor` asked for credential `credential`'s secret (`shown`: one was read)."""
    return record(session, AuditAction.CREDENTIAL_REVEALED, actor, capture_id=capture_id, after={
        "credential": credential, "protocol": protocol, "user": user, "server": server, "port": port,
        "frame": frame, "shown": shown})
