"""Human writers take turns: per entity on PostgreSQL (row locks), on the database on SQLite
(its write lock, taken before the first read)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from ...store.models import Capture, Entity
from ..contract import Key
from ..registry import Registry
from .validation import check_key


def lock_for_writing(session: Session) -> None:
    """SQLite: take the database write lock before the first read (BEGIN IMMEDIATE), so a
    writer never has to upgrade a read that went stale, which SQLite refuses at once with
    "database is locked". PostgreSQL locks the rows it reads FOR UPDATE instead."""
    connection = session.connection()
    if connection.dialect.name == "sqlite" and not connection.connection.dbapi_connection.in_transaction:
        connection.exec_driver_sql("BEGIN IMMEDIATE")


def take_turn(session: Session, registry: Registry, key: Key) -> None:
    """Wait for the other writers of this entity, then check_key. Human actions on one entity
    run one after another, so each reads what the previous one wrote: no override inserted
    twice, no verdict computed from annotations another writer is changing.

    PostgreSQL: a row lock on the host (after a key-share lock on the capture, the order a
    capture deletion takes them in, so the two never deadlock). SQLite: the database write
    lock, taken before the first read (BEGIN IMMEDIATE), so a writer never has to upgrade a
    read that went stale, which SQLite refuses with "database is locked" at once; a writing
    unit of work (`Database.session(write=True)`, every API write request's) already holds it.
    A re-analysis swapping its rows in holds the capture itself (`store.staging.hold_capture`),
    so it runs wholly before or wholly after a human writer's turn.
    """
    lock_for_writing(session)
    if session.connection().dialect.name != "sqlite":
        session.execute(select(Capture.id).where(Capture.id == key.capture_id)
                        .with_for_update(read=True, key_share=True))
        session.execute(select(Entity.key).where(Entity.capture_id == key.capture_id,
                                                 Entity.key == key.entity_key).with_for_update())
    check_key(session, registry, key)
