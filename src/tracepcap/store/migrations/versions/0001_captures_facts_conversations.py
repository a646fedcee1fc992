"""captures, facts, conversations

Revision ID: 0001
Revises: 
"""

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('capture',
    sa.Column('id', sa.String(length=16), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=255), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('format', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('progress_bytes', sa.BigInteger(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('packets', sa.BigInteger(), nullable=True),
    sa.Column('conversations', sa.BigInteger(), nullable=True),
    sa.Column('first_time', sa.Float(), nullable=True),
    sa.Column('last_time', sa.Float(), nullable=True),
    sa.Column('uploaded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('uploaded_by', sa.String(length=255), nullable=False),
    sa.Column('analyzed_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('sha256')
    )
    op.create_table('conversation',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('proto', sa.String(length=8), nullable=False),
    sa.Column('src', sa.String(length=45), nullable=False),
    sa.Column('sport', sa.Integer(), nullable=False),
    sa.Column('dst', sa.String(length=45), nullable=False),
    sa.Column('dport', sa.Integer(), nullable=False),
    sa.Column('first_time', sa.Float(), nullable=False),
    sa.Column('last_time', sa.Float(), nullable=False),
    sa.Column('first_frame', sa.BigInteger(), nullable=False),
    sa.Column('packets_fwd', sa.BigInteger(), nullable=False),
    sa.Column('bytes_fwd', sa.BigInteger(), nullable=False),
    sa.Column('packets_rev', sa.BigInteger(), nullable=False),
    sa.Column('bytes_rev', sa.BigInteger(), nullable=False),
    sa.Column('initiator', sa.String(length=45), nullable=True),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('conversation', schema=None) as batch_op:
        batch_op.create_index('ix_conversation_dst', ['capture_id', 'dst'], unique=False)
        batch_op.create_index('ix_conversation_src', ['capture_id', 'src'], unique=False)

    op.create_table('host',
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('ip', sa.String(length=45), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('capture_id', 'ip')
    )
    op.create_table('manifest',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('extractor', sa.String(length=64), nullable=False),
    sa.Column('version', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('facts', sa.BigInteger(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('manifest', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_manifest_capture_id'), ['capture_id'], unique=False)

    op.create_table('observation',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), autoincrement=True, nullable=False),
    sa.Column('capture_id', sa.String(length=16), nullable=False),
    sa.Column('entity', sa.String(length=64), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.Column('source', sa.String(length=64), nullable=False),
    sa.Column('grade', sa.String(length=16), nullable=False),
    sa.Column('first_frame', sa.BigInteger(), nullable=False),
    sa.Column('last_frame', sa.BigInteger(), nullable=False),
    sa.Column('count', sa.BigInteger(), nullable=False),
    sa.Column('first_time', sa.Float(), nullable=False),
    sa.Column('last_time', sa.Float(), nullable=False),
    sa.Column('extractor', sa.String(length=64), nullable=False),
    sa.Column('extractor_version', sa.String(length=16), nullable=False),
    sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('observation', schema=None) as batch_op:
        batch_op.create_index('ix_observation_entity', ['capture_id', 'entity'], unique=False)
        batch_op.create_index('ix_observation_kind', ['capture_id', 'kind'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('observation', schema=None) as batch_op:
        batch_op.drop_index('ix_observation_kind')
        batch_op.drop_index('ix_observation_entity')

    op.drop_table('observation')
    with op.batch_alter_table('manifest', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_manifest_capture_id'))

    op.drop_table('manifest')
    op.drop_table('host')
    with op.batch_alter_table('conversation', schema=None) as batch_op:
        batch_op.drop_index('ix_conversation_src')
        batch_op.drop_index('ix_conversation_dst')

    op.drop_table('conversation')
    op.drop_table('capture')
