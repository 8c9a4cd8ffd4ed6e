"""The application put together: the use cases of one database and solver pool, each made with what it needs,
and the one door over them (:class:`~bot.app.flow.Flow`), opened and closed together. Adapters get the flow; the
runner, the daily poster and the tests take the parts they need from here.

- :class:`~bot.app.starts.Starts`: starting games, and the question before one with moves is abandoned;
- :class:`~bot.app.moves.Moves`: cards, Draw and Undo (batched), a card played by name;
- :class:`~bot.app.games.Games`: reading games, and where their boards are (and following them for the table);
- :class:`~bot.app.solving.Verdicts` and :class:`~bot.app.solving.Advice`: the solver's verdicts, hints, reviews;
- :class:`~bot.app.daily_codes.DailyCodes`: the day and its deal;
- :class:`~bot.app.players.Players`: settings and statistics;
- :class:`~bot.app.leaderboards.Leaderboards` and :class:`~bot.app.subscriptions.Subscriptions`: the daily deal's
  shared side;
- :class:`~bot.app.once.OnceOnly`: what acts once, in the database;
- :class:`~bot.app.challenges.Challenges`: challenges by reference;
- :class:`~bot.app.day_end.DayEnd`: the daily attempts still open at midnight ended, and the new day's deal
  found;
- :class:`~bot.app.outbox.Outbox`: what must reach a chat outside a command's answer (a chat board after a move at
  the table, a challenger told), committed with its cause and delivered by a process that runs the platform.
"""

from __future__ import annotations

import datetime as dt
import logging
from concurrent.futures import Executor

from bot.app.challenges import Challenges
from bot.app.daily import Clock, utc_clock
from bot.app.daily_codes import DailyCodes
from bot.app.day_end import DayEnd
from bot.app.games import Games
from bot.app.leaderboards import Leaderboards
from bot.app.measured import MeasuredFlow
from bot.app.model import PlayerKey
from bot.app.moves import Moves
from bot.app.once import OnceOnly
from bot.app.outbox import Outbox
from bot.app.owner import Owners
from bot.app.players import Players
from bot.app.questions import DatabaseShares, Questions, RedisShares
from bot.app.rounds import Rounds
from bot.app.solver_calls import (
    DailyCodeFunction,
    HintFunction,
    ReviewFunction,
    VerdictFunction,
    daily_code_of,
    fair_hint,
    solver_review,
    solver_verdict,
)
from bot.app.solver_pool import ONE_EACH, SolverPool, Workers
from bot.app.solving import Advice, Verdicts
from bot.app.starts import Starts
from bot.app.subscriptions import Subscriptions
from bot.metrics import watch_pool
from bot.store.database import open_database
from bot.store.engine import Database
from bot.store.redis_shares import RedisDown, RedisStore

log = logging.getLogger(__name__)


