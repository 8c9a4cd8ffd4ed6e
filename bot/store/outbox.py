"""The outbox (``outbox``): what must reach a chat outside a command's own answer, written in the transaction of the
change that causes it (:func:`put_board`, :func:`put_tell`), claimed by a process that runs the chat's platform for
a lease (:func:`claim`: one ``UPDATE ... RETURNING``, so of two processes claiming at once each row goes to exactly
one: PostgreSQL's row locks, SQLite's write lock), then marked delivered (:func:`delivered`). A claim whose process
died runs out and the row is claimed again. On PostgreSQL each row written is also announced (``NOTIFY``), so that a
process listening claims it at once rather than at its next look (:func:`announced`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, delete, exists, func, or_, select, update

from bot.store.changes import listening
from bot.store.engine import Database, Transaction, conflict_insert
from bot.store.schema import outbox

BOARD, TELL, SHARE = "board", "tell", "share"
#: The PostgreSQL channel (LISTEN/NOTIFY) on which each row written is announced.
CHANNEL = "outbox"



@dataclass(frozen=True)
class OutboxRow:
    """One message to deliver as stored: ``at`` (when asked) in seconds since the epoch; ``seq`` tells a board asked
    for again since it was claimed; ``attempted``: this request was handed to the platform before (:func:`attempt`),
    by a process that stopped before marking it delivered."""

    game_id: int
    kind: str
    platform: str
    chat_id: str | None
    locale: str | None
    at: float
    id: int = 0
    seq: int = 0
    attempted: bool = False


async def put_board(tx: Transaction, row: OutboxRow, kind: str = BOARD) -> None:
    """Ask for the chat board of ``row``'s game to be redrawn (``kind`` :data:`SHARE`: its shared result posted in
    its chat): a new row, or the game's row asked for again (open to be claimed, delivered or not: it draws the
    game as it stands then)."""
    statement = conflict_insert(tx, outbox).values(
        game_id=row.game_id, kind=kind, platform=row.platform, chat_id=row.chat_id, locale=row.locale, at=row.at,
        seq=0)
    new = statement.excluded
    await tx.execute(statement.on_conflict_do_update(
        index_elements=["game_id", "kind"],
        set_={"platform": new.platform, "chat_id": new.chat_id, "locale": new.locale, "at": new.at,
              "seq": outbox.c.seq + 1, "claimed_until": None, "delivered_at": None}))
    await _announce(tx)


async def put_tell(tx: Transaction, row: OutboxRow) -> bool:
    """Ask for the challenger at ``row.chat_id`` to be told how ``row``'s game ended: once a game, ever (whether the
    first is still waiting or was delivered). Whether this was the first."""
    statement = conflict_insert(tx, outbox).values(
        game_id=row.game_id, kind=TELL, platform=row.platform, chat_id=row.chat_id, locale=row.locale, at=row.at,
        seq=0).on_conflict_do_nothing(index_elements=["game_id", "kind"])
    if (await tx.execute(statement)).rowcount != 1:
        return False
    await _announce(tx)
    return True


async def _announce(tx: Transaction) -> None:
    if tx.dialect.name == "postgresql":
        await tx.execute(select(func.pg_notify(CHANNEL, "")))  # delivered when the transaction commits


#: An :class:`OutboxRow`'s columns, in its fields' order.
_COLUMNS = (outbox.c.game_id, outbox.c.kind, outbox.c.platform, outbox.c.chat_id, outbox.c.locale, outbox.c.at,
            outbox.c.id, outbox.c.seq)


def _row(game_id: int, kind: str, platform: str, chat_id: str | None, locale: str | None, at: float, id: int,
         seq: int, attempted_seq: int | None) -> OutboxRow:
    return OutboxRow(game_id, kind, platform, chat_id, locale, at, id, seq, attempted=attempted_seq == seq)


def _open(platforms: Collection[str], now: float) -> ColumnElement[bool]:
    return and_(outbox.c.platform.in_(list(platforms)), outbox.c.delivered_at.is_(None),
                or_(outbox.c.claimed_until.is_(None), outbox.c.claimed_until < now))


async def waiting(tx: Transaction, platforms: Collection[str], now: float) -> bool:
    """Whether a row for one of ``platforms`` waits to be claimed at ``now`` (a read: a poll that finds nothing takes
    no write lock)."""
    return bool((await tx.execute(select(exists().where(_open(platforms, now))))).scalar())


async def claim(tx: Transaction, platforms: Collection[str], now: float, until: float) -> list[OutboxRow]:
    """Claim, until ``until``, the rows for ``platforms`` not delivered and not claimed (or whose claim ran out by
    ``now``): each goes to one caller only (PostgreSQL checks the condition again on the row it locks)."""
    claimed = await tx.execute(update(outbox).where(_open(platforms, now)).values(claimed_until=until).returning(
        *_COLUMNS, outbox.c.attempted_seq))
    return sorted((_row(*row) for row in claimed), key=lambda row: row.id)


async def attempt(tx: Transaction, row: OutboxRow) -> None:
    """Note that ``row``'s request is being handed to its platform (committed before the send)."""
    await tx.execute(update(outbox).where(outbox.c.id == row.id, outbox.c.seq == row.seq)
                     .values(attempted_seq=row.seq))


