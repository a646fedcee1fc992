"""entity and entity_member: the inventory's unit is a device (issue 11). Existing captures
get one entity per host row, keyed by its address (as their verdicts and annotations are);
their next analysis regroups them into devices and moves annotations to the device keys.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'entity',
        sa.Column('capture_id', sa.String(length=16), nullable=False),
        sa.Column('key', sa.String(length=64), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('ip', sa.String(length=45), nullable=True),
        sa.Column('addresses', sa.JSON(), nullable=False),
        sa.Column('macs', sa.JSON(), nullable=False),
        sa.Column('locality', sa.String(length=16), nullable=True),
        sa.Column('locality_reason', sa.Text(), nullable=True),
        sa.Column('randomised', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('capture_id', 'key'),
    )
    op.create_index('ix_entity_position', 'entity', ['capture_id', 'position'])
    op.create_table(
        'entity_member',
        sa.Column('capture_id', sa.String(length=16), nullable=False),
        sa.Column('member', sa.String(length=64), nullable=False),
        sa.Column('entity_key', sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(['capture_id'], ['capture.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('capture_id', 'member'),
    )
    op.create_index('ix_entity_member_key', 'entity_member', ['capture_id', 'entity_key'])
    # every host row of an earlier analysis is an entity keyed by its address
    addresses = "json_array(ip)" if op.get_bind().dialect.name == "sqlite" else "json_build_array(ip)"
    empty = "json_array()" if op.get_bind().dialect.name == "sqlite" else "'[]'::json"
    op.execute("INSERT INTO entity (capture_id, key, position, ip, addresses, macs, locality, locality_reason, "
               f"randomised) SELECT capture_id, ip, position, ip, {addresses}, {empty}, locality, "
               "locality_reason, false FROM host")
    op.execute("INSERT INTO entity_member (capture_id, member, entity_key) SELECT capture_id, ip, ip FROM host")


def downgrade() -> None:
    op.drop_index('ix_entity_member_key', table_name='entity_member')
    op.drop_table('entity_member')
    op.drop_index('ix_entity_position', table_name='entity')
    op.drop_table('entity')
