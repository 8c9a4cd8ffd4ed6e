"""Live rounds (issue 51): a group or channel plays one deal together against a clock. A round is a row of its own
(its chat, its deal, when it ends, the message showing its standings); each player's game of it names it
(``games.round_id``), one a player a round (a unique index).

Downgrading drops the rounds and the games' link to them; the games themselves stay, as ordinary games.

Revision ID: 0013
Revises: 0011
Create Date: 2026-12-07
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("rounds", "games.round_id")

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "rounds",
        sa.Column("id", _ID, autoincrement=True, nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("chat_id", sa.String(64), nullable=False),
        sa.Column("message_id", sa.String(64), nullable=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("chosen", sa.Boolean(), nullable=False),
        sa.Column("host", sa.String(100), nullable=False, server_default=""),
        sa.Column("locale", sa.String(16), nullable=False, server_default="en"),
        sa.Column("minutes", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ends_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("results_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rounds")),
    )
    op.create_index(op.f("ix_rounds_ended_at_ends_at"), "rounds", ["ended_at", "ends_at"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("round_id", _ID, nullable=True))
        batch.create_foreign_key(op.f("fk_games_round_id_rounds"), "rounds", ["round_id"], ["id"],
                                 ondelete="SET NULL")
        batch.create_index(op.f("ix_games_round_id_player_id"), ["round_id", "player_id"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_index(op.f("ix_games_round_id_player_id"))
        batch.drop_constraint(op.f("fk_games_round_id_rounds"), type_="foreignkey")
        batch.drop_column("round_id")
    op.drop_index(op.f("ix_rounds_ended_at_ends_at"), table_name="rounds")
    op.drop_table("rounds")
