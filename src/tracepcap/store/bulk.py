"""Bulk writes: rows as plain dicts, inserted in batches straight through the driver, not the
ORM. The ORM's bulk path splits a batch wherever a row leaves a column None (it omits that
key, so the key sets differ): on a many-host capture that was one INSERT per row.

On PostgreSQL through psycopg the rows are streamed with `COPY ... FROM STDIN` (one
statement for all of them, in the caller's transaction); elsewhere (SQLite) `executemany`
of `batch` rows at a time, in the caller's one transaction. Never one statement per row.
Both write the keys the rows have, each value as its column's type writes it (JSON as
`json.dumps` text, times as the dialect keeps them). Neither fills in a Python-side
`default=`: rows give every such column (`executemany` refuses rows without it).

Rows are dicts, or, with `keys`, tuples of those columns in that order (what a spool holds:
store/spool.py), which spares a dict per row. JSON columns named in `encoded` come as JSON
text already, `json.dumps` of the value, which is what either path would write: made before
the writing transaction, compact while kept.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Iterator, Sequence
from itertools import chain, islice
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, insert
from sqlalchemy.orm import Session

BATCH = 5000


def insert_rows(session: Session, model, rows: Iterable[Any], batch: int = BATCH,
                keys: Sequence[str] | None = None, encoded: Collection[str] = ()) -> int:
    """Insert `rows` (every dict with the same keys; with `keys`, tuples of those columns in
    that order) into `model`'s table, consuming an iterator lazily so a caller never holds them
    all; return how many."""
    remaining: Iterator[Any] = iter(rows)
    first = next(remaining, None)
    if first is None:
        return 0
    rows = chain((first,), remaining)
    session.flush()  # rows the session holds go first (a capture these rows name), as session.execute does
    connection = session.connection()
    columns = list(keys) if keys is not None else list(first)
    if connection.dialect.name == "postgresql" and connection.dialect.driver == "psycopg":
        return _copy(connection, model.__table__, columns, rows, keys is not None, encoded)
    return _executemany(connection, model.__table__, columns, rows, batch, keys is not None, encoded)


def _executemany(connection, table, keys: list[str], rows, batch: int, as_tuples: bool = False,
                 encoded: Collection[str] = ()) -> int:
    """The INSERT compiled once for these keys, its parameters made here as the column types
    make them: SQLAlchemy's per-row parameter building was most of the cost of a bulk write."""
    dialect = connection.dialect
    compiled = insert(table).compile(dialect=dialect, column_keys=keys)
    names: list[str] = list(compiled.positiontup or ()) if compiled.positional else keys
    convert = [(i, to) for i, name in enumerate(names)
               if (to := _processor(table.c[name].type.dialect_impl(dialect).bind_processor(dialect),
                                    name in encoded)) is not None]
    picked: list[int] | list[str] = [keys.index(name) for name in names] if as_tuples else names
    pick = itemgetter(*picked) if len(picked) > 1 else (lambda row: (row[picked[0]],))

    def parameters(row):
        values = list(pick(row))
        for i, to in convert:
            values[i] = to(values[i])
        return tuple(values) if compiled.positional else dict(zip(names, values, strict=False))
    done = 0
    while chunk := [parameters(row) for row in islice(rows, batch)]:
        connection.exec_driver_sql(compiled.string, chunk)
        done += len(chunk)
    return done


def _processor(to, encoded: bool):
    """The bind processor of a column; for one given as JSON text, none, or, where the driver
    serialises JSON itself (no processor), the value read back for it to serialise."""
    if not encoded:
        return to
    return json.loads if to is None else None


def _copy(connection, table, keys: list[str], rows, as_tuples: bool = False, encoded: Collection[str] = ()) -> int:
    """COPY the rows in; JSON columns as SQLAlchemy's JSON type writes them (json.dumps,
    None as JSON null)."""
    as_json = [isinstance(table.c[key].type, JSON) and key not in encoded for key in keys]
    quote = connection.dialect.identifier_preparer
    sql = (f"COPY {quote.format_table(table)} ({', '.join(quote.quote(key) for key in keys)}) "
           "FROM STDIN")
    done = 0
    with connection.connection.driver_connection.cursor() as cursor, cursor.copy(sql) as copy:
        for row in rows:
            values = row if as_tuples else [row[key] for key in keys]
            copy.write_row([json.dumps(value) if encode else value
                            for value, encode in zip(values, as_json, strict=False)])
            done += 1
    return done
