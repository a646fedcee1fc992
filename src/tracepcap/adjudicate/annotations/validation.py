"""What a human sends, checked before anything is written: the key names a question, capture
and host that exist; labels, prose and weights are within their rules (`tracepcap.text`)."""

from __future__ import annotations

import functools

from sqlalchemy.orm import Session

from ...errors import InvalidAnnotation, NotFound
from ...store.entities import resolve as resolve_entity
from ...store.models import Capture, Entity
from ...text import LABEL, PROSE
from ..contract import Key
from ..registry import Registry


def check_key(session: Session, registry: Registry, key: Key) -> None:
    """NotFound naming what does not exist: the question, the capture or the entity."""
    registry.get(key.question)
    if session.get(Capture, key.capture_id) is None:
        raise NotFound(f"no capture {key.capture_id!r}")
    if session.get(Entity, (key.capture_id, key.entity_key)) is None:
        raise NotFound(f"no host or device {key.entity_key!r} in capture {key.capture_id}")


def label(label: str) -> str:
    """A label as stored: whitespace runs made one space; empty is refused."""
    clean = " ".join(LABEL.check("label", label or "").split())
    if not clean:
        raise InvalidAnnotation("label is required")
    return clean


def text(field: str, value: str) -> str:
    """Prose (a rationale, a reason) as stored: trimmed; empty is refused."""
    clean = PROSE.check(field, value or "").strip()
    if not clean:
        raise InvalidAnnotation(f"{field} is required")
    return clean


def weight(weight: int) -> int:
    """An evidence weight: an integer 1..100."""
    if isinstance(weight, bool) or not isinstance(weight, int) or not 1 <= weight <= 100:
        raise InvalidAnnotation(f"evidence weight must be 1..100 (got {weight!r})")
    return weight


def canonical(writes: bool = True):
    """Decorate an annotation service `fn(session, registry, key, ...)`: the key's entity may be
    named by any of its addresses or MACs (store/entities.resolve); the service runs on its
    canonical key, so one answer holds for all of a device's names. A writer takes its turn's
    lock first (`locking.lock_for_writing`: SQLite's write lock before the first read)."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(session: Session, registry: Registry, key: Key, *args, **kwargs):
            if writes:
                from .locking import lock_for_writing
                lock_for_writing(session)
            found = resolve_entity(session, key.capture_id, key.entity_key)
            if found is not None and found != key.entity_key:
                key = Key(key.question, key.capture_id, found)
            return fn(session, registry, key, *args, **kwargs)
        return run
    return wrap
