"""findings, stale human answers

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('finding',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=False),
    sa.Column('severity', sa.String(length=16), nullable=False),
    sa.Column('entities', sa.JSON(), nullable=False),
    sa.Column('summary', sa.Text(), nullable=False),
    sa.Column('frames', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('finding', schema=None) as batch_op:
        batch_op.create_index('ix_finding_capture', ['capture_id'], unique=False)

    with op.batch_alter_table('human_override', schema=None) as batch_op:
        batch_op.add_column(sa.Column('facts_snapshot', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('stale_since', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('stale_detail', sa.JSON(), nullable=True))



def downgrade() -> None:
    with op.batch_alter_table('human_override', schema=None) as batch_op:
        batch_op.drop_column('stale_detail')
        batch_op.drop_column('stale_since')
        batch_op.drop_column('facts_snapshot')

    with op.batch_alter_table('finding', schema=None) as batch_op:
        batch_op.drop_index('ix_finding_capture')

    op.drop_table('finding')
