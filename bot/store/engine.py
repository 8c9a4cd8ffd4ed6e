"""The async engine: which database a URL names, and SQLite's connection settings.

SQLite (``sqlite+aiosqlite``) is the default: one file in a data folder, created on first run, in WAL mode, so a
reader can read while another connection writes. ``postgresql+asyncpg`` is the other tested driver.

Two kinds of transaction (:class:`Database`):

- :meth:`Database.transaction`, the one that may write. On SQLite it starts with ``BEGIN IMMEDIATE``: it takes the
  database's write lock before its first read, so two actions on one game can never both read the same old state
  and then race to write (SQLite would otherwise fail the second writer with "database is locked" instead of
  waiting). This process's writers queue for it in order; other processes wait up to ``busy_timeout``.
  ``synchronous=FULL`` makes every commit durable even across a power cut.
- :meth:`Database.reading`, read only: a settings or locale lookup, a game shown, the statistics, a leaderboard.
  On SQLite a deferred ``BEGIN`` outside the writers' queue and with ``PRAGMA query_only``: it reads one snapshot
  and never waits for a writer, in this process or another. On PostgreSQL a ``READ ONLY`` transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Table, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    create_async_engine,
)

#: Used when neither an explicit URL nor ``DATABASE_URL`` is given; relative to the working directory.
DEFAULT_URL = "sqlite+aiosqlite:///data/tripeaks.db"
#: How long a SQLite connection waits for another process's write lock before giving up (milliseconds).
SQLITE_BUSY_TIMEOUT_MS = 10_000
#: The interpreter's GIL switch interval (seconds) in a process using SQLite: aiosqlite runs every statement in a
#: thread, which otherwise waits up to Python's default 5 ms for the GIL each time the event loop is busy.
SQLITE_SWITCH_INTERVAL = 0.0005
#: The execution option that makes a SQLite transaction a reading one (see :meth:`Database.reading`), and the key
#: in a pooled connection's ``info`` that says whether its ``PRAGMA query_only`` is on.
SQLITE_READ_ONLY = "tripeaks_read_only"


def database_url(url: str | URL | None = None) -> URL:
    """The URL to use: ``url`` (from the configuration), else :data:`DEFAULT_URL`. Plain ``sqlite://`` and
    ``postgresql://`` (or ``postgres://``) URLs get their async driver."""
    chosen = make_url(url or DEFAULT_URL)
    if chosen.drivername == "sqlite":
        chosen = chosen.set(drivername="sqlite+aiosqlite")
    elif chosen.drivername in ("postgresql", "postgres"):
        chosen = chosen.set(drivername="postgresql+asyncpg")
    return chosen


def conflict_insert(tx: AsyncConnection, table: Table) -> Any:
    """An INSERT into ``table`` in the dialect of ``tx``, which has ON CONFLICT (SQLite and PostgreSQL, the two
    tested ones: callers check the dialect where another may come)."""
    return importlib.import_module(f"sqlalchemy.dialects.{tx.dialect.name}").insert(table)


#: The name the bot's PostgreSQL connections go by (``pg_stat_activity.application_name``).
APPLICATION_NAME = "tripeaks"


def is_sqlite(url: URL) -> bool:
    return url.get_backend_name() == "sqlite"


def _sqlite_file(url: URL) -> Path | None:
    name = url.database
    if not name or name == ":memory:" or name.startswith("file:") or url.query.get("mode") == "memory":
        return None
    return Path(name)


def sqlite_file(url: str | URL | None = None) -> Path | None:
    """The SQLite file ``url`` names (see :func:`database_url`); None for PostgreSQL or an in-memory database."""
    resolved = database_url(url)
    return _sqlite_file(resolved) if is_sqlite(resolved) else None


def create_engine(url: str | URL | None = None, **kwargs: Any) -> AsyncEngine:
    """An async engine for ``url`` (see :func:`database_url`). On SQLite: the data folder is created, and every
    connection gets WAL, foreign keys, a busy timeout and ``BEGIN IMMEDIATE`` transactions (a deferred, query-only
    ``BEGIN`` with the :data:`SQLITE_READ_ONLY` execution option); the process's GIL switch interval is shortened
    (see :data:`SQLITE_SWITCH_INTERVAL`). A failing statement's error (and any SQL log line) never shows its
    parameters: they hold players' names."""
    resolved = database_url(url)
    kwargs.setdefault("hide_parameters", True)
    if not is_sqlite(resolved):
        # a connection the server dropped (a restart, a failover, pg_terminate_backend) is found out and replaced
        # when it is taken from the pool, instead of failing the next action
        kwargs.setdefault("pool_pre_ping", True)
        # named, so that a command that must not run beside the bot (a downgrade) sees whether it runs
        kwargs.setdefault("connect_args", {"server_settings": {"application_name": APPLICATION_NAME}})
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
        reading = bool(connection.get_execution_options().get(SQLITE_READ_ONLY))
        if reading != connection.info.get(SQLITE_READ_ONLY, False):
            # the pragma belongs to the pooled connection, not to the transaction: switched only when the kind changes
            connection.exec_driver_sql(f"PRAGMA query_only = {int(reading)}")
            connection.info[SQLITE_READ_ONLY] = reading
        connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

    return engine


#: An open transaction, as the store's functions take it.
Transaction = AsyncConnection
#: What the database raises when it cannot be reached or refuses a statement (callers outside the store catch this).
DatabaseError = SQLAlchemyError


@dataclass
class Database:
    """An engine, for one database URL, and its transactions."""

    url: URL
    engine: AsyncEngine
    #: SQLite: this process's transactions queue here before ``BEGIN IMMEDIATE``, in order, instead of polling
    #: SQLite's lock (other processes wait on ``busy_timeout``).
    _queue: asyncio.Lock | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.is_sqlite:
            self._queue = asyncio.Lock()

    @property
    def is_sqlite(self) -> bool:
        return is_sqlite(self.url)

    @property
    def location(self) -> str:
        """Where the database is, for a person: a SQLite file's path, else the URL without its credentials."""
        from bot.config import redact_url

        path = _sqlite_file(self.url) if self.is_sqlite else None
        if path is not None:
            return str(path)
        return redact_url(self.url.render_as_string(hide_password=True))

    @contextlib.asynccontextmanager
    async def transaction(self) -> AsyncIterator[Transaction]:
        """One transaction that may write, on a Core connection, committed on leaving (rolled back on an error). On
        SQLite it holds the database's write lock from its start: use :meth:`reading` where nothing is written."""
        if self._queue is None:
            async with self.engine.begin() as connection:
                yield connection
        else:
            async with self._queue, self.engine.begin() as connection:
                yield connection

    @contextlib.asynccontextmanager
    async def reading(self) -> AsyncIterator[Transaction]:
        """One read-only transaction: a consistent snapshot that never waits for a writer (on SQLite no write lock
        and no place in this process's queue of writers). A statement that writes fails in it; it is rolled back on
        leaving."""
        options = {SQLITE_READ_ONLY: True} if self.is_sqlite else {"postgresql_readonly": True}
        async with self.engine.connect() as connection:
            await connection.execution_options(**options)
            transaction = await connection.begin()
            try:
                yield connection
            finally:
                await transaction.rollback()

    async def ping(self) -> None:
        """One trivial statement in a transaction of its own: raises :data:`DatabaseError` (or ``OSError``) when
        the database does not answer (the heartbeat asks this)."""
        async with self.transaction() as connection:
            await connection.exec_driver_sql("SELECT 1")

    async def close(self) -> None:
        await self.engine.dispose()

