"""The relay's requests (``board_relay``): a chat board to redraw or a challenger to tell, left by a process that
does not run the game's platform for one that does. Each game and kind holds one request, the latest; taking them is
one ``DELETE ... RETURNING``, so of two processes taking at once each request goes to exactly one (PostgreSQL's row
locks, SQLite's write lock). On PostgreSQL each request left is also announced (``NOTIFY``), so that a process
listening takes it at once rather than at its next look (:func:`announced`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, delete, exists, func, or_, select

from bot.store.engine import Database, DatabaseError, Transaction, conflict_insert
from bot.store.schema import board_relay

BOARD, TELL = "board", "tell"
#: The PostgreSQL channel (LISTEN/NOTIFY) on which each request left is announced.
CHANNEL = "board_relay"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RelayRow:
    """One request as stored: ``at`` in seconds since the epoch."""

    game_id: int
    kind: str
    platform: str
    chat_id: str | None
    locale: str | None
    at: float


async def put(tx: Transaction, row: RelayRow) -> None:
    """Leave ``row``, in place of the request of its game and kind still waiting (one redraw of the latest)."""
    statement = conflict_insert(tx, board_relay).values(
        game_id=row.game_id, kind=row.kind, platform=row.platform, chat_id=row.chat_id, locale=row.locale, at=row.at)
    new = statement.excluded
    await tx.execute(statement.on_conflict_do_update(
        index_elements=["game_id", "kind"],
        set_={"platform": new.platform, "chat_id": new.chat_id, "locale": new.locale, "at": new.at}))
    if tx.dialect.name == "postgresql":
        await tx.execute(select(func.pg_notify(CHANNEL, "")))  # delivered when the transaction commits


def _for(platforms: Collection[str], stale_before: float) -> ColumnElement[bool]:
    return or_(board_relay.c.platform.in_(list(platforms)), board_relay.c.at < stale_before)


async def waiting(tx: Transaction, platforms: Collection[str], stale_before: float) -> bool:
    """Whether any request is waiting for one of ``platforms``, or is older than ``stale_before`` (a read: a poll
    that finds nothing takes no write lock)."""
    return bool((await tx.execute(select(exists().where(_for(platforms, stale_before))))).scalar())


async def take(tx: Transaction, platforms: Collection[str], stale_before: float) -> list[RelayRow]:
    """Remove and return the requests for ``platforms``, and those of any platform older than ``stale_before`` (for
    the caller to drop): each is returned to one caller only."""
    removed = await tx.execute(delete(board_relay).where(_for(platforms, stale_before)).returning(
        board_relay.c.game_id, board_relay.c.kind, board_relay.c.platform, board_relay.c.chat_id,
        board_relay.c.locale, board_relay.c.at))
    return [RelayRow(*row) for row in removed]


#: How long (seconds) the listening connection, once lost or not to be had, waits before it is opened again.
LISTEN_RETRY = 5.0


@contextlib.asynccontextmanager
async def announced(db: Database, wake: Callable[[], None]) -> AsyncIterator[None]:
    """While open, ``wake`` is called each time a request is left, by any process: PostgreSQL's ``LISTEN`` on a
    connection of its own, opened again :data:`LISTEN_RETRY` seconds after it is lost (and ``wake`` called once it
    listens again, for what was left meanwhile). Never on SQLite; the caller also looks now and then."""
    if db.is_sqlite:
        yield
        return
    listening = asyncio.create_task(_listen(db, wake), name="relay listen")
    try:
        yield
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening


async def _listen(db: Database, wake: Callable[[], None]) -> None:
    def heard(*_: object) -> None:
        wake()

    failing = False
    while True:
        lost = asyncio.Event()
        try:
            async with db.engine.connect() as connection:
                driver: Any = (await connection.get_raw_connection()).driver_connection  # asyncpg's
                driver.add_termination_listener(lambda _connection, closed=lost.set: closed())
                await driver.add_listener(CHANNEL, heard)
                if failing:
                    log.info("listening for relay requests again")
                else:
                    log.debug("listening for relay requests")
                failing = False
                wake()  # what was left while nobody here listened
                try:
                    await lost.wait()
                    await connection.invalidate()  # lost: the pool opens another rather than reset this one
                    log.info("the connection listening for relay requests was lost")
                    failing = True
                finally:
                    with contextlib.suppress(Exception):  # a connection already lost listens no more anyway
                        await driver.remove_listener(CHANNEL, heard)
        except (DatabaseError, OSError) as error:
            if not failing:
                log.info("not listening for relay requests (looking now and then instead): %s", error)
            failing = True
        await asyncio.sleep(LISTEN_RETRY)


__all__ = ["BOARD", "CHANNEL", "LISTEN_RETRY", "TELL", "RelayRow", "announced", "put", "take", "waiting"]
