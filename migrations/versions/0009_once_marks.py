"""Buttons that act once across processes (issue 38): a Share or Review of a game, the question asked about a game
and the answer No to it are marked in the database, so two taps reaching two processes act once.

Downgrading drops the marks (``tripeaks db downgrade`` asks first): a Share's or Review's lasts a minute anyway,
but a No under a question still open would no longer keep that question's Yes from starting the game it asked about.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("once_marks",)


def upgrade() -> None:
    op.create_table(
        "once_marks",
        sa.Column("game_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("version", sa.Integer(), server_default="0", nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_once_marks_game_id_games"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "kind", name=op.f("pk_once_marks")),
    )


def downgrade() -> None:
    op.drop_table("once_marks")
