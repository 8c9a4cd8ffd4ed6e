"""The indexes the reading paths need (issue 38): a player's newest game (``ORDER BY id DESC`` among their games)
and the games that answer a challenge (``challenge_of``, which a deleted game's ``ON DELETE SET NULL`` looks up).

Indexes only: upgrading and downgrading keep every row.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops): indexes only.
downgrade_drops: tuple[str, ...] = ()


def upgrade() -> None:
    op.create_index(op.f("ix_games_player_id_id"), "games", ["player_id", "id"])
    op.create_index(op.f("ix_games_challenge_of"), "games", ["challenge_of"])


def downgrade() -> None:
    op.drop_index(op.f("ix_games_challenge_of"), table_name="games")
    op.drop_index(op.f("ix_games_player_id_id"), table_name="games")
