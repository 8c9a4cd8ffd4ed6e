"""The player's board: a picture of the cards (the default) or monospace text, and the picture's four-colour deck.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("players.board_style", "players.four_colour")


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("board_style", sa.String(length=8), server_default="picture", nullable=False))
        batch.add_column(sa.Column("four_colour", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.create_check_constraint(op.f("ck_players_board_style"), "board_style IN ('picture', 'text')")


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_constraint(op.f("ck_players_board_style"), type_="check")
        batch.drop_column("four_colour")
        batch.drop_column("board_style")
