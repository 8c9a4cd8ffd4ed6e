"""The accounts the deployment's owner blocked (issue 53's owner commands): a blocked account's commands are
refused, and nothing is stored from them. The owner's maintenance notice needs no table: it is a row of
``deployment`` (``owner_notice``), removed by a downgrade with the table.

Revision ID: 0015_owner
Revises: 0014
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0015_owner"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("blocked_accounts", "the owner's notice")


def upgrade() -> None:
    op.create_table(
        "blocked_accounts",
        sa.Column("platform", sa.String(length=16), primary_key=True),
        sa.Column("user_id", sa.String(length=64), primary_key=True),
        sa.Column("blocked_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.execute("DELETE FROM deployment WHERE name = 'owner_notice'")
    op.drop_table("blocked_accounts")
