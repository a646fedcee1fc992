"""Open a database by URL and bring its schema to the newest migration.

Opening an up-to-date database costs one query (its `alembic_version` against the newest
revision named in migrations/versions); Alembic is imported and run only when they differ, so a
short command does not pay for loading it. A new SQLite file is not migrated either: it gets
the newest schema from the models and the version row Alembic would write (`_create_newest`),
the same tables as the migrations build, column for column (tests/test_startup.py compares
them); a new PostgreSQL database, an older schema or anything unexpected goes to Alembic.

Sizing and waiting, so that load queues instead of failing: the pool holds `pool_size`
connections plus as many again for callers outside the API's turns (the analysis worker, the
web pages); a caller finding none free waits up to `POOL_WAIT_SECONDS`. SQLite has one writer
at a time per file: a writing unit of work (`session(write=True)`) first waits for this
process's other writers on one lock per database file, then takes the file's write lock at once
(BEGIN IMMEDIATE); another process's writer is waited for by SQLite's busy timeout.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from ..errors import Busy

MIGRATIONS = Path(__file__).parent / "migrations"
POOL_SIZE = 10
POOL_WAIT_SECONDS = 120
# another process's writer (the CLI beside the server) is waited for this long, in milliseconds
SQLITE_BUSY_MS = 120_000

_sqlite_writers: dict[str, threading.Lock] = {}  # database file -> its writers' turn in this process
_sqlite_writers_guard = threading.Lock()


def _writer_lock(engine: Engine) -> threading.Lock:
    path = str(Path(engine.url.database or ":memory:").resolve())
    with _sqlite_writers_guard:
        return _sqlite_writers.setdefault(path, threading.Lock())


class Database:
    """An engine and its session factory. `session()` is a unit of work: commit on success,
    roll back on error. `pool_size` is how many units of work may hold a connection at once
    without waiting (the API admits that many requests at a time)."""

    def __init__(self, engine: Engine, pool_size: int = POOL_SIZE) -> None:
        self.engine = engine
        self.pool_size = pool_size
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self.is_sqlite = engine.dialect.name == "sqlite"
        self._writers = _writer_lock(engine) if self.is_sqlite else None

    @contextmanager
    def session(self, *, write: bool = False) -> Iterator[Session]:
        """write=True for a unit of work that writes: on SQLite it runs alone among this
        process's writers and holds the write lock from its first statement, so it never has to
        upgrade a read lock (which SQLite refuses at once with "database is locked" when another
        writer committed in between). On PostgreSQL it is an ordinary transaction."""
        with self._writer_turn() if write and self._writers else nullcontext(), \
                self.sessions() as session, session.begin():
            if write and self.is_sqlite:
                session.connection().exec_driver_sql("BEGIN IMMEDIATE")
            yield session

    @contextmanager
    def _writer_turn(self) -> Iterator[None]:
        # bounded: a writer that never comes back (a thread starved by waiters) must not
        # freeze every later writer of the process
        if not self._writers.acquire(timeout=POOL_WAIT_SECONDS):
            raise Busy(f"the database is busy: no writer's turn came within {POOL_WAIT_SECONDS} s; "
                       "nothing was done, try again")
        try:
            yield
        finally:
            self._writers.release()

    def dispose(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers (the web UI) never block the analysis
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def open_database(url: str, *, migrate: bool = True, pool_size: int = POOL_SIZE) -> Database:
    """Connect and apply pending migrations. SQLite files get their directory created."""
    memory = url in ("sqlite://", "sqlite:///:memory:")
    if url.startswith("sqlite:///") and not memory:
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    pool = {} if memory else {"pool_size": pool_size, "max_overflow": pool_size,
                              "pool_timeout": POOL_WAIT_SECONDS}
    engine = create_engine(url, pool_pre_ping=not url.startswith("sqlite"), **pool)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    if migrate:
        upgrade(engine)
    return Database(engine, pool_size)


def alembic_config():
    from alembic.config import Config
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


_REVISION = re.compile(r"""^(down_revision|revision)\s*(?::[^=]*)?=\s*(?:['"]([^'"]+)['"]|None)""", re.M)
_head: list[str | None] = []  # the newest revision, read once per process


def head_revision() -> str | None:
    """The one revision no other migration revises, read from the files' `revision` and
    `down_revision` lines without loading Alembic; None when that is not one plain revision
    (a merge, a branch, a file it cannot read): then Alembic decides."""
    if not _head:
        revisions, revised = set(), set()
        for path in (MIGRATIONS / "versions").glob("*.py"):
            for name, value in _REVISION.findall(path.read_text(encoding="utf-8")):
                (revisions if name == "revision" else revised).add(value or None)
        heads = revisions - revised
        _head.append(heads.pop() if len(heads) == 1 and None not in revisions else None)
    return _head[0]


def schema_version(engine: Engine) -> set[str] | None:
    """The revisions the database says it is at (one query); None when it has no version table."""
    try:
        with engine.connect() as connection:
            return {row[0] for row in connection.execute(text("SELECT version_num FROM alembic_version"))}
    except DBAPIError:  # no table yet: a new database
        return None


def upgrade(engine: Engine) -> None:
    """Bring the schema to the newest migration; a database already there is only asked, a new
    SQLite file is created at the newest revision without Alembic."""
    head = head_revision()
    if head is not None:
        version = schema_version(engine)
        if version == {head}:
            return
        if version is None and engine.dialect.name == "sqlite" and (
                _create_newest(engine, head) or schema_version(engine) == {head}):  # or another process did
            return
    migrate(engine)


#: Alembic's own version table, as its migration context creates it
_ALEMBIC_VERSION = "CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL, " \
                   "CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num))"


def _create_newest(engine: Engine, head: str) -> bool:
    """Create the models' tables and the version row `head` in an empty SQLite file, in one
    transaction holding its write lock (BEGIN IMMEDIATE): a migration of an empty database is
    the models' schema, and loading Alembic and replaying eleven migrations cost a new file
    ~0.5 s. False, having done nothing, when the file holds any table by the time the lock is
    taken (another process created it meanwhile, or tables without a version): then Alembic
    decides."""
    from .models import Base
    with engine.begin() as connection:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        if connection.exec_driver_sql("SELECT 1 FROM sqlite_master LIMIT 1").first() is not None:
            return False
        Base.metadata.create_all(connection, checkfirst=False)
        connection.exec_driver_sql(_ALEMBIC_VERSION)
        connection.exec_driver_sql("INSERT INTO alembic_version (version_num) VALUES (?)", (head,))
    return True


def migrate(engine: Engine) -> None:
    """Run Alembic's upgrade to the newest revision, whatever the database holds."""
    from alembic import command
    cfg = alembic_config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")
