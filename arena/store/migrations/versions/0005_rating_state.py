"""rating history by tournament end: the tournaments in each ruleset's history and the
state the next one starts from (bots' ratings, open duplicate deals); the existing
histories are rebuilt in the new order (:mod:`arena.store.history`)

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RATER = "elo"
"""The rater of the history :mod:`arena.tournaments.history` writes."""


def upgrade() -> None:
    op.create_table('rating_tournaments',
    sa.Column('rater', sa.String(length=50), nullable=False),
    sa.Column('ruleset', sa.String(length=100), nullable=False),
    sa.Column('tournament_id', sa.String(length=200), nullable=False),
    sa.Column('ended', sa.DateTime(), nullable=False),
    sa.Column('records', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('rater', 'ruleset', 'tournament_id', name=op.f('pk_rating_tournaments'))
    )
    op.create_index('ix_rating_tournaments_order', 'rating_tournaments',
                    ['rater', 'ruleset', 'ended', 'tournament_id'], unique=False)
    op.create_table('rating_bots',
    sa.Column('rater', sa.String(length=50), nullable=False),
    sa.Column('ruleset', sa.String(length=100), nullable=False),
    sa.Column('bot', sa.String(length=200), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('rater', 'ruleset', 'bot', name=op.f('pk_rating_bots'))
    )
    op.create_table('rating_deals',
    sa.Column('rater', sa.String(length=50), nullable=False),
    sa.Column('ruleset', sa.String(length=100), nullable=False),
    sa.Column('deal_id', sa.String(length=300), nullable=False),
    sa.Column('tables', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('rater', 'ruleset', 'deal_id', name=op.f('pk_rating_deals'))
    )
    # the histories so far were ordered by tournament creation and recomputed whole:
    # rebuild them in the order of the tournaments' ends, with their state
    from arena.store.history import rebuild_all

    rebuild_all(op.get_bind(), RATER)


def downgrade() -> None:
    op.drop_table('rating_deals')
    op.drop_table('rating_bots')
    op.drop_index('ix_rating_tournaments_order', table_name='rating_tournaments')
    op.drop_table('rating_tournaments')
