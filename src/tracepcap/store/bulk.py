"""Bulk writes: rows as plain dicts, inserted in batches through the table (Core), not the
ORM. The ORM's bulk path splits a batch wherever a row leaves a column None (it omits that
key, so the key sets differ): on a many-host capture that was one INSERT per row.

On PostgreSQL through psycopg the rows are streamed with `COPY ... FROM STDIN` (one
statement for all of them, in the caller's transaction); elsewhere (SQLite) `executemany`
of `batch` rows at a time, in the caller's one transaction. Never one statement per row.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from itertools import chain, islice

from sqlalchemy import JSON, insert
from sqlalchemy.orm import Session

BATCH = 5000


def insert_rows(session: Session, model, rows: Iterable[dict], batch: int = BATCH) -> int:
    """Insert `rows` (every dict with the same keys) into `model`'s table, consuming an
    iterator lazily so a caller never holds them all; return how many."""
    rows = iter(rows)
    connection = session.connection()
    if connection.dialect.name == "postgresql" and connection.dialect.driver == "psycopg":
        return _copy(connection, model.__table__, rows)
    statement = insert(model.__table__)
    done = 0
    while chunk := list(islice(rows, batch)):
        session.execute(statement, chunk)
        done += len(chunk)
    return done


def _copy(connection, table, rows) -> int:
    """COPY the rows in; JSON columns as SQLAlchemy's JSON type writes them (json.dumps,
    None as JSON null)."""
    first = next(rows, None)
    if first is None:
        return 0
    keys = list(first)
    as_json = [isinstance(table.c[key].type, JSON) for key in keys]
    quote = connection.dialect.identifier_preparer
    sql = (f"COPY {quote.format_table(table)} ({', '.join(quote.quote(key) for key in keys)}) "
           "FROM STDIN")
    done = 0
    with connection.connection.driver_connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in chain((first,), rows):
            copy.write_row([json.dumps(row[key]) if encode else row[key]
                            for key, encode in zip(keys, as_json)])
            done += 1
    return done
