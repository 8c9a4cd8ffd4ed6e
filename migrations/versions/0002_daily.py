"""The daily deal: the leaderboard a daily game counts on, subscribed channels and groups, and their posts.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("daily_subscriptions", "daily_posts", "games.board")

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.add_column("games", sa.Column("board", sa.String(64), nullable=True))
    op.create_index(op.f("ix_games_daily_board"), "games", ["daily", "board"])
    op.create_table(
        "daily_subscriptions",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("channel_id", sa.String(64), nullable=False),
        sa.Column("board", sa.String(64), nullable=True),
        sa.Column("locale", sa.String(16), server_default="en", nullable=False),
        sa.Column("created_by", sa.String(64), server_default="", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_daily_subscriptions")),
        sa.UniqueConstraint("platform", "channel_id", name=op.f("uq_daily_subscriptions_platform_channel_id")),
    )
    op.create_table(
        "daily_posts",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("subscription_id", BigId, nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("status", sa.String(8), server_default="claimed", nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("message_id", sa.String(64), nullable=True),
        sa.Column("error", sa.String(200), nullable=True),
        sa.CheckConstraint("status IN ('claimed', 'sent', 'failed')", name=op.f("ck_daily_posts_status")),
        sa.ForeignKeyConstraint(["subscription_id"], ["daily_subscriptions.id"],
                                name=op.f("fk_daily_posts_subscription_id_daily_subscriptions"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_daily_posts")),
        sa.UniqueConstraint("subscription_id", "day", name=op.f("uq_daily_posts_subscription_id_day")),
    )


def downgrade() -> None:
    op.drop_table("daily_posts")
    op.drop_table("daily_subscriptions")
    op.drop_index(op.f("ix_games_daily_board"), table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("board")
