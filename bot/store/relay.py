"""The relay's requests (``board_relay``): a chat board to redraw or a challenger to tell, left by a process that
does not run the game's platform for one that does. Each game and kind holds one request, the latest; taking them is
one ``DELETE ... RETURNING``, so of two processes taking at once each request goes to exactly one (PostgreSQL's row
locks, SQLite's write lock)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import ColumnElement, delete, exists, or_, select

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import board_relay

BOARD, TELL = "board", "tell"


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


__all__ = ["BOARD", "TELL", "RelayRow", "put", "take", "waiting"]
