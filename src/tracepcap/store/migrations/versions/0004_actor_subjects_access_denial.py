"""actor subjects on evidence and audit events; the access-denial tally

Revision ID: 0004
Revises: 0003

Rows written before subjects existed get one the authorship check can rely on: "system"
for the system actor's, "name:{actor}" for the others. No token's subject has that form
("{iss}#{sub}"), so nobody can claim such evidence by taking its author's name.
"""

import sqlalchemy as sa
from alembic import op

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

LEGACY_SUBJECT = "CASE WHEN actor = 'system' THEN 'system' ELSE 'name:' || actor END"


def upgrade() -> None:
    for table in ('manual_evidence', 'audit_event'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('actor_subject', sa.Text(), nullable=True))
        op.execute(f"UPDATE {table} SET actor_subject = {LEGACY_SUBJECT}")
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column('actor_subject', existing_type=sa.Text(), nullable=False)

    op.create_table('access_denial',
    sa.Column('actor_subject', sa.Text(), nullable=False),
    sa.Column('method', sa.String(length=16), nullable=False),
    sa.Column('route', sa.String(length=255), nullable=False),
    sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('unrecorded', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('actor_subject', 'method', 'route')
    )


def downgrade() -> None:
    op.drop_table('access_denial')
    for table in ('audit_event', 'manual_evidence'):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column('actor_subject')
