"""A daily attempt ends with its UTC day: at midnight every attempt still open ends as it stands (counted, played
and not won), before the day's code is shown anywhere, and no move applies to it after (:mod:`bot.app.moves` checks
each tap too, for a process that was down at midnight). Every process may run it: ending an attempt is one
``UPDATE ... WHERE active``, which ends each attempt once. Then the day's deal (and the day before's) is found, so
that no player's start waits for the search (a code typed in is checked against both)."""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable

from bot.app.daily import Clock
from bot.app.daily_codes import DailyCodes
from bot.store import games as stored_games
from bot.store.engine import Database
from bot.store.schema import utcnow

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


class DayEnd:
    """The end of each UTC day by ``clock`` (the daily deal's clock); ``daily_codes`` finds each new day's deal."""

    def __init__(self, db: Database, clock: Clock, sleep: Sleep = asyncio.sleep,
                 daily_codes: DailyCodes | None = None) -> None:
        self.db = db
        self.clock = clock
        self.sleep = sleep
        self.daily_codes = daily_codes

    async def end_past_attempts(self) -> int:
        """End every attempt of a day before today still open; how many ended."""
        today = self.clock().astimezone(dt.UTC).date()
        async with self.db.transaction() as tx:
            ended = await stored_games.end_attempts_before(tx, today, utcnow())
        if ended:
            log.info("ended %d daily attempt(s) of a day before %s", ended, today)
        return ended

    async def find_deals(self) -> None:
        """Today's daily deal and the day before's found now (each once a process, then remembered), rather than by
        the first player who starts one or types a code."""
        if self.daily_codes is None:
            return
        today = self.clock().astimezone(dt.UTC).date()
        for day in (today, today - dt.timedelta(days=1)):
            await self.daily_codes.code(day)

    def seconds_to_midnight(self) -> float:
        """How long until the next UTC midnight by the clock."""
        now = self.clock().astimezone(dt.UTC)
        midnight = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(0), tzinfo=dt.UTC)
        return max((midnight - now).total_seconds(), 0.0)

    async def run(self, stop: asyncio.Event) -> None:
        """At start (a process down at midnight) and then at every midnight, until ``stop`` is set."""
        while not stop.is_set():
            try:
                await self.end_past_attempts()
            except Exception:  # the database away for a moment: the next midnight, or the next tap, ends them
                log.exception("could not end the past days' daily attempts")
            try:
                await self.find_deals()
            except Exception:  # the solver busy or failing: the first player to ask searches again
                log.exception("could not find the day's daily deal")
            waiting = asyncio.ensure_future(self.sleep(self.seconds_to_midnight() + 1.0))  # just past midnight
            stopping = asyncio.ensure_future(stop.wait())
            await asyncio.wait({waiting, stopping}, return_when=asyncio.FIRST_COMPLETED)
            for task in (waiting, stopping):
                task.cancel()
