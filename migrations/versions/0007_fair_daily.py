"""A daily nobody can game (issue 24): the deployment's secret that daily codes depend on (generated here, once per
database, so nobody without the operator's database can compute a future daily), one attempt per player per day
(a unique index; duplicate attempts left by the old race keep only their first as the attempt), the version a hint
was last counted at (a hint is counted once per position), the day whose daily deal a game replays once the
attempt is over (practice, unranked), and the communities (servers, groups) a player was seen
in (a leaderboard lists every player seen there, wherever their attempt was played).

The secret outlives every downgrade (issue 43): no revision drops the ``deployment`` table, so a downgrade and the
upgrade after it (this one finds the table and its secret, and keeps them) give every day the same daily deal.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("games.hinted_version", "games.practice_of", "community_players")

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    if context.is_offline_mode() or not sa.inspect(op.get_bind()).has_table("deployment"):
        op.create_table(
            "deployment",
            sa.Column("name", sa.String(32), nullable=False),
            sa.Column("value", sa.String(128), nullable=False),
            sa.PrimaryKeyConstraint("name", name=op.f("pk_deployment")),
        )
    # a secret kept through a downgrade stays the secret
    op.execute(sa.text("INSERT INTO deployment (name, value) SELECT 'daily_secret', :value WHERE NOT EXISTS "
                       "(SELECT 1 FROM deployment WHERE name = 'daily_secret')")
               .bindparams(value=secrets.token_hex(32)))
    op.create_table(
        "community_players",
        sa.Column("player_id", BigId, nullable=False),
        sa.Column("community", sa.String(64), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_community_players_player_id_players"),
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("player_id", "community", name=op.f("pk_community_players")),
    )
    op.create_index(op.f("ix_community_players_community"), "community_players", ["community"])
    # every player already on a board was seen there
    op.execute("INSERT INTO community_players (player_id, community, seen_at) "
               "SELECT player_id, community, MIN(started_at) FROM games WHERE community IS NOT NULL "
               "GROUP BY player_id, community")
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("hinted_version", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("practice_of", sa.Date(), nullable=True))
    # a player's later games of a day (the old double-tap race) are no attempt: their first is
    op.execute("UPDATE games SET daily = NULL WHERE daily IS NOT NULL AND id NOT IN "
               "(SELECT first FROM (SELECT MIN(id) AS first FROM games WHERE daily IS NOT NULL "
               "GROUP BY player_id, daily) AS firsts)")
    op.create_index(op.f("ix_games_player_id_daily"), "games", ["player_id", "daily"], unique=True)


def downgrade() -> None:
    op.drop_index(op.f("ix_games_player_id_daily"), table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("practice_of")
        batch.drop_column("hinted_version")
    op.drop_index(op.f("ix_community_players_community"), table_name="community_players")
    op.drop_table("community_players")
    # the deployment table stays, with the daily secret: see the module's docstring