class App:
    """Games, settings, statistics and the daily deal of every player, in one database.

    ``executor`` runs the solver instead of the worker processes (tests); ``workers`` says how many there are.
    ``hint_function``,
    ``verdict_function``, ``review_function`` and ``daily_code_function`` are the calls into the solver
    (module-level functions, so a process pool can run them); ``clock`` tells the time (the daily deal's date);
    ``post_time`` is when the daily posts are made (UTC); ``redis``: where the players' shares and the answers
    kept are held for every process (None: in the database).
    """

    def __init__(
        self,
        db: Database,
        *,
        hint_budget: float = 0.8,
        verdict_budget: float = 5.0,
        winnable_budget: float = 3.0,
        executor: Executor | None = None,
        workers: Workers = ONE_EACH,
        hint_function: HintFunction = fair_hint,
        verdict_function: VerdictFunction = solver_verdict,
        review_function: ReviewFunction = solver_review,
        daily_code_function: DailyCodeFunction = daily_code_of,
        clock: Clock = utc_clock,
        post_time: dt.time = dt.time(9, 0),
        owns_database: bool = False,
        owner_ids: frozenset[PlayerKey] = frozenset(),
        redis: RedisStore | None = None,
    ) -> None:
        self.db = db
        pool = db.engine.pool
        watch_pool(getattr(pool, "checkedout", lambda: 0), getattr(pool, "size", lambda: 0))
        self.solver = SolverPool(executor, workers)
        self._owns_database = owns_database
        self.redis = redis
        in_database = DatabaseShares(db)
        self.questions = Questions(shared=in_database if redis is None else RedisShares(redis, in_database))
        self.verdicts = Verdicts(db, self.solver, verdict_function, verdict_budget, self.questions)
        self.daily_codes = DailyCodes(db, self.solver, daily_code_function, clock)
        today = self.daily_codes.today
        self.advice = Advice(db, self.solver, hint_function, review_function, hint_budget, today,
                             self.questions)
        self.starts = Starts(db, self.verdicts, self.daily_codes, winnable_budget)
        self.games = Games(db, today)
        self.challenges = Challenges(db, self.daily_codes)
        self.owners = Owners(db, owner_ids, clock)
        self.outbox = Outbox(db, today, clock, sign=self.challenges.signed, notice=self.owners.notice)
        self.moves = Moves(db, self.verdicts, today, self.outbox)
        self.players = Players(db)
        self.leaderboards = Leaderboards(db, self.daily_codes)
        self.subscriptions = Subscriptions(db)
        self.once = OnceOnly(db)
        self.day_end = DayEnd(db, clock, daily_codes=self.daily_codes)
        self.rounds = Rounds(db, self.verdicts)
        self.flow = MeasuredFlow(starts=self.starts, moves=self.moves, games=self.games, advice=self.advice,
                                 verdicts=self.verdicts, players=self.players, leaderboards=self.leaderboards,
                                 subscriptions=self.subscriptions, daily_codes=self.daily_codes, once=self.once,
                                 challenges=self.challenges, questions=self.questions, outbox=self.outbox,
                                 rounds=self.rounds, owners=self.owners, post_time=post_time)

    @classmethod
    async def open(cls, url: str | None = None, *, executor: Executor | None = None, workers: Workers = ONE_EACH,
                   hint_function: HintFunction = fair_hint, verdict_function: VerdictFunction = solver_verdict,
                   daily_code_function: DailyCodeFunction = daily_code_of, clock: Clock = utc_clock,
                   hint_budget: float = 0.8, verdict_budget: float = 5.0, winnable_budget: float = 3.0,
                   post_time: dt.time = dt.time(9, 0), owner_ids: frozenset[PlayerKey] = frozenset(),
                   redis_url: str | None = None) -> App:
        """Open the database at ``url`` (default: the SQLite file), upgrading it to the latest schema first, and
        start the solver workers; :meth:`close` closes both. With ``redis_url`` the players' shares and the answers
        kept are in that Redis; one that cannot be reached now is said in a warning, and the database holds them."""
        db = await open_database(url)
        redis = None
        if redis_url is not None:
            try:
                redis = await RedisStore.connect(redis_url)
            except RedisDown as down:
                log.warning("REDIS_URL cannot be reached (%s): the players' shares and the answers kept are in the "
                            "database instead", down)
        app = cls(db, owns_database=True, executor=executor, workers=workers, hint_function=hint_function,
                  verdict_function=verdict_function, daily_code_function=daily_code_function, clock=clock,
                  hint_budget=hint_budget, verdict_budget=verdict_budget, winnable_budget=winnable_budget,
                  post_time=post_time, owner_ids=owner_ids, redis=redis)
        app.solver.start()
        return app

    async def close(self) -> None:
        """Answer the taps already queued, stop background verdicts and the solver workers, and (when opened by
        :meth:`open`) close the database."""
        await self.moves.close()  # the taps already queued are committed and answered
        await self.games.following.close()
        await self.verdicts.close()
        self.solver.close()
        if self._owns_database:
            await self.db.close()
            if self.redis is not None:
                await self.redis.close()

    async def __aenter__(self) -> App:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
