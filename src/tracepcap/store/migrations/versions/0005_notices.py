"""notices: traffic that violated its protocol, the first ones stored and every one counted

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('notice',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=False),
    sa.Column('entity', sa.String(length=64), nullable=True),
    sa.Column('frame', sa.BigInteger(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('notice', schema=None) as batch_op:
        batch_op.create_index('ix_notice_capture', ['capture_id', 'frame'], unique=False)

    op.create_table('notice_count',
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=False),
    sa.Column('count', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('capture_id', 'kind')
    )


def downgrade() -> None:
    op.drop_table('notice_count')
    with op.batch_alter_table('notice', schema=None) as batch_op:
        batch_op.drop_index('ix_notice_capture')
    op.drop_table('notice')
