"""An annotation service names its entity by any of its names (issue 11): `canonical` runs it
on the entity's canonical key (store/entities.resolve)."""

from __future__ import annotations

import functools

from sqlalchemy.orm import Session

from ...store.entities import resolve as resolve_entity
from ..contract import Key
from ..registry import Registry
from .locking import lock_for_writing


def canonical(writes: bool = True):
    """Decorate an annotation service `fn(session, registry, key, ...)`: the key's entity may be
    named by any of its addresses or MACs (store/entities.resolve); the service runs on its
    canonical key, so one answer holds for all of a device's names. A writer takes its turn's
    lock first (`locking.lock_for_writing`: SQLite's write lock before the first read)."""
    def wrap(fn):
        @functools.wraps(fn)
        def run(session: Session, registry: Registry, key: Key, *args, **kwargs):
            if writes:
                lock_for_writing(session)
            found = resolve_entity(session, key.capture_id, key.entity_key)
            if found is not None and found != key.entity_key:
                key = Key(key.question, key.capture_id, found)
            return fn(session, registry, key, *args, **kwargs)
        return run
    return wrap
