"""Players with their settings, and games with their state, version and the solver's verdict.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("players", "games")

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "players",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("platform", sa.String(16), nullable=False),
        sa.Column("user_id", sa.String(64), nullable=False),
        sa.Column("display_name", sa.String(100), server_default="", nullable=False),
        sa.Column("language", sa.String(16), nullable=True),
        sa.Column("explain_refusals", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("default_rules", sa.String(8), server_default="easy", nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("default_rules IN ('easy', 'classic')", name=op.f("ck_players_default_rules")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
        sa.UniqueConstraint("platform", "user_id", name=op.f("uq_players_platform_user_id")),
    )
    op.create_table(
        "games",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("player_id", BigId, nullable=False),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("rules", sa.String(8), nullable=False),
        sa.Column("state", sa.Text(), nullable=False),
        sa.Column("version", sa.Integer(), server_default="0", nullable=False),
        sa.Column("status", sa.String(10), server_default="playing", nullable=False),
        sa.Column("active", sa.Boolean(), server_default=sa.true(), nullable=False),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Integer(), server_default="0", nullable=False),
        sa.Column("daily", sa.Date(), nullable=True),
        sa.Column("dealt_winnable", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("hints_used", sa.Integer(), server_default="0", nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("verdict_winnable", sa.Boolean(), nullable=True),
        sa.Column("verdict_best_score", sa.Integer(), nullable=True),
        sa.Column("verdict_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("chat_id", sa.String(64), nullable=True),
        sa.Column("message_id", sa.String(64), nullable=True),
        sa.CheckConstraint("status IN ('playing', 'won', 'blocked', 'abandoned')", name=op.f("ck_games_status")),
        sa.CheckConstraint("rules IN ('easy', 'classic')", name=op.f("ck_games_rules")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_games_player_id_players"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    # one active game per player
    op.create_index("uq_games_active_player_id", "games", ["player_id"], unique=True,
                    sqlite_where=sa.text("active"), postgresql_where=sa.text("active"))
    op.create_index(op.f("ix_games_player_id_finished_at"), "games", ["player_id", "finished_at"])
    op.create_index(op.f("ix_games_code"), "games", ["code"])
    op.create_index(op.f("ix_games_daily"), "games", ["daily"])


def downgrade() -> None:
    op.drop_index(op.f("ix_games_daily"), table_name="games")
    op.drop_index(op.f("ix_games_code"), table_name="games")
    op.drop_index(op.f("ix_games_player_id_finished_at"), table_name="games")
    op.drop_index("uq_games_active_player_id", table_name="games")
    op.drop_table("games")
    op.drop_table("players")
