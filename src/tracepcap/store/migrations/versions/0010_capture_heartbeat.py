"""A capture being analyzed shows signs of life (issue 23): `heartbeat_at` is written when its
analysis starts and at every progress tick, so an `analyzing` capture whose heartbeat is older
than the lease is known to be stalled (its analysis died, or its failure could not be
recorded) and is queued again.

Revision ID: 0010
Revises: 0009
"""

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('capture') as batch:
        batch.add_column(sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('capture') as batch:
        batch.drop_column('heartbeat_at')
