"""votes, verdicts, annotations, audit

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('audit_event',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actor', sa.String(length=255), nullable=False),
    sa.Column('action', sa.String(length=64), nullable=False),
    sa.Column('question', sa.String(length=64), nullable=True),
    sa.Column('capture_id', sa.String(length=16), nullable=True),
    sa.Column('entity_key', sa.String(length=64), nullable=True),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('audit_event', schema=None) as batch_op:
        batch_op.create_index('ix_audit_event_key', ['capture_id', 'question', 'entity_key'], unique=False)

    op.create_table('dismissal',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('question', sa.String(length=64), nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('entity_key', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=100), nullable=False),
    sa.Column('label_key', sa.String(length=100), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('actor', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('question', 'capture_id', 'entity_key', 'label_key')
    )
    op.create_table('human_override',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('question', sa.String(length=64), nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('entity_key', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=100), nullable=False),
    sa.Column('rationale', sa.Text(), nullable=False),
    sa.Column('actor', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('question', 'capture_id', 'entity_key')
    )
    op.create_table('manual_evidence',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('question', sa.String(length=64), nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('entity_key', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=100), nullable=False),
    sa.Column('weight', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('actor', sa.String(length=255), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('manual_evidence', schema=None) as batch_op:
        batch_op.create_index('ix_manual_evidence_key', ['capture_id', 'question', 'entity_key'], unique=False)

    op.create_table('verdict',
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('question', sa.String(length=64), nullable=False),
    sa.Column('entity_key', sa.String(length=64), nullable=False),
    sa.Column('primary_label', sa.String(length=100), nullable=True),
    sa.Column('basis', sa.String(length=16), nullable=False),
    sa.Column('confidence', sa.Integer(), nullable=False),
    sa.Column('contested', sa.Boolean(), nullable=False),
    sa.Column('document', sa.JSON(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('capture_id', 'question', 'entity_key')
    )
    op.create_table('vote',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('question', sa.String(length=64), nullable=False),
    sa.Column('entity_key', sa.String(length=64), nullable=False),
    sa.Column('signal', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=100), nullable=False),
    sa.Column('weight', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('grade', sa.String(length=16), nullable=False),
    sa.Column('frames', sa.JSON(), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('vote', schema=None) as batch_op:
        batch_op.create_index('ix_vote_key', ['capture_id', 'question', 'entity_key'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('vote', schema=None) as batch_op:
        batch_op.drop_index('ix_vote_key')

    op.drop_table('vote')
    op.drop_table('verdict')
    with op.batch_alter_table('manual_evidence', schema=None) as batch_op:
        batch_op.drop_index('ix_manual_evidence_key')

    op.drop_table('manual_evidence')
    op.drop_table('human_override')
    op.drop_table('dismissal')
    with op.batch_alter_table('audit_event', schema=None) as batch_op:
        batch_op.drop_index('ix_audit_event_key')

    op.drop_table('audit_event')
