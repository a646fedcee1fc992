"""Networks and their captures: create, find, attach, detach, and the one order (first packet
time, ties by upload time, then id)."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound
from ...store.models import Capture, Network, NetworkCapture
from ..actor import Actor
from ..ledger import validation
from ..ledger.audit import AuditAction, record, utc_now

ID_BYTES = 8  #: a network's id: this many random bytes as lower-case hex
LOOKS_LIKE_ID = re.compile(rf"[0-9a-fA-F]{{{2 * ID_BYTES}}}")


def create_network(session: Session, name: str, *, actor: Actor) -> Network:
    """A new network. Its name may not have the shape of a network id (16 hex digits): a
    reference by id or name (`find_network`) then always names one network, never one whose
    name happens to be another's id."""
    name = validation.text("name", name)
    if LOOKS_LIKE_ID.fullmatch(name):
        raise InvalidAnnotation(f"a network name cannot be {2 * ID_BYTES} hex digits like {name!r}: "
                                "that is the shape of a network id; add a word")
    if session.scalar(select(Network).where(Network.name == name)) is not None:
        raise InvalidAnnotation(f"a network named {name!r} exists")
    network = Network(id=secrets.token_hex(ID_BYTES), name=name, created_at=utc_now(), created_by=actor.name)
    session.add(network)
    session.flush()
    record(session, AuditAction.NETWORK_CREATED, actor, after={"network": network.id, "name": name})
    return network


def find_network(session: Session, ref: str) -> Network:
    """By id or by name."""
    network = session.get(Network, ref) or session.scalar(select(Network).where(Network.name == ref))
    if network is None:
        raise NotFound(f"no network {ref!r}")
    return network


def list_networks(session: Session) -> list[tuple[Network, int]]:
    counts = dict(session.execute(select(NetworkCapture.network_id, func.count()).group_by(NetworkCapture.network_id)).all())
    return [(n, counts.get(n.id, 0)) for n in session.scalars(select(Network).order_by(Network.name))]


def network_of(session: Session, capture_id: str) -> str | None:
    return session.scalar(select(NetworkCapture.network_id).where(NetworkCapture.capture_id == capture_id))


def ordered_captures(session: Session, network_id: str) -> list[Capture]:
    """The network's captures in order: first packet time (not yet known: last), upload time, id."""
    captures = session.scalars(select(Capture).join(NetworkCapture, NetworkCapture.capture_id == Capture.id).where(
        NetworkCapture.network_id == network_id)).all()
    return sorted(captures, key=lambda c: (c.first_time is None, c.first_time or 0.0, _aware(c.uploaded_at), c.id))


def _aware(at: datetime) -> datetime:
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def attach(session: Session, network: Network, capture_id: str, *, actor: Actor) -> None:
    """Put a capture into the network (it belongs to at most one). The caller refreshes."""
    capture = session.get(Capture, capture_id)
    if capture is None:
        raise NotFound(f"no capture {capture_id!r}")
    current = session.get(NetworkCapture, capture_id)
    if current is not None:
        if current.network_id == network.id:
            return
        raise InvalidAnnotation(f"capture {capture_id} already belongs to another network ({current.network_id})")
    session.add(NetworkCapture(capture_id=capture_id, network_id=network.id, attached_at=utc_now(),
                               attached_by=actor.name))
    session.flush()
    record(session, AuditAction.NETWORK_CAPTURE_ADDED, actor, capture_id=capture_id,
           after={"network": network.id, "name": network.name})


def detach(session: Session, network: Network, capture_id: str, *, actor: Actor) -> None:
    current = session.get(NetworkCapture, capture_id)
    if current is None or current.network_id != network.id:
        raise NotFound(f"capture {capture_id} is not in network {network.name!r}")
    session.delete(current)
    session.flush()
    record(session, AuditAction.NETWORK_CAPTURE_REMOVED, actor, capture_id=capture_id,
           before={"network": network.id, "name": network.name})
