"""The daily leaderboard of a community (a Discord server or a Telegram group): the attempt at a day's deal of
every player seen there, wherever it was played, ranked (:func:`bot.app.daily.rank`)."""

from __future__ import annotations

import datetime as dt

from bot.app.daily import DailyResult, rank
from bot.store import daily as stored_daily
from bot.store.engine import Database


class Leaderboards:
    """The ranked daily attempts of a community."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def of(self, platform: str, community: str, day: dt.date) -> list[DailyResult]:
        """The ranked attempts at ``day``'s deal (finished or not) of every player seen in ``community`` (a
        Discord server or Telegram group of ``platform``), wherever each was played."""
        async with self.db.reading() as tx:
            records = await stored_daily.daily_games(tx, platform, day, community)
        found = []
        for record in records:
            ended = record.finished_at or record.updated_at
            found.append(DailyResult(
                name=record.display_name, user_id=record.user_id, score=record.score, moves=record.moves,
                won=record.won, hints=record.hints_used, undos=record.undos_used,
                seconds=(ended - record.started_at).total_seconds(), finished_at=ended, finished=record.finished))
        return rank(found)
