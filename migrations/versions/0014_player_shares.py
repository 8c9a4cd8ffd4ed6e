"""Each player's share of new solver questions, in the database (issue 53): with several processes (Discord shards,
a Telegram webhook behind a load balancer) a player has one share, not one a process. A row holds the tokens a
player has left of one kind and when it was last taken from; it is rewritten by one statement each time.

Downgrading drops the table: the shares start full again, kept by each process in its memory as before.

Revision ID: 0014
Revises: 0011
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("player_shares",)


def upgrade() -> None:
    op.create_table(
        "player_shares",
        sa.Column("platform", sa.String(length=16), primary_key=True),
        sa.Column("user_id", sa.String(length=64), primary_key=True),
        sa.Column("kind", sa.String(length=16), primary_key=True),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("taken", sa.Boolean(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("player_shares")
