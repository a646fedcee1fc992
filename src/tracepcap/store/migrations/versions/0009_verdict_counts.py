"""A covering index for the capture page's answer counts (issue 15): grouping verdicts by
question, label, contested and basis reads the index, not the verdict documents.

Revision ID: 0009
Revises: 0008
"""

from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_verdict_counts', 'verdict', ['capture_id', 'question', 'primary_label', 'contested', 'basis'])


def downgrade() -> None:
    op.drop_index('ix_verdict_counts', table_name='verdict')
