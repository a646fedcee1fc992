"""Alembic environment: runs on the connection `store.db.upgrade` hands over."""

from alembic import context
from sqlalchemy import create_engine

from tracepcap.store.models import Base

target_metadata = Base.metadata
connection = context.config.attributes.get("connection")
if connection is None:  # `alembic` on the command line: TRACEPCAP_DATABASE_URL names the db
    from tracepcap.settings import get_settings
    connection = create_engine(get_settings().database_url).connect()

context.configure(connection=connection, target_metadata=target_metadata,
                  render_as_batch=connection.dialect.name == "sqlite")
with context.begin_transaction():
    context.run_migrations()
