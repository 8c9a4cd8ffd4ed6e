"""One door out (issue 50): what must reach a chat outside a command's own answer (a chat board redrawn after a
move at the table, a challenger told how their challenge went) is written in the same transaction as the change
that causes it, then delivered by a process that runs the chat's platform and marked delivered; see
bot/app/outbox.py. It takes the place of 0010's ``board_relay``, whose taking (a ``DELETE ... RETURNING`` before
the send) lost a message when the process died in between.

Upgrading drops the relay's requests still waiting (seconds' worth of chat board redraws, which the next move
redraws anyway); downgrading drops the outbox (``tripeaks db downgrade`` asks first, as for any table).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("outbox",)

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("game_id", _ID, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("chat_id", sa.String(64), nullable=True),
        sa.Column("locale", sa.String(16), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("claimed_until", sa.Float(), nullable=True),
        sa.Column("delivered_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("game_id", "kind", name="uq_outbox_game_id_kind"),
    )
    op.create_index("ix_outbox_platform_delivered_at", "outbox", ["platform", "delivered_at"])
    op.drop_table("board_relay")


def downgrade() -> None:
    op.create_table(
        "board_relay",
        sa.Column("game_id", _ID, nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("chat_id", sa.String(64), nullable=True),
        sa.Column("locale", sa.String(16), nullable=True),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_board_relay_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "kind", name=op.f("pk_board_relay")),
    )
    op.drop_index("ix_outbox_platform_delivered_at", table_name="outbox")
    op.drop_table("outbox")
