"""What the solver says of a game, always in the solver pool.

- :class:`Verdicts`: the verdict on a deal from its start, computed in the background once a game starts and stored
  in its row (so the tap that ends a game never waits for it), and the search for a deal proved winnable.
- :class:`Advice`: the hint (by default the fair advisor, which sees only what the player sees) and the post-game
  review.

What a player asks is shared fairly with the others (:class:`~bot.app.questions.Questions`: one question at a
time, answers kept, a limit on new ones) and runs in the player's turn in the solver pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from collections.abc import Hashable

from bot.app.answer_texts import HINT_TEXT, REVIEW_TEXT
from bot.app.errors import BotError, NoWinnableDeal
from bot.app.model import DealVerdict, Hint, PlayerKey
from bot.app.outcomes import HintOvertaken, Tapped
from bot.app.questions import Questions
from bot.app.records import Today, load_game, load_owned, moved_on, snapshot_of, verdict_of
from bot.app.solver_calls import HintFunction, ReviewFunction, VerdictFunction
from bot.app.solver_pool import BACKGROUND, BOT, INTERACTIVE, SolverPool
from bot.metrics import HINTS
from bot.store import games as stored_games
from bot.store.engine import Database
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, utcnow
from core.deal import DEAL_COUNT, GameCode, Rules
from core.game import Game, Undo
from core.review import Review as GameReview

log = logging.getLogger(__name__)

#: What a hint may take beyond its budget (handing the position to a worker and back) before the tap gives up.
HINT_GRACE = 0.25
#: How long a hint, and a review, may wait for a free solver worker before the player is told it is busy (seconds).
HINT_WAIT = 1.0
REVIEW_WAIT = 5.0
#: At most this many verdicts wait for the solver at once; more games start without one being computed early.
MAX_PENDING_VERDICTS = 32
#: A review is exact; this only stops a broken worker from holding the player forever.
REVIEW_TIMEOUT = 20.0
_NO_HINT = Hint(None, None, None)
#: The hint the solver had no time to think about: not counted, and the player is told to ask again.
BUSY_HINT = Hint(None, None, None, busy=True)


class Verdicts:
    """The solver's verdicts on deals: computed in the background and stored with every game of the deal, waited
    for when a player wants one, and the search for a winnable deal. ``function`` is the call into the solver (a
    module-level function, so a process pool can run it); ``budget`` the seconds it may take on one deal."""

    def __init__(self, db: Database, solver: SolverPool, function: VerdictFunction, budget: float,
                 questions: Questions) -> None:
        self.db = db
        self.solver = solver
        self.questions = questions
        self.function = function
        self.budget = budget
        self._jobs: dict[str, asyncio.Task[None]] = {}
        self._closed = False

    async def close(self) -> None:
        """Stop the verdicts being computed; none is scheduled after this."""
        self._closed = True
        jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)

    def schedule(self, code: str) -> None:
        """Compute the verdict on the deal ``code`` in the background (unless it is already being computed, or
        too many are waiting)."""
        if self._closed or code in self._jobs or len(self._jobs) >= MAX_PENDING_VERDICTS:
            return
        job = asyncio.get_running_loop().create_task(self._compute(code))
        self._jobs[code] = job
        job.add_done_callback(lambda _: self._jobs.pop(code, None))

    async def wait_for(self, game_id: int, timeout: float | None = None) -> DealVerdict | None:
        """The solver's verdict on the game's deal, waiting up to ``timeout`` seconds for one being computed."""
        async with self.db.transaction() as tx:
            record = await load_game(tx, game_id)
        if record.verdict_at is not None:
            return verdict_of(record)
        job = self._jobs.get(record.code)
        if job is None:
            self.schedule(record.code)
            job = self._jobs.get(record.code)
        if job is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(job), timeout)
        async with self.db.transaction() as tx:
            return verdict_of(await load_game(tx, game_id))

    async def winnable_code(self, rules: Rules, budget: float, owner: Hashable = BOT) -> GameCode:
        """A random deal under ``rules`` the solver proves winnable within ``budget`` seconds in all
        (:class:`NoWinnableDeal` otherwise), in ``owner``'s turns."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + budget
        while (remaining := deadline - loop.time()) > 0:
            code = GameCode(rules, secrets.randbelow(DEAL_COUNT))
            verdict = await self.solver.run_for(owner, INTERACTIVE, remaining, remaining, self.function, str(code),
                                                remaining, False)
            if verdict is not None and verdict.winnable:
                return code
        raise NoWinnableDeal(f"no {rules.value} deal proved winnable within {budget:g} s")

    async def fresh_code(self, player: PlayerKey, rules: Rules, budget: float) -> GameCode | None:
        """A new deal proved winnable to offer ``player`` (:meth:`winnable_code`, as one of their questions); None
        when none was found in time, or the player is asking too much."""
        try:
            return await self.questions.ask(player, ("fresh", rules), lambda: self.winnable_code(rules, budget, player),
                                            keep=False)
        except BotError:  # none found, or one at a time, or too many: the offers go without one
            return None

    async def _compute(self, code: str) -> None:
        """Solve the deal ``code`` from its start and store the verdict in every game of it still without one."""
        verdict = await self.solver.run(BACKGROUND, self.budget * 2 + 5, self.function, code, self.budget, True)
        if verdict is None:
            return
        try:
            async with self.db.transaction() as tx:
                await stored_games.store_verdict(tx, code, verdict.winnable, verdict.best_score, utcnow())
        except Exception:
            log.exception("could not store the verdict on %s", code)


