"""What the solver says of a game, always in the solver pool: the hint (by default the fair advisor, which sees
only what the player sees), the verdict on a deal from its start (computed in the background once a game starts and
stored in its row, so the tap that ends a game never waits for it), and the post-game review."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging

from bot.app.errors import StaleGame
from bot.app.model import DealVerdict, GameSnapshot, Hint, PlayerKey
from bot.app.records import load_checked, load_game, snapshot_of, verdict_of
from bot.app.solver_pool import (
    BACKGROUND,
    INTERACTIVE,
    HintFunction,
    ReviewFunction,
    SolverPool,
    VerdictFunction,
)
from bot.store import games as stored_games
from bot.store.engine import Database
from bot.store.schema import ABANDONED, PLAYING, WON, utcnow
from core.game import Game
from core.review import Review as GameReview

log = logging.getLogger(__name__)

#: What a hint may take beyond its budget (handing the position to a worker and back) before the tap gives up.
HINT_GRACE = 0.25
#: At most this many verdicts wait for the solver at once; more games start without one being computed early.
MAX_PENDING_VERDICTS = 32
#: A review is exact; this only stops a broken worker from holding the player forever.
REVIEW_TIMEOUT = 20.0
_NO_HINT = Hint(None, None, None)


class Solving:
    """The solver's use cases; :class:`bot.app.service.GameService` brings them together with the others."""

    db: Database
    solver: SolverPool
    hint_budget: float
    verdict_budget: float

    def _init_solving(self, hint_function: HintFunction, verdict_function: VerdictFunction,
                      review_function: ReviewFunction) -> None:
        self._hint_function = hint_function
        self._verdict_function = verdict_function
        self._review_function = review_function
        self._verdict_jobs: dict[str, asyncio.Task[None]] = {}
        self._closed = False

    async def _close_solving(self) -> None:
        self._closed = True
        jobs = list(self._verdict_jobs.values())
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)

    async def _hint(self, player: PlayerKey, game_id: int, version: int) -> GameSnapshot:
        async with self.db.transaction() as tx:
            record = await load_checked(tx, player, game_id, version)
        game = Game.from_text(record.state)
        if record.status == ABANDONED:
            return snapshot_of(record, game, hint=_NO_HINT)
        if record.status == WON:
            return snapshot_of(record, game, hint=Hint(None, True, game.score))
        hint = await self.solver.run(INTERACTIVE, self.hint_budget + HINT_GRACE, self._hint_function, record.state,
                                     self.hint_budget) or _NO_HINT
        if hint.action is None:
            return snapshot_of(record, game, hint=hint)  # nothing to suggest: not counted as a hint used
        async with self.db.transaction() as tx:
            if not await stored_games.count_hint(tx, game_id, version):
                raise StaleGame(snapshot_of(await load_game(tx, game_id)))
        return snapshot_of(dataclasses.replace(record, hints_used=record.hints_used + 1), game, hint=hint)

    async def review(self, game_id: int) -> GameReview | None:
        """The exact solver's review of a game's line (None if it is still being played, or the solver failed):
        the score against the deal's best, where a winnable deal was lost and the best line from before that, the
        longest chain."""
        async with self.db.transaction() as tx:
            record = await load_game(tx, game_id)
        if record.status == PLAYING:
            return None
        return await self.solver.run(INTERACTIVE, REVIEW_TIMEOUT, self._review_function, record.state)

    async def wait_for_verdict(self, game_id: int, timeout: float | None = None) -> DealVerdict | None:
        """The solver's verdict on the game's deal, waiting up to ``timeout`` seconds for one being computed."""
        async with self.db.transaction() as tx:
            record = await load_game(tx, game_id)
        if record.verdict_at is not None:
            return verdict_of(record)
        job = self._verdict_jobs.get(record.code)
        if job is None:
            self._schedule_verdict(record.code)
            job = self._verdict_jobs.get(record.code)
        if job is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(job), timeout)
        async with self.db.transaction() as tx:
            return verdict_of(await load_game(tx, game_id))

    def _schedule_verdict(self, code: str) -> None:
        if self._closed or code in self._verdict_jobs or len(self._verdict_jobs) >= MAX_PENDING_VERDICTS:
            return
        job = asyncio.get_running_loop().create_task(self._compute_verdict(code))
        self._verdict_jobs[code] = job
        job.add_done_callback(lambda _: self._verdict_jobs.pop(code, None))

    async def _compute_verdict(self, code: str) -> None:
        """Solve the deal ``code`` from its start and store the verdict in every game of it still without one."""
        verdict = await self.solver.run(BACKGROUND, self.verdict_budget * 2 + 5, self._verdict_function, code,
                                        self.verdict_budget, True)
        if verdict is None:
            return
        try:
            async with self.db.transaction() as tx:
                await stored_games.store_verdict(tx, code, verdict.winnable, verdict.best_score, utcnow())
        except Exception:
            log.exception("could not store the verdict on %s", code)
