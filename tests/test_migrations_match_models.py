"""The migrations build the schema the models declare (issue 28 added 0011): Alembic's
autogenerate comparison of a freshly migrated database with `Base.metadata` finds nothing."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine

from tracepcap.store.db import migrate
from tracepcap.store.models import Base


def test_a_migrated_database_matches_the_models(db_url):
    engine = create_engine(db_url)
    try:
        migrate(engine)  # the migrations themselves, as an older database meets them
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    finally:
        engine.dispose()
    assert diff == []
