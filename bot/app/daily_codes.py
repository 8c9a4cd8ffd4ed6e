"""The day by the service's clock and each day's deal (:mod:`bot.app.daily`, under the deployment's secret), found
in the solver pool once and remembered; the rule that only today's daily deal can be started; and the rule that a
recent daily deal is no practice game, under either rule set, before the player's attempt at it has ended."""

from __future__ import annotations

import asyncio
import datetime as dt

from bot.app import daily
from bot.app.daily import Clock
from bot.app.errors import BadPayload, DailyCodeLocked, DailyOver, NoWinnableDeal
from bot.app.model import PlayerKey
from bot.app.solver_calls import DailyCodeFunction
from bot.app.solver_pool import INTERACTIVE, SolverPool
from bot.store import deployment
from bot.store import games as stored_games
from bot.store.engine import Database
from core.deal import GameCode

#: The daily deal's search may take this long (it is done once a day and then remembered).
DAILY_CODE_BUDGET = 30.0
#: How many days' deals are remembered (today's and yesterday's are the ones asked for).
REMEMBERED_DAYS = 4
#: How far ahead a code typed in is checked against the days to come (an operator's ``tripeaks daily`` prints any).
FUTURE_DAYS = 400


class DailyCodes:
    """Today by ``clock`` and the daily deal of a day, searched for with ``function``
    (:func:`bot.app.solver_calls.daily_code_of`)."""

    def __init__(self, db: Database, solver: SolverPool, function: DailyCodeFunction, clock: Clock) -> None:
        self.db = db
        self.solver = solver
        self.function = function
        self.clock = clock
        self._codes: dict[dt.date, GameCode] = {}
        self._secret: str | None = None

    def today(self) -> dt.date:
        """Today's date (UTC) by the clock: the day of the daily deal."""
        return daily.today(self.clock())

    def day_asked(self, day: dt.date | None) -> dt.date:
        """The day of the daily deal a player asked for (today when None). Only today's can be started: a day
        after today is a tampered request (:class:`BadPayload`), an earlier one is over (:class:`DailyOver`)."""
        now = self.today()
        if day is None:
            return now
        if day > now:
            raise BadPayload(f"daily deal of {day} is in the future")
        if day < now:
            raise DailyOver(day)
        return day

    async def secret(self) -> str:
        """The deployment's daily secret, read from the database once."""
        if self._secret is None:
            async with self.db.transaction() as tx:
                self._secret = await deployment.daily_secret(tx)
        return self._secret

    async def code(self, day: dt.date) -> GameCode:
        """The daily deal of ``day``, searched for in the solver pool the first time and remembered (the last
        :data:`REMEMBERED_DAYS` days)."""
        code = self._codes.get(day)
        if code is None:
            code = await self.solver.run(INTERACTIVE, DAILY_CODE_BUDGET, self.function, day, await self.secret())
            if code is None:
                raise NoWinnableDeal(f"the daily deal of {day} could not be found in time")
            self._codes[day] = code
            while len(self._codes) > REMEMBERED_DAYS:
                del self._codes[min(self._codes)]
        return code

    async def day_of(self, code: GameCode) -> dt.date | None:
        """The day whose daily deal ``code`` deals, under either rule set (a deal is its number): today or yesterday,
        or a day still to come (within :data:`FUTURE_DAYS`, by its likely deals: no solver), or None."""
        now = self.today()
        for day in (now, now - dt.timedelta(days=1)):
            if (await self.code(day)).number == code.number:
                return day
        # some tens of milliseconds the first time a day: in a thread, so that no tap waits behind it
        return await asyncio.to_thread(_future_day, code.number, now, await self.secret())

    async def check_unlocked(self, player: PlayerKey, code: GameCode) -> dt.date | None:
        """Today's or yesterday's daily deal, or a day's still to come, cannot be started as a practice game, under
        either rule set (a deal is its number), until the player's attempt at it has ended (:class:`DailyCodeLocked`;
        a day to come has no attempt yet). Returns the day whose daily deal ``code`` deals (a game of it is that day's
        practice, ranked nowhere), or None."""
        day = await self.day_of(code)
        if day is not None:
            async with self.db.transaction() as tx:
                attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
            if attempt is None or attempt.active:
                raise DailyCodeLocked(day)
        return day


def _future_day(number: int, today: dt.date, secret: str) -> dt.date | None:
    """The day after ``today`` (within :data:`FUTURE_DAYS`) whose daily deal is likely deal ``number``, or None."""
    for ahead in range(1, FUTURE_DAYS + 1):
        day = today + dt.timedelta(days=ahead)
        if number in daily.likely_numbers(day, secret):
            return day
    return None
