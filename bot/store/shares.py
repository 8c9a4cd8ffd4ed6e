"""Each player's shares, in the database (``player_shares``): a bucket of ``burst`` tokens refilled one every
``refill_seconds``, taken from by one statement (an upsert that refills, takes one if there is one, and says
whether it did), so that every process of a deployment takes from the same bucket."""

from __future__ import annotations

from sqlalchemy import ColumnElement, case, literal, update

from bot.store.engine import Transaction, conflict_insert
from bot.store.schema import player_shares


def _least(a: ColumnElement[float], b: ColumnElement[float]) -> ColumnElement[float]:
    return case((a < b, a), else_=b)


async def take(tx: Transaction, platform: str, user_id: str, kind: str, *, burst: int, refill_seconds: float,
               now: float) -> float:
    """Take one of the player's ``kind`` tokens: 0 when one was there, else the seconds until one will be."""
    statement = conflict_insert(tx, player_shares).values(
        platform=platform, user_id=user_id, kind=kind, tokens=float(burst - 1), at=now, taken=True)
    # a process whose statement comes late (its clock read before another's) neither refills twice the same time
    # nor moves the bucket's time back
    since = case((player_shares.c.at < now, literal(now) - player_shares.c.at), else_=literal(0.0))
    refilled = _least(literal(float(burst)), player_shares.c.tokens + since / literal(refill_seconds))
    statement = statement.on_conflict_do_update(
        index_elements=["platform", "user_id", "kind"],
        set_={"tokens": case((refilled >= 1, refilled - 1), else_=refilled),
              "at": case((player_shares.c.at < now, literal(now)), else_=player_shares.c.at),
              "taken": refilled >= 1})
    row = (await tx.execute(statement.returning(player_shares.c.tokens, player_shares.c.taken))).one()
    return 0.0 if row.taken else (1 - float(row.tokens)) * refill_seconds


async def give_back(tx: Transaction, platform: str, user_id: str, kind: str, *, burst: int) -> None:
    """The player's ``kind`` bucket full again (a hold released: :meth:`bot.app.questions.DatabaseShares.hold`)."""
    await tx.execute(update(player_shares).where(
        player_shares.c.platform == platform, player_shares.c.user_id == user_id, player_shares.c.kind == kind,
    ).values(tokens=float(burst)))
