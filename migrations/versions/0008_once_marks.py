"""Buttons that act once across processes (issue 38): a Share or Review of a game, the question asked about a game
and the answer No to it are marked in the database, so two taps reaching two processes act once.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-06
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


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
    # only marks of taps a minute old at most, and the No answers to open questions (asked again after it)
    op.drop_table("once_marks")
