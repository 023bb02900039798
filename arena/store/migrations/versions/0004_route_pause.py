"""route pause: a tournament's platform voids in a row, and the pause they caused

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('tournaments') as batch:
        batch.add_column(sa.Column('voids_in_row', sa.Integer(), server_default='0', nullable=False))
        batch.add_column(sa.Column('voids_since', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('pauses', sa.Integer(), server_default='0', nullable=False))
        batch.add_column(sa.Column('paused_until', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('pause_reason', sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('tournaments') as batch:
        batch.drop_column('pause_reason')
        batch.drop_column('paused_until')
        batch.drop_column('pauses')
        batch.drop_column('voids_since')
        batch.drop_column('voids_in_row')
