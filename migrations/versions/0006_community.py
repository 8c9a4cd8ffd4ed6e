"""The server or group a daily attempt counts in, and a subscribed channel belongs to, is named what it is: the
column ``board`` of ``games`` and ``daily_subscriptions`` becomes ``community`` (its values kept), and the index
``ix_games_daily_board`` becomes ``ix_games_daily_community``. A renaming only: a downgrade names them back.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None
#: What a downgrade from here drops, values and all (see bot.store.migrate.DowngradeDrops): nothing, it renames.
downgrade_drops: tuple[str, ...] = ()


def _rename(old: str, new: str) -> None:
    # the index goes first and comes back on the renamed column: SQLite rebuilds the table in batch mode
    op.drop_index(op.f(f"ix_games_daily_{old}"), table_name="games")
    with op.batch_alter_table("games") as batch:
        batch.alter_column(old, new_column_name=new)
    op.create_index(op.f(f"ix_games_daily_{new}"), "games", ["daily", new])
    with op.batch_alter_table("daily_subscriptions") as batch:
        batch.alter_column(old, new_column_name=new)


def upgrade() -> None:
    _rename("board", "community")


def downgrade() -> None:
    _rename("community", "board")
