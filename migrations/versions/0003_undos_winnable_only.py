"""Undos counted on each game (shown on the board and the daily leaderboard); the player's choice of winnable-only
deals (NULL: the default of the rule set).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("players.winnable_only", "games.undos_used")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("undos_used", sa.Integer(), server_default="0", nullable=False))
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("winnable_only", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("winnable_only")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("undos_used")
