"""The daily leaderboard of a community (a Discord server or a Telegram group): the attempt at a day's deal of
every player seen there, wherever it was played, ranked (:func:`bot.app.daily.rank`); outside a community (a private
chat), the player's own standing among everyone on the deployment, naming nobody else; and the recap of the day
before for a community's daily post."""

from __future__ import annotations

import datetime as dt

from bot.app.commands import Actor
from bot.app.daily import DailyResult, Recap, Standing, Subscription, rank
from bot.app.daily_codes import DailyCodes
from bot.app.effects import Answer, LeaderboardOf, Reply, Settings
from bot.app.model import PlayerKey
from bot.store import daily as stored_daily
from bot.store import games as stored_games
from bot.store import standing as stored_standing
from bot.store.daily import DailyGameRecord
from bot.store.engine import Database


def _result(record: DailyGameRecord) -> DailyResult:
    ended = record.finished_at or record.updated_at
    return DailyResult(
        name=record.display_name, user_id=record.user_id, score=record.score, moves=record.moves,
        won=record.won, hints=record.hints_used, undos=record.undos_used,
        seconds=(ended - record.started_at).total_seconds(), finished_at=ended, finished=record.finished)


class Leaderboards:
    """The ranked daily attempts of a community; the days' deals come from ``daily_codes``."""

    def __init__(self, db: Database, daily_codes: DailyCodes) -> None:
        self.db = db
        self.daily_codes = daily_codes

    async def of(self, platform: str, community: str, day: dt.date) -> list[DailyResult]:
        """The ranked attempts at ``day``'s deal (finished or not) of every player seen in ``community`` (a
        Discord server or Telegram group of ``platform``), wherever each was played."""
        async with self.db.reading() as tx:
            records = await stored_daily.daily_games(tx, platform, day, community)
        return rank([_result(record) for record in records])

    async def standing(self, player: PlayerKey, day: dt.date) -> Standing:
        """``player``'s place among everyone on the deployment who played ``day``'s deal (an attempt with a move),
        counted by the database (:mod:`bot.store.standing`)."""
        async with self.db.reading() as tx:
            place, players = await stored_standing.standing(tx, player.platform, player.user_id, day)
        return Standing(place, players)

    async def shown(self, actor: Actor, settings: Settings) -> Answer | Reply:
        """``/leaderboard``: today's leaderboard of the actor's community for the chat to see; in a private chat
        (no community) the actor's own standing, for them only."""
        day = self.daily_codes.today()
        if actor.community is None:
            return Answer(LeaderboardOf(day, (), settings, await self.standing(actor.player, day)))
        return Reply(LeaderboardOf(day, tuple(await self.of(actor.player.platform, actor.community, day)), settings))

    async def recap(self, subscription: Subscription, day: dt.date) -> Recap:
        """The day before ``day`` in ``subscription``'s community, for ``day``'s post: its code, how many played it
        there, the best attempt, par."""
        before = day - dt.timedelta(days=1)
        code = await self.daily_codes.code(before)
        results = [] if subscription.community is None else [
            result for result in await self.of(subscription.platform, subscription.community, before)
            if result.moves > 0]
        async with self.db.reading() as tx:
            verdict = await stored_games.known_verdict(tx, str(code))
        par = verdict[1] if verdict is not None and verdict[0] else None
        return Recap(before, code, len(results), results[0] if results else None, par)
