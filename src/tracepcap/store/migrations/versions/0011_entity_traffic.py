"""entity traffic columns (issue 28): packets and bytes sent and received, first and last
seen, peers, ports served and used, written by Scan (scan/traffic.py). Rows scanned before
this revision keep NULL (shown as not measured until the capture is re-analysed).

Revision ID: 0011
Revises: 0010
"""

import sqlalchemy as sa
from alembic import op

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None

COUNTS = ('packets_sent', 'packets_received', 'bytes_sent', 'bytes_received')


def upgrade() -> None:
    with op.batch_alter_table('entity') as batch:
        for name in COUNTS:
            batch.add_column(sa.Column(name, sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column('first_seen', sa.Float(), nullable=True))
        batch.add_column(sa.Column('last_seen', sa.Float(), nullable=True))
        batch.add_column(sa.Column('peers', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('ports_served', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('ports_used', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('entity') as batch:
        for name in ('ports_used', 'ports_served', 'peers', 'last_seen', 'first_seen', *reversed(COUNTS)):
            batch.drop_column(name)
