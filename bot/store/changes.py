"""Which players' current games changed, for the table's open streams (:mod:`bot.app.following`): each player's
current game and its version read in one statement for all of them, and, on PostgreSQL, every write that changes a
game announced (``NOTIFY``) so that a process listening reads them at once rather than at its next look
(:func:`listening`)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any

from sqlalchemy import func, select, true, tuple_

from bot.store.engine import Database, DatabaseError, Transaction
from bot.store.schema import games, players

#: The PostgreSQL channel (LISTEN/NOTIFY) on which a write that changed a game is announced.
CHANNEL = "games_changed"
#: How many players one statement asks about.
CHUNK = 500
#: How long (seconds) a listening connection, once lost or not to be had, waits before it is opened again.
LISTEN_RETRY = 5.0

log = logging.getLogger(__name__)


async def announce(tx: Transaction) -> None:
    """Announce that this transaction changed a game (PostgreSQL: delivered when it commits, once however many
    times it is announced in it; SQLite: nothing, the readers look now and then)."""
    if tx.dialect.name == "postgresql":
        await tx.execute(select(func.pg_notify(CHANNEL, "")))


async def current_versions(tx: Transaction, keys: Collection[tuple[str, str]]
                           ) -> dict[tuple[str, str], tuple[int, int]]:
    """Each of the players ``keys`` (platform, user id) that has a current game: that game's id and version."""
    found: dict[tuple[str, str], tuple[int, int]] = {}
    ordered = sorted(keys)
    for start in range(0, len(ordered), CHUNK):
        rows = await tx.execute(
            select(players.c.platform, players.c.user_id, games.c.id, games.c.version)
            .select_from(games.join(players, games.c.player_id == players.c.id))
            .where(tuple_(players.c.platform, players.c.user_id).in_(ordered[start:start + CHUNK]),
                   games.c.active == true()))
        found.update({(row.platform, row.user_id): (row.id, row.version) for row in rows})
    return found


@contextlib.asynccontextmanager
async def listening(db: Database, channel: str, wake: Callable[[], None]) -> AsyncIterator[None]:
    """While open, ``wake`` is called each time ``channel`` is notified, by any process: PostgreSQL's ``LISTEN`` on
    a connection of its own, opened again :data:`LISTEN_RETRY` seconds after it is lost (and ``wake`` called once
    it listens again, for what was announced meanwhile). Never on SQLite; the caller also looks now and then."""
    if db.is_sqlite:
        yield
        return
    task = asyncio.create_task(_listen(db, channel, wake), name=f"listen {channel}")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _listen(db: Database, channel: str, wake: Callable[[], None]) -> None:
    def heard(*_: object) -> None:
        wake()

    failing = False
    while True:
        lost = asyncio.Event()
        try:
            async with db.engine.connect() as connection:
                driver: Any = (await connection.get_raw_connection()).driver_connection  # asyncpg's
                driver.add_termination_listener(lambda _connection, closed=lost.set: closed())
                await driver.add_listener(channel, heard)
                if failing:
                    log.info("listening on %s again", channel)
                else:
                    log.debug("listening on %s", channel)
                failing = False
                wake()  # what was announced while nobody here listened
                try:
                    await lost.wait()
                    await connection.invalidate()  # lost: the pool opens another rather than reset this one
                    log.info("the connection listening on %s was lost", channel)
                    failing = True
                finally:
                    with contextlib.suppress(Exception):  # a connection already lost listens no more anyway
                        await driver.remove_listener(channel, heard)
        except (DatabaseError, OSError) as error:
            if not failing:
                log.info("not listening on %s (looking now and then instead): %s", channel, error)
            failing = True
        await asyncio.sleep(LISTEN_RETRY)


__all__ = ["CHANNEL", "LISTEN_RETRY", "announce", "current_versions", "listening"]
