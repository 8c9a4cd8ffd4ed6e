"""The day by the service's clock and each day's deal (:mod:`bot.app.daily`), found in the solver pool once and
remembered; and the rule that a recent daily deal is no practice game before the player's attempt at it has ended."""

from __future__ import annotations

import datetime as dt

from bot.app import daily
from bot.app.daily import Clock
from bot.app.errors import BadPayload, DailyCodeLocked, NoWinnableDeal
from bot.app.model import PlayerKey
from bot.app.solver_pool import INTERACTIVE, DailyCodeFunction, SolverPool
from bot.store import games as stored_games
from bot.store.engine import Database
from core.deal import GameCode, Rules

#: The daily deal's search may take this long (it is done once a day and then remembered).
DAILY_CODE_BUDGET = 30.0


class DailyCodes:
    """Today by ``clock`` and the daily deal of a day, searched for with ``function``
    (:func:`bot.app.solver_pool.daily_code_of`)."""

    def __init__(self, db: Database, solver: SolverPool, function: DailyCodeFunction, clock: Clock) -> None:
        self.db = db
        self.solver = solver
        self.function = function
        self.clock = clock
        self._codes: dict[dt.date, GameCode] = {}

    def today(self) -> dt.date:
        """Today's date (UTC) by the clock: the day of the daily deal."""
        return daily.today(self.clock())

    def day_asked(self, day: dt.date | None) -> dt.date:
        """The day of the daily deal a player asked for (today when None); a day after today is a tampered
        request: :class:`BadPayload`."""
        now = self.today()
        if day is None:
            return now
        if day > now:
            raise BadPayload(f"daily deal of {day} is in the future")
        return day

    async def code(self, day: dt.date) -> GameCode:
        """The daily deal of ``day``, searched for in the solver pool the first time and remembered."""
        code = self._codes.get(day)
        if code is None:
            code = await self.solver.run(INTERACTIVE, DAILY_CODE_BUDGET, self.function, day)
            if code is None:
                raise NoWinnableDeal(f"the daily deal of {day} could not be found in time")
            self._codes[day] = code
        return code

    async def check_unlocked(self, player: PlayerKey, code: GameCode) -> None:
        """Today's or yesterday's daily deal cannot be started as a practice game until the player's attempt at it
        has ended (:class:`DailyCodeLocked`)."""
        if code.rules is not Rules.EASY:
            return
        now = self.today()
        for day in (now, now - dt.timedelta(days=1)):
            if await self.code(day) == code:
                async with self.db.transaction() as tx:
                    attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
                if attempt is None or attempt.active:
                    raise DailyCodeLocked(day)
