"""Storage: the tables, the async engine, and the Alembic migrations that create them.

SQLite (``sqlite+aiosqlite``) is the default: one file in a data folder, created on first run, in WAL mode so
readers never wait for the writer. Any other SQLAlchemy async URL can be given in ``DATABASE_URL``;
``postgresql+asyncpg`` is tested.

Transactions on SQLite start with ``BEGIN IMMEDIATE``: a transaction takes the database's write lock before its
first read, so two actions on one game can never both read the same old state and then race to write (SQLite would
otherwise fail the second writer with "database is locked" instead of waiting). Other processes wait up to
``busy_timeout`` for the lock. ``synchronous=FULL`` makes every commit durable even across a power cut, at about a
quarter of a millisecond a commit on this machine's disk.

The schema is owned by the migrations in ``migrations/``: :func:`upgrade_database` applies them (the service does
on start, and so does ``tripeaks db upgrade``). The models below mirror them for queries and for
``alembic revision --autogenerate``; a test checks that the two agree.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Connection,
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
    event,
    false,
    text,
    true,
)
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

#: Used when neither an explicit URL nor ``DATABASE_URL`` is given; relative to the working directory.
DEFAULT_URL = "sqlite+aiosqlite:///data/tripeaks.db"
#: Where the Alembic scripts live: the repository's ``migrations`` folder, found from this file so that
#: ``tripeaks db upgrade`` works from any directory (see :func:`migrations_dir` for installed copies).
MIGRATIONS_DIR = Path(__file__).resolve().parents[2] / "migrations"
#: How long a SQLite connection waits for another process's write lock before giving up (milliseconds).
SQLITE_BUSY_TIMEOUT_MS = 10_000
#: The interpreter's GIL switch interval (seconds) in a process using SQLite: aiosqlite runs every statement in a
#: thread, which otherwise waits up to Python's default 5 ms for the GIL each time the event loop is busy.
SQLITE_SWITCH_INTERVAL = 0.0005

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# Status values stored in games.status: the engine's three plus "abandoned" (replaced by a new game).
PLAYING, WON, BLOCKED, ABANDONED = "playing", "won", "blocked", "abandoned"
STATUSES = (PLAYING, WON, BLOCKED, ABANDONED)
#: A game counts in the statistics once it has one of these statuses.
ENDED = (WON, BLOCKED, ABANDONED)

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
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    updated_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    #: when the game was won, blocked or abandoned; NULL while playing (an undo out of a block clears it)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # What the solver says of the deal from its start; NULL until known.
    verdict_winnable: Mapped[bool | None] = mapped_column(Boolean)
    verdict_best_score: Mapped[int | None] = mapped_column(Integer)
    #: when the full verdict (best score search included) was stored
    verdict_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    # Where the game is shown, for the adapters' later use.
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


# --- engines -----------------------------------------------------------------------------------------------------


def database_url(url: str | URL | None = None) -> URL:
    """The URL to use: ``url``, else ``DATABASE_URL``, else :data:`DEFAULT_URL`. Plain ``sqlite://`` and
    ``postgresql://`` (or ``postgres://``) URLs get their async driver."""
    chosen = make_url(url or os.environ.get("DATABASE_URL") or DEFAULT_URL)
    if chosen.drivername == "sqlite":
        chosen = chosen.set(drivername="sqlite+aiosqlite")
    elif chosen.drivername in ("postgresql", "postgres"):
        chosen = chosen.set(drivername="postgresql+asyncpg")
    return chosen


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def _sqlite_file(url: URL) -> Path | None:
    name = url.database
    if not name or name == ":memory:" or name.startswith("file:") or url.query.get("mode") == "memory":
        return None
    return Path(name)


def create_engine(url: str | URL | None = None, **kwargs: Any) -> AsyncEngine:
    """An async engine for ``url`` (see :func:`database_url`). On SQLite: the data folder is created, and every
    connection gets WAL, foreign keys, a busy timeout and ``BEGIN IMMEDIATE`` transactions; the process's GIL switch
    interval is shortened (see :data:`SQLITE_SWITCH_INTERVAL`)."""
    resolved = database_url(url)
    if not is_sqlite(resolved):
        return create_async_engine(resolved, **kwargs)
    path = _sqlite_file(resolved)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    # process-wide, and only ever shortened: see SQLITE_SWITCH_INTERVAL (bench/load.py: p50 at 700 taps/s
    # from 13-18 ms down to 4-5 ms)
    sys.setswitchinterval(min(sys.getswitchinterval(), SQLITE_SWITCH_INTERVAL))
    engine = create_async_engine(resolved, **kwargs)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from the sqlite3 module: it would not BEGIN before a SELECT.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


@dataclass
class Database:
    """An engine and its sessionmaker, for one database URL."""

    url: URL
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    @property
    def is_sqlite(self) -> bool:
        return is_sqlite(self.url)

    async def close(self) -> None:
        await self.engine.dispose()


async def open_database(url: str | URL | None = None, *, migrate: bool = True, **engine_kwargs: Any) -> Database:
    """Open the database at ``url`` (see :func:`database_url`), first upgrading it to the latest schema unless
    ``migrate`` is false."""
    resolved = database_url(url)
    if migrate:
        await upgrade_database(resolved)
    engine = create_engine(resolved, **engine_kwargs)
    return Database(resolved, engine, create_sessionmaker(engine))


# --- migrations --------------------------------------------------------------------------------------------------


def migrations_dir() -> Path:
    """The ``migrations`` folder: beside the ``bot`` package (a checkout or an editable install), else in the
    working directory (an image that copied the repository and installed it with ``pip install .``)."""
    for candidate in (MIGRATIONS_DIR, Path.cwd() / "migrations"):
        if (candidate / "env.py").is_file():
            return candidate
    raise FileNotFoundError(f"no Alembic migrations folder at {MIGRATIONS_DIR} or {Path.cwd() / 'migrations'}")


def alembic_config() -> Any:
    """An Alembic ``Config`` built in code: no ``alembic.ini`` needed, whatever the working directory."""
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_dir()))
    return config


def _run_alembic(connection: Connection, command_name: str, revision: str) -> None:
    from alembic import command

    config = alembic_config()
    # migrations/env.py runs on this connection (and inside its transaction) when it is given one
    config.attributes["connection"] = connection
    getattr(command, command_name)(config, revision)


async def upgrade_database(url: str | URL | None = None, revision: str = "head") -> None:
    """Apply the migrations up to ``revision`` (default: the latest), creating the database file if needed. This
    is what ``tripeaks db upgrade`` runs."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run_alembic, "upgrade", revision)
    finally:
        await engine.dispose()


async def downgrade_database(url: str | URL | None = None, revision: str = "base") -> None:
    """Undo the migrations down to ``revision`` (default: an empty database)."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run_alembic, "downgrade", revision)
    finally:
        await engine.dispose()


async def current_revision(url: str | URL | None = None) -> str | None:
    """The revision the database is at, or None for an empty one."""
    from alembic.runtime.migration import MigrationContext

    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            return await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision())
    finally:
        await engine.dispose()


# --- the daily deal: subscriptions and posts (migration 0002) ----------------------------------------------------

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
