"""A player's place among everyone's attempts at a day's daily deal, counted by the database: the place is one more
than the number of attempts ranked before theirs, so no attempt is read into Python (issue 44).

The order is the leaderboard's (:meth:`bot.app.daily.DailyResult.rank_key`) with its ties as the leaderboard
breaks them, by the attempt's row id (the order :func:`bot.store.daily.daily_games` reads them in, which a stable
sort keeps): won first, then the higher score, fewer hints, fewer undos, the fewer whole seconds from the start to
the end (or, still open, to the last move), then the older row."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import Integer, and_, case, cast, extract, func, select, tuple_

from bot.store.engine import Transaction
from bot.store.schema import WON, games, players


def _whole_seconds(tx: Transaction) -> Any:
    """The attempt's time as the leaderboard shows it, in whole seconds (never below 0), computed exactly: Python
    truncates the microsecond difference, so a float of the days between the two would be off by one at times."""
    start, end = games.c.started_at, func.coalesce(games.c.finished_at, games.c.updated_at)
    if tx.dialect.name == "sqlite":
        # SQLAlchemy stores a time in SQLite as 'YYYY-MM-DD HH:MM:SS.ffffff': whole seconds, then the microseconds
        def micros(moment: Any) -> Any:
            return (cast(func.strftime("%s", moment), Integer) * 1_000_000
                    + cast(func.substr(moment, 21, 6), Integer))
        elapsed = micros(end) - micros(start)
        return case((elapsed > 0, elapsed // 1_000_000), else_=0)
    return func.greatest(0, func.floor(extract("epoch", end - start)))


def _rank_key(tx: Transaction) -> tuple[Any, ...]:
    """The columns of :meth:`~bot.app.daily.DailyResult.rank_key` (its first, an attempt without a move, is left
    to the callers' ``moves > 0``) and the row id that breaks ties."""
    return (case((games.c.status == WON, 0), else_=1), -games.c.score, games.c.hints_used, games.c.undos_used,
            _whole_seconds(tx), games.c.id)


async def standing(tx: Transaction, platform: str, user_id: str, day: dt.date) -> tuple[int | None, int]:
    """The place (1 the best; None: no attempt with a move) of the player (``platform``, ``user_id``) among the
    attempts with a move at the deal of ``day``, and how many there are, across the deployment."""
    key = _rank_key(tx)
    played = and_(games.c.daily == day, games.c.moves > 0)
    mine = (await tx.execute(
        select(*key).join_from(games, players, games.c.player_id == players.c.id)
        .where(played, players.c.platform == platform, players.c.user_id == user_id))).first()
    if mine is None:
        total = (await tx.execute(select(func.count()).select_from(games).where(played))).scalar_one()
        return None, total
    ahead = func.count().filter(tuple_(*key) < tuple_(*mine))
    before, total = (await tx.execute(select(ahead, func.count()).select_from(games).where(played))).one()
    return before + 1, total
