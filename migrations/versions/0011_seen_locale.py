"""The language a player's chat client was last seen with (issue 44): a challenger who set no language of their own
is told how their challenge went in it, not in the language of whoever finished the game.

Written only when it changes. Downgrading drops the column; the challengers are then told in the finisher's
language again until it is seen anew.

Revision ID: 0011
Revises: 0009
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("players.seen_locale",)


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("seen_locale", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("seen_locale")
