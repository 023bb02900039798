"""leases: match specs are leased (owner, expiry, heartbeat), failed ones retried with backoff

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01

``match_specs`` gains ``lease_expires`` (renewed by the holder's heartbeat),
``not_before`` (retry backoff of a failed match, or a match deferred while a
remote bot is offline), ``deferred_since`` (when that deferral began) and
``round`` (which round of the format the spec belongs to); the status
``running`` becomes ``leased``.
``tournaments`` gains ``round`` (the newest round the format has added) and
``finished`` (when the conductor finalized it).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('match_specs') as batch:
        batch.add_column(sa.Column('lease_expires', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('not_before', sa.DateTime(), nullable=True))
        batch.add_column(sa.Column('round', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('deferred_since', sa.DateTime(), nullable=True))
    with op.batch_alter_table('tournaments') as batch:
        batch.add_column(sa.Column('round', sa.Integer(), nullable=False, server_default='0'))
        batch.add_column(sa.Column('finished', sa.DateTime(), nullable=True))
    # a claim of the old schema had no expiry: it expires at once, and the
    # conductor offers the match again (its record is still written once)
    op.execute("UPDATE match_specs SET status = 'leased', lease_expires = claimed_at "
               "WHERE status = 'running'")


def downgrade() -> None:
    op.execute("UPDATE match_specs SET status = 'running' WHERE status = 'leased'")
    with op.batch_alter_table('tournaments') as batch:
        batch.drop_column('finished')
        batch.drop_column('round')
    with op.batch_alter_table('match_specs') as batch:
        batch.drop_column('deferred_since')
        batch.drop_column('round')
        batch.drop_column('not_before')
        batch.drop_column('lease_expires')
