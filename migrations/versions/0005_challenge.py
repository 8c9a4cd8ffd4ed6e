"""A game started from someone's shared game ("Play this deal") remembers it, to compare the two when it ends.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("games.challenge_of",)

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("challenge_of", BigId, nullable=True))
        batch.create_foreign_key(op.f("fk_games_challenge_of_games"), "games", ["challenge_of"], ["id"],
                                 ondelete="SET NULL")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_constraint(op.f("fk_games_challenge_of_games"), type_="foreignkey")
        batch.drop_column("challenge_of")