async def extend(tx: Transaction, ids: Collection[int], until: float) -> None:
    """Hold the claims on ``ids`` (still being delivered) until ``until``."""
    await tx.execute(update(outbox).where(outbox.c.id.in_(list(ids)), outbox.c.delivered_at.is_(None),
                                          outbox.c.claimed_until.is_not(None)).values(claimed_until=until))


async def delivered(tx: Transaction, row: OutboxRow, now: float) -> bool:
    """Mark ``row`` delivered, unless its board was asked for again since it was claimed (then it waits for the next
    claim). Whether it was marked."""
    done = await tx.execute(update(outbox).where(outbox.c.id == row.id, outbox.c.seq == row.seq)
                            .values(delivered_at=now, claimed_until=None))
    return done.rowcount == 1


async def drop_stale(tx: Transaction, stale_before: float) -> int:
    """Drop the boards asked for before ``stale_before`` and never delivered (no process runs their platform);
    how many. A challenger waits to be told, however long."""
    dropped = await tx.execute(delete(outbox).where(outbox.c.kind == BOARD, outbox.c.delivered_at.is_(None),
                                                    outbox.c.at < stale_before))
    return dropped.rowcount


async def undelivered(tx: Transaction) -> list[OutboxRow]:
    """Every row not yet delivered (for the tests and the operator)."""
    rows = await tx.execute(select(*_COLUMNS, outbox.c.attempted_seq)
                            .where(outbox.c.delivered_at.is_(None)).order_by(outbox.c.id))
    return [_row(*row) for row in rows]


async def backlog(tx: Transaction) -> dict[str, tuple[int, float]]:
    """The rows not yet delivered, by platform: how many, and when the oldest was asked for (seconds since the
    epoch)."""
    rows = await tx.execute(select(outbox.c.platform, func.count(), func.min(outbox.c.at))
                            .where(outbox.c.delivered_at.is_(None)).group_by(outbox.c.platform))
    return {platform: (int(count), float(oldest)) for platform, count, oldest in rows}


def announced(db: Database, wake: Callable[[], None]) -> contextlib.AbstractAsyncContextManager[None]:
    """While open, ``wake`` is called each time a row is written to the outbox, by any process (PostgreSQL's
    ``LISTEN``: :func:`bot.store.changes.listening`). Never on SQLite; the caller also looks now and then."""
    return listening(db, CHANNEL, wake)


__all__ = ["BOARD", "CHANNEL", "SHARE", "TELL", "OutboxRow", "announced", "attempt", "backlog", "claim", "delivered",
           "drop_stale", "extend", "put_board", "put_tell", "undelivered", "waiting"]
