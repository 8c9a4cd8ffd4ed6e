"""One game everywhere across processes (issue 42, point 5): a move at the table in a process that does not run the
game's chat platform leaves a request here, for a process that runs it to redraw the chat's board (or tell a
challenger) once; see bot/app/relay.py.

Downgrading drops the requests still waiting (``tripeaks db downgrade`` asks first, as for any table): at most
seconds' worth of redraws of chat boards, which the next move at the table redraws anyway.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("board_relay",)


def upgrade() -> None:
    op.create_table(
        "board_relay",
        sa.Column("game_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("chat_id", sa.String(64), nullable=True),
        sa.Column("locale", sa.String(16), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_board_relay_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "kind", name=op.f("pk_board_relay")),
    )


def downgrade() -> None:
    op.drop_table("board_relay")
