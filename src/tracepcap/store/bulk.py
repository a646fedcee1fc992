"""Bulk writes: rows as plain dicts, inserted in batches through the table (Core), not the
ORM. The ORM's bulk path splits a batch wherever a row leaves a column None (it omits that
key, so the key sets differ): on a many-host capture that was one INSERT per row."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import islice

from sqlalchemy import insert
from sqlalchemy.orm import Session

BATCH = 5000


def insert_rows(session: Session, model, rows: Iterable[dict], batch: int = BATCH) -> int:
    """Insert `rows` (every dict with the same keys) into `model`'s table, `batch` at a time,
    consuming an iterator lazily so a caller never holds them all; return how many."""
    statement = insert(model.__table__)
    rows = iter(rows)
    done = 0
    while chunk := list(islice(rows, batch)):
        session.execute(statement, chunk)
        done += len(chunk)
    return done
