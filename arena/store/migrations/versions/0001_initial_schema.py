"""initial schema

Revision ID: 0001
Revises: (none)
Create Date: 2026-11-29

Bots (hashed tokens), tournaments, match specs with status and claims, match
records (one per match id), per-seat results and rating history.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('bots',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('owner', sa.String(length=200), nullable=False),
    sa.Column('token_sha256', sa.String(length=64), nullable=False),
    sa.Column('created', sa.DateTime(), nullable=False),
    sa.Column('revoked', sa.Boolean(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_bots')),
    sa.UniqueConstraint('token_sha256', name=op.f('uq_bots_token_sha256'))
    )
    op.create_table('match_records',
    sa.Column('match_id', sa.String(length=220), nullable=False),
    sa.Column('tournament_id', sa.String(length=200), nullable=True),
    sa.Column('record', sa.JSON(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('match_id', name=op.f('pk_match_records'))
    )
    op.create_index(op.f('ix_match_records_tournament_id'), 'match_records', ['tournament_id'], unique=False)
    op.create_table('rating_history',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('rater', sa.String(length=50), nullable=False),
    sa.Column('ruleset', sa.String(length=100), nullable=False),
    sa.Column('bot', sa.String(length=200), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('interval', sa.Float(), nullable=True),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(), nullable=False),
    sa.Column('match_id', sa.String(length=220), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rating_history'))
    )
    op.create_index('ix_rating_history_ruleset_bot', 'rating_history', ['ruleset', 'bot', 'id'], unique=False)
    op.create_table('tournaments',
    sa.Column('id', sa.String(length=200), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('game', sa.String(length=100), nullable=False),
    sa.Column('config', sa.JSON(), nullable=False),
    sa.Column('created', sa.DateTime(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tournaments'))
    )
    op.create_table('match_specs',
    sa.Column('match_id', sa.String(length=220), nullable=False),
    sa.Column('tournament_id', sa.String(length=200), nullable=False),
    sa.Column('match_index', sa.Integer(), nullable=False),
    sa.Column('spec', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('claimed_by', sa.String(length=200), nullable=True),
    sa.Column('claimed_at', sa.DateTime(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('updated', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['tournament_id'], ['tournaments.id'], name=op.f('fk_match_specs_tournament_id_tournaments'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('match_id', name=op.f('pk_match_specs')),
    sa.UniqueConstraint('tournament_id', 'match_index', name=op.f('uq_match_specs_tournament_id_match_index'))
    )
    op.create_index('ix_match_specs_tournament_status', 'match_specs', ['tournament_id', 'status', 'match_index'], unique=False)
    op.create_table('results',
    sa.Column('id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
    sa.Column('match_id', sa.String(length=220), nullable=False),
    sa.Column('tournament_id', sa.String(length=200), nullable=True),
    sa.Column('ruleset', sa.String(length=100), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('entrant', sa.String(length=200), nullable=False),
    sa.Column('bot', sa.String(length=200), nullable=False),
    sa.Column('returns', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['match_records.match_id'], name=op.f('fk_results_match_id_match_records'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_results')),
    sa.UniqueConstraint('match_id', 'seat', name=op.f('uq_results_match_id_seat'))
    )
    op.create_index(op.f('ix_results_bot'), 'results', ['bot'], unique=False)
    op.create_index(op.f('ix_results_ruleset'), 'results', ['ruleset'], unique=False)
    op.create_index(op.f('ix_results_tournament_id'), 'results', ['tournament_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_results_tournament_id'), table_name='results')
    op.drop_index(op.f('ix_results_ruleset'), table_name='results')
    op.drop_index(op.f('ix_results_bot'), table_name='results')
    op.drop_table('results')
    op.drop_index('ix_match_specs_tournament_status', table_name='match_specs')
    op.drop_table('match_specs')
    op.drop_table('tournaments')
    op.drop_index('ix_rating_history_ruleset_bot', table_name='rating_history')
    op.drop_table('rating_history')
    op.drop_index(op.f('ix_match_records_tournament_id'), table_name='match_records')
    op.drop_table('match_records')
    op.drop_table('bots')
