"""Marks that make a button act once across processes (``once_marks``): each claim is one statement that only one
of two concurrent taps can win, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, delete, exists, or_, select

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import once_marks

SHARE, REVIEW, ASK, KEPT, TOLD = "share", "review", "ask", "kept", "told"
#: A Draw or an Undo tapped on a board (the board's version, the tap's time): a double tap is told by it.
DRAW, UNDO = "draw", "undo"


def on_board(button: str, board: str) -> str:
    """The kind of ``button``'s mark on the message ``board``: its initial and a digest of the message (the column
    holds 8 characters; two boards of one game that shared a digest would only be told apart less well).

    >>> on_board(DRAW, "-100123/45"), on_board(UNDO, "-100123/45") != on_board(UNDO, "-100123/46")
    ('df90f972', True)
    """
    return button[0] + hashlib.blake2s(board.encode(), digest_size=4).hexdigest()[:7]


@dataclass(frozen=True)
class Mark:
    """``kind`` done for ``game_id`` at ``version``, at the time ``at`` (seconds)."""

    game_id: int
    kind: str
    version: int
    at: float


async def claim(tx: Transaction, game_id: int, kind: str, now: float, within: float | None, *,
                version: int = 0) -> bool:
    """Mark ``kind`` done for ``game_id`` at ``now`` (at ``version``); False, and nothing changed, when it was
    already marked at that version less than ``within`` seconds ago (None: the mark is always taken)."""
    statement = conflict_insert(tx, once_marks).values(game_id=game_id, kind=kind, version=version, at=now)
    row = statement.excluded
    fresh = or_(once_marks.c.version != version, once_marks.c.at <= now - within) if within is not None else None
    upsert = statement.on_conflict_do_update(index_elements=["game_id", "kind"],
                                             set_={"version": row.version, "at": row.at}, where=fresh)
    result = await tx.execute(upsert.returning(once_marks.c.game_id))
    return result.first() is not None


async def claim_each(tx: Transaction, wanted: Sequence[Mark], within: float) -> set[tuple[int, str]]:
    """Each of ``wanted`` marked, in one statement; which were, as (game, kind): not one already marked at the same
    version less than ``within`` seconds before it (that one is left as it was)."""
    if not wanted:
        return set()
    statement = conflict_insert(tx, once_marks).values(
        [{"game_id": mark.game_id, "kind": mark.kind, "version": mark.version, "at": mark.at} for mark in wanted])
    row = statement.excluded
    fresh = or_(once_marks.c.version != row.version, once_marks.c.at <= row.at - within)
    upsert = statement.on_conflict_do_update(index_elements=["game_id", "kind"],
                                             set_={"version": row.version, "at": row.at}, where=fresh)
    result = await tx.execute(upsert.returning(once_marks.c.game_id, once_marks.c.kind))
    return {(game_id, kind) for game_id, kind in result.all()}


async def first(tx: Transaction, game_id: int, kind: str, now: float) -> bool:
    """Mark ``kind`` done for ``game_id`` for good; False, and nothing changed, when it was already marked."""
    statement = conflict_insert(tx, once_marks).values(game_id=game_id, kind=kind, version=0, at=now)
    result = await tx.execute(statement.on_conflict_do_nothing(index_elements=["game_id", "kind"])
                              .returning(once_marks.c.game_id))
    return result.first() is not None


async def forget(tx: Transaction, game_id: int, kind: str) -> None:
    await tx.execute(delete(once_marks).where(and_(once_marks.c.game_id == game_id, once_marks.c.kind == kind)))


async def marked(tx: Transaction, game_id: int, kind: str) -> bool:
    query = select(exists().where(and_(once_marks.c.game_id == game_id, once_marks.c.kind == kind)))
    return bool((await tx.execute(query)).scalar())


__all__ = ["ASK", "DRAW", "KEPT", "REVIEW", "SHARE", "TOLD", "UNDO", "Mark", "claim", "claim_each", "first", "forget",
           "marked"]
