"""leagues: a league's file, state and seasons (each division of a season is a tournament)

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('leagues',
    sa.Column('id', sa.String(length=200), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('game', sa.String(length=100), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('created', sa.DateTime(), nullable=False),
    sa.Column('updated', sa.DateTime(), nullable=False),
    sa.Column('season', sa.Integer(), server_default='0', nullable=False),
    sa.Column('state', sa.String(length=20), server_default='between', nullable=False),
    sa.Column('divisions', sa.JSON(), nullable=False),
    sa.Column('history', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leagues'))
    )


def downgrade() -> None:
    op.drop_table('leagues')