class Advice:
    """The hint on a position and the review of a finished game, each in the solver pool. ``hint_budget`` is the
    seconds a hint may think; ``today`` tells the day (whose daily deal's code stays hidden)."""

    def __init__(self, db: Database, solver: SolverPool, hint_function: HintFunction,
                 review_function: ReviewFunction, hint_budget: float, today: Today, questions: Questions) -> None:
        self.db = db
        self.today = today
        self.solver = solver
        self.questions = questions
        self.hint_function = hint_function
        self.review_function = review_function
        self.hint_budget = hint_budget

    async def hint(self, player: PlayerKey, game_id: int, version: int) -> Tapped:
        """Hint tapped on the player's game on a board at ``version``: the game as it stands with the advice (a board
        behind the game, as a busy group's, is asked about the game now; counted as a hint used only when there is
        something to suggest, and once per position: asking again at the same version is free, and answered from
        memory), or :data:`BUSY_HINT` (not counted) when the solver had no time for it. A ranked daily
        attempt is never advised to undo. :class:`~bot.app.errors.OneAtATime` or
        :class:`~bot.app.errors.TryAgainIn` when the player asks too much."""
        today = self.today()
        async with self.db.transaction() as tx:
            record = await load_owned(tx, player, game_id)
            if record.version != version and not record.active:
                return await moved_on(tx, record, today)  # ended since, or no longer the player's latest
        version = record.version
        game = Game.from_text(record.state)
        if record.status == ABANDONED or (record.status == BLOCKED and not record.active):
            return snapshot_of(record, game, today=today, hint=_NO_HINT)
        if record.status == WON:
            return snapshot_of(record, game, today=today, hint=Hint(None, True, game.score))
        hint = await self.questions.ask(player, ("hint", game_id, version), lambda: self.solver.run_for(
            player, INTERACTIVE, HINT_WAIT, self.hint_budget + HINT_GRACE, self.hint_function, record.state,
            self.hint_budget), text=HINT_TEXT)
        if hint is None:
            return snapshot_of(record, game, today=today, hint=BUSY_HINT)
        HINTS.inc()
        if record.daily is not None and isinstance(hint.action, Undo):
            hint = _NO_HINT
        if hint.action is None:
            return snapshot_of(record, game, today=today, hint=hint)  # nothing to suggest: not counted as a hint used
        async with self.db.transaction() as tx:
            used = await stored_games.count_hint(tx, game_id, version)
            if used is None:  # a move meanwhile: the advice is about a position gone
                return HintOvertaken(snapshot_of(await load_game(tx, game_id), today=today))
        return snapshot_of(dataclasses.replace(record, hints_used=used), game, today=today, hint=hint)

    async def review(self, player: PlayerKey, game_id: int) -> GameReview | None:
        """The exact solver's review of a game's line (None if it is still being played, or the solver was busy or
        failed), as one of ``player``'s questions (kept: a finished game's line never changes): the score against
        the deal's best, where a winnable deal was lost and the best line from before that, the longest chain."""
        async with self.db.transaction() as tx:
            record = await load_game(tx, game_id)
        if record.status == PLAYING:
            return None
        return await self.questions.ask(player, ("review", game_id), lambda: self.solver.run_for(
            player, INTERACTIVE, REVIEW_WAIT, REVIEW_TIMEOUT, self.review_function, record.state), text=REVIEW_TEXT)
