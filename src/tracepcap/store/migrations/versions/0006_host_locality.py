"""host.locality and host.locality_reason: on-link, local-routed or remote, and why (Scan
decides; rows analysed before this revision keep NULL, shown as unknown until re-analysed)

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('host', schema=None) as batch_op:
        batch_op.add_column(sa.Column('locality', sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column('locality_reason', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('host', schema=None) as batch_op:
        batch_op.drop_column('locality_reason')
        batch_op.drop_column('locality')
