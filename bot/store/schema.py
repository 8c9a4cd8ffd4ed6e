"""The tables. The schema is owned by the migrations in ``migrations/``; these models mirror them for queries and
for ``alembic revision --autogenerate``, and a test checks that the two agree."""

from __future__ import annotations

import datetime as dt
from typing import cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Status values stored in games.status: the engine's three plus "abandoned" (replaced by a new game).
PLAYING, WON, BLOCKED, ABANDONED = "playing", "won", "blocked", "abandoned"

# An auto-incrementing 64-bit id; SQLite only auto-increments a column declared INTEGER.
BigId = BigInteger().with_variant(Integer(), "sqlite")


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class PlayerRow(Base):
    """A player, keyed by (platform, platform user id), with their settings."""

    __tablename__ = "players"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    platform: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[str] = mapped_column(String(64))
    display_name: Mapped[str] = mapped_column(String(100), server_default="")
    language: Mapped[str | None] = mapped_column(String(16))  # an override; NULL: the platform's locale
    explain_refusals: Mapped[bool] = mapped_column(Boolean, server_default=true())
    default_rules: Mapped[str] = mapped_column(String(8), server_default="easy")
    #: only deals the solver proved winnable (migration 0003); NULL: the rule set's default (on for Classic)
    winnable_only: Mapped[bool | None] = mapped_column(Boolean)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        UniqueConstraint("platform", "user_id"),
        CheckConstraint("default_rules IN ('easy', 'classic')", name="default_rules"),
    )


class GameRow(Base):
    """One game: its deal code, its full state (``Game.to_text()``, undo history included) and a version that
    every applied action increments. A player has at most one ``active`` game (a partial unique index)."""

    __tablename__ = "games"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    code: Mapped[str] = mapped_column(String(16))
    rules: Mapped[str] = mapped_column(String(8))
    state: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer, server_default="0")
    status: Mapped[str] = mapped_column(String(10), server_default=PLAYING)
    #: the player's current game: playing, or blocked (undo can still revive it)
    active: Mapped[bool] = mapped_column(Boolean, server_default=true())
    score: Mapped[int] = mapped_column(Integer)
    moves: Mapped[int] = mapped_column(Integer, server_default="0")
    daily: Mapped[dt.date | None] = mapped_column(Date)
    #: dealt on request as a deal the solver proved winnable (a new game from its buttons asks the same)
    dealt_winnable: Mapped[bool] = mapped_column(Boolean, server_default=false())
    hints_used: Mapped[int] = mapped_column(Integer, server_default="0")
    #: undos applied (migration 0003): shown on the board and the daily leaderboard
    undos_used: Mapped[int] = mapped_column(Integer, server_default="0")
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    #: when the game was won, blocked or abandoned; NULL while playing (an undo out of a block clears it)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # What the solver says of the deal from its start; NULL until known.
    verdict_winnable: Mapped[bool | None] = mapped_column(Boolean)
    verdict_best_score: Mapped[int | None] = mapped_column(Integer)
    #: when the full verdict (best score search included) was stored
    verdict_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    #: where the game's live board is: the chat or channel, and the message (written by the adapter that shows it)
    chat_id: Mapped[str | None] = mapped_column(String(64))
    message_id: Mapped[str | None] = mapped_column(String(64))
    #: a daily game's leaderboard (migration 0002): the Discord server or Telegram group it was started in; NULL
    #: in a private chat, and for other games
    board: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        CheckConstraint("status IN ('playing', 'won', 'blocked', 'abandoned')", name="status"),
        CheckConstraint("rules IN ('easy', 'classic')", name="rules"),
        Index("uq_games_active_player_id", "player_id", unique=True,
              sqlite_where=text("active"), postgresql_where=text("active")),
        Index(None, "player_id", "finished_at"),
        Index(None, "code"),
        Index(None, "daily"),
        Index(None, "daily", "board"),
    )


players = cast(Table, PlayerRow.__table__)
games = cast(Table, GameRow.__table__)

# Status values stored in daily_posts.status.
POST_CLAIMED, POST_SENT, POST_FAILED = "claimed", "sent", "failed"


class DailySubscriptionRow(Base):
    """A channel (Discord) or group (Telegram) that gets the daily deal posted, in its language."""

    __tablename__ = "daily_subscriptions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    platform: Mapped[str] = mapped_column(String(16))
    #: where the post goes: the Discord channel id, or the Telegram chat id
    channel_id: Mapped[str] = mapped_column(String(64))
    #: the leaderboard the channel belongs to: the Discord server id, or the Telegram chat id
    board: Mapped[str | None] = mapped_column(String(64))
    locale: Mapped[str] = mapped_column(String(16), server_default="en")
    #: the platform user id of whoever subscribed
    created_by: Mapped[str] = mapped_column(String(64), server_default="")
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))

    __table_args__ = (UniqueConstraint("platform", "channel_id"),)


class DailyPostRow(Base):
    """One subscription's post of one day's deal. The row is inserted (claimed) before sending, so of two processes
    only one sends it, and marked sent after; a restart never posts a day twice."""

    __tablename__ = "daily_posts"

    id: Mapped[int] = mapped_column(BigId, primary_key=True, autoincrement=True)
    subscription_id: Mapped[int] = mapped_column(ForeignKey("daily_subscriptions.id", ondelete="CASCADE"))
    day: Mapped[dt.date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(8), server_default=POST_CLAIMED)
    claimed_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    message_id: Mapped[str | None] = mapped_column(String(64))
    error: Mapped[str | None] = mapped_column(String(200))

    __table_args__ = (
        UniqueConstraint("subscription_id", "day"),
        CheckConstraint("status IN ('claimed', 'sent', 'failed')", name="status"),
    )


daily_subscriptions = cast(Table, DailySubscriptionRow.__table__)
daily_posts = cast(Table, DailyPostRow.__table__)
