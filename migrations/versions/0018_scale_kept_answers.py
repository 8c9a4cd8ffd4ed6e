"""Answers to solver questions kept for every process of a deployment (issue 53): a hint is a function of the
position shown, a review of the finished game, so a question answered through one process (a Discord shard, one
upstream of a Telegram webhook) is answered from here through the others. Each row is forgotten at ``expires``.

Downgrading drops the table: each process keeps its own answers in memory again, as before.

Revision ID: 0018_scale
Revises: 0017_dms
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0018_scale"
down_revision: str | Sequence[str] | None = "0017_dms"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("kept_answers",)


def upgrade() -> None:
    op.create_table(
        "kept_answers",
        sa.Column("key", sa.String(length=128), primary_key=True),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
    )
    op.create_index("ix_kept_answers_expires", "kept_answers", ["expires"])


def downgrade() -> None:
    op.drop_index("ix_kept_answers_expires", table_name="kept_answers")
    op.drop_table("kept_answers")
