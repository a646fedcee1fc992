"""Networks over time: network, network_capture, carry_mark, network_change, change_review;
carried copies of human answers (carried_from, carried_id, carry_note on human_override,
manual_evidence and dismissal; stale_capture on human_override)

Revision ID: 0008
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

CARRYING = ('human_override', 'manual_evidence', 'dismissal')


def upgrade() -> None:
    op.create_table(
        'network',
        sa.Column('id', sa.String(length=16), nullable=False),
        sa.Column('name', sa.String(length=255), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('created_by', sa.String(length=255), nullable=False),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('name'),
    )
    op.create_table(
        'network_capture',
        sa.Column('capture_id', sa.String(length=16), nullable=False),
        sa.Column('network_id', sa.String(length=16), nullable=False),
        sa.Column('attached_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('attached_by', sa.String(length=255), nullable=False),
        sa.Column('changes_from', sa.String(length=16), nullable=True),
        sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['network_id'], ['network.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('capture_id'),
    )
    op.create_index('ix_network_capture_network', 'network_capture', ['network_id'])
    op.create_table(
        'carry_mark',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('capture_id', sa.String(length=16), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('origin_id', sa.Integer(), nullable=False),
        sa.Column('action', sa.String(length=16), nullable=False),
        sa.Column('actor', sa.String(length=255), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('capture_id', 'kind', 'origin_id'),
    )
    op.create_table(
        'network_change',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('network_id', sa.String(length=16), nullable=False),
        sa.Column('capture_id', sa.String(length=16), nullable=False),
        sa.Column('previous_id', sa.String(length=16), nullable=False),
        sa.Column('kind', sa.String(length=32), nullable=False),
        sa.Column('severity', sa.String(length=16), nullable=False),
        sa.Column('entity_key', sa.String(length=64), nullable=True),
        sa.Column('summary', sa.Text(), nullable=False),
        sa.Column('detail', sa.JSON(), nullable=False),
        sa.Column('frames', sa.JSON(), nullable=False),
        sa.Column('signature', sa.String(length=255), nullable=False),
        sa.ForeignKeyConstraint(['network_id'], ['network.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['previous_id'], ['capture.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_network_change_network', 'network_change', ['network_id', 'capture_id'])
    op.create_table(
        'change_review',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('network_id', sa.String(length=16), nullable=False),
        sa.Column('signature', sa.String(length=255), nullable=False),
        sa.Column('actor', sa.String(length=255), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['network_id'], ['network.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('network_id', 'signature'),
    )
    for table in CARRYING:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('carried_from', sa.String(length=16), nullable=True))
            batch_op.add_column(sa.Column('carried_id', sa.Integer(), nullable=True))
            batch_op.add_column(sa.Column('carry_note', sa.Text(), nullable=True))
            if table == 'human_override':
                batch_op.add_column(sa.Column('stale_capture', sa.String(length=16), nullable=True))


def downgrade() -> None:
    for table in CARRYING:
        with op.batch_alter_table(table, schema=None) as batch_op:
            if table == 'human_override':
                batch_op.drop_column('stale_capture')
            batch_op.drop_column('carry_note')
            batch_op.drop_column('carried_id')
            batch_op.drop_column('carried_from')
    op.drop_table('change_review')
    op.drop_index('ix_network_change_network', table_name='network_change')
    op.drop_table('network_change')
    op.drop_table('carry_mark')
    op.drop_index('ix_network_capture_network', table_name='network_capture')
    op.drop_table('network_capture')
    op.drop_table('network')
