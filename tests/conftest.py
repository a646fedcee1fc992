"""Shared fixtures: settings in a temporary data directory, and a database for each backend.

Tests that touch the store run on SQLite and on PostgreSQL. PostgreSQL comes from
TRACEPCAP_TEST_POSTGRES_URL (default: the local server, database `test`); each test gets a
schema of its own, dropped afterwards. An unreachable server fails the tests: never skipped.
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tracepcap.settings import Settings
from tracepcap.store import open_database

pytest_plugins = ["support.cli"]  # the `cli` fixture

CAPTURES = Path(__file__).resolve().parents[1].parent / "shared" / "captures"
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def postgres_url() -> str:
    return os.environ.get("TRACEPCAP_TEST_POSTGRES_URL") or DEFAULT_POSTGRES


@pytest.fixture(scope="session")
def captures() -> Path:
    assert CAPTURES.is_dir(), f"the shared captures are expected at {CAPTURES}"
    return CAPTURES


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'tracepcap.sqlite3'}"
        return
    base = postgres_url()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(base)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in base else "?"
    yield f"{base}{sep}options=-csearch_path%3D{schema}"
    with admin.begin() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture
def settings(tmp_path, db_url) -> Settings:
    return Settings(data_dir=tmp_path / "data", database_url=db_url)


@pytest.fixture
def db(settings):
    database = open_database(settings.database_url)
    yield database
    database.dispose()
