"""A round whose message is an interaction's response (issue 51): on Discord where the bot is no member of the chat
(a group DM, or a server, where the app is installed to a player's own account only) the bot cannot edit a channel
message; it edits the round message through the interaction's webhook, with the interaction's token, which any
process must be able to use. ``rounds.reply_token`` holds it (a secret, valid 15 minutes: cleared once the results
have landed); NULL for a round whose message the bot edits with its own token.

Downgrading drops the column: a round running then keeps its message as it stands until the results are given up.

Revision ID: 0017_dms
Revises: 0016_door
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0017_dms"
down_revision: str | Sequence[str] | None = "0016_door"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("rounds.reply_token",)


def upgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("reply_token", sa.String(512), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("reply_token")
