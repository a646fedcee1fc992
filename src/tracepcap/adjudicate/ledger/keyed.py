"""The rows of one key (question, capture, entity) in a table keyed like a verdict: the
annotation tables and the audit log."""

from __future__ import annotations

from sqlalchemy import Select, select

from ..contract import Key


def of_key(model, key: Key) -> Select:
    return select(model).where(model.question == key.question, model.capture_id == key.capture_id,
                               model.entity_key == key.entity_key)
