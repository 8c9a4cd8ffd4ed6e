"""The outbox remembers which request of a row was handed to its platform (``attempted_seq``), committed before the
send: a row claimed again after a process stopped mid-send is known to be a second try (Discord drops the repeat by
its nonce; on Telegram it is logged, as the chat may see the message twice).

Downgrading drops the column: what it says matters only while a row waits to be delivered again.

Revision ID: 0016_door
Revises: 0015_owner
Create Date: 2026-12-08
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0016_door"
down_revision: str | Sequence[str] | None = "0015_owner"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops).
downgrade_drops: tuple[str, ...] = ("outbox.attempted_seq",)


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("attempted_seq", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("attempted_seq")
