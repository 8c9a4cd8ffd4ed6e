"""The game service: the one object every adapter talks to. It brings together the use cases of
:mod:`bot.app.games` (with :mod:`bot.app.solving`), :mod:`bot.app.players` and :mod:`bot.app.daily_board` over one database and one solver pool.
"""

from __future__ import annotations

import datetime as dt
from concurrent.futures import Executor

from bot.app.daily_board import DailyBoard
from bot.app.games import Clock, Games
from bot.app.players import Players
from bot.app.solver_pool import (
    DailyCodeFunction,
    HintFunction,
    ReviewFunction,
    SolverPool,
    VerdictFunction,
    daily_code_of,
    fair_hint,
    solver_review,
    solver_verdict,
)
from bot.store.database import open_database
from bot.store.engine import Database


def utc_clock() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class GameService(Games, Players, DailyBoard):
    """Games, settings, statistics and the daily deal of every player, in one database.

    ``executor`` runs the solver instead of the worker processes (tests). ``hint_function``,
    ``verdict_function``, ``review_function`` and ``daily_code_function`` are the calls into the solver (module-level functions, so a
    process pool can run them); ``clock`` tells the time (the daily deal's date).
    """

    def __init__(
        self,
        db: Database,
        *,
        hint_budget: float = 0.8,
        verdict_budget: float = 5.0,
        winnable_budget: float = 3.0,
        executor: Executor | None = None,
        hint_function: HintFunction = fair_hint,
        verdict_function: VerdictFunction = solver_verdict,
        review_function: ReviewFunction = solver_review,
        daily_code_function: DailyCodeFunction = daily_code_of,
        clock: Clock = utc_clock,
        owns_database: bool = False,
    ) -> None:
        self.db = db
        self.solver = SolverPool(executor)
        self.clock = clock
        self.hint_budget = hint_budget
        self.verdict_budget = verdict_budget
        self.winnable_budget = winnable_budget
        self._owns_database = owns_database
        self.daily_code_function = daily_code_function
        self._init_solving(hint_function, verdict_function, review_function)
        self._init_games()

    @classmethod
    async def open(cls, url: str | None = None, *, executor: Executor | None = None,
                   hint_function: HintFunction = fair_hint, verdict_function: VerdictFunction = solver_verdict,
                   daily_code_function: DailyCodeFunction = daily_code_of, clock: Clock = utc_clock,
                   hint_budget: float = 0.8, verdict_budget: float = 5.0,
                   winnable_budget: float = 3.0) -> GameService:
        """Open the database at ``url`` (default: the SQLite file), upgrading it to the latest schema first, and
        start the solver workers; :meth:`close` closes both."""
        db = await open_database(url)
        service = cls(db, owns_database=True, executor=executor, hint_function=hint_function,
                      verdict_function=verdict_function, daily_code_function=daily_code_function, clock=clock,
                      hint_budget=hint_budget, verdict_budget=verdict_budget, winnable_budget=winnable_budget)
        service.solver.start()
        return service

    async def close(self) -> None:
        """Answer the taps already queued, stop background verdicts and the solver workers, and (when opened by
        :meth:`open`) close the database."""
        await self._taps.drain()  # the taps already queued are committed and answered
        await self._close_solving()
        self.solver.close()
        if self._owns_database:
            await self.db.close()

    async def __aenter__(self) -> GameService:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
