"""Each player's questions to the solver (a hint, a review, a new winnable deal to offer), shared fairly among a
crowd of players:

- one question of a player in flight at a time: the same question asked again joins the one being answered, a
  different one is :class:`~bot.app.errors.OneAtATime`;
- an answer is kept (a hint is a deterministic function of the visible position, so it is kept by game and
  version; a review by game), and the same question asked again is answered from memory, the solver not asked;
- a player may ask new questions only so often (a bucket of :data:`BURST` questions that refills one every
  :data:`REFILL_SECONDS`): past that, :class:`~bot.app.errors.TryAgainIn` says when; a question answered from
  memory or joined is free.

All of this is in the process's memory: it saves solver work, and nothing in it must happen exactly once (a hint
is counted in the database, as before). That no player holds the workers is the solver pool's turn order
(:mod:`bot.app.solver_pool`).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from bot.app.errors import OneAtATime, TryAgainIn
from bot.app.model import PlayerKey

T = TypeVar("T")

#: New questions a player may ask in a row, and the seconds after which each may be asked again.
BURST = 6
REFILL_SECONDS = 2.0
#: Answers kept (the least recently used go first).
KEPT_ANSWERS = 10_000


@dataclass
class _Bucket:
    tokens: float
    at: float


class Questions:
    """The solver questions of every player of this process; ``clock`` tells seconds (monotonic)."""

    def __init__(self, *, burst: int = BURST, refill_seconds: float = REFILL_SECONDS, kept: int = KEPT_ANSWERS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.refill_seconds = refill_seconds
        self.kept = kept
        self.clock = clock
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()
        self._asking: dict[PlayerKey, tuple[Hashable, asyncio.Future[Any]]] = {}
        self._buckets: dict[PlayerKey, _Bucket] = {}

    async def ask(self, player: PlayerKey, question: Hashable, answer: Callable[[], Awaitable[T | None]], *,
                  keep: bool = True) -> T | None:
        """``question`` from ``player``, answered by ``answer()`` unless it is already known or being answered. None
        (the solver could not answer it: busy, or out of time) is never kept; ``keep`` False keeps nothing (a
        random deal)."""
        if keep and question in self._answers:
            self._answers.move_to_end(question)
            known: T = self._answers[question]
            return known
        asking = self._asking.get(player)
        if asking is not None:
            if asking[0] != question:
                raise OneAtATime(f"{question!r} while {asking[0]!r} is being answered")
            joined: T | None = await asyncio.shield(asking[1])
            return joined
        self._take_turn(player)
        future: asyncio.Future[T | None] = asyncio.get_running_loop().create_future()
        self._asking[player] = (question, future)
        try:
            result = await answer()
            if keep and result is not None:
                self._keep(question, result)
            future.set_result(result)
            return result
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as error:
            future.set_exception(error)
            future.exception()  # retrieved: a question nobody joined does not log it again
            raise
        finally:
            del self._asking[player]

    def _take_turn(self, player: PlayerKey) -> None:
        """Spend one of the player's new questions, or say when the next one may be asked."""
        now = self.clock()
        bucket = self._buckets.get(player)
        if bucket is None:
            bucket = self._buckets[player] = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) / self.refill_seconds)
        bucket.at = now
        if bucket.tokens < 1:
            raise TryAgainIn(max(1, math.ceil((1 - bucket.tokens) * self.refill_seconds)))
        bucket.tokens -= 1
        if len(self._buckets) > self.kept:  # forget players whose buckets are full again
            for key in [key for key, held in self._buckets.items()
                        if held.tokens + (now - held.at) / self.refill_seconds >= self.burst]:
                del self._buckets[key]

    def _keep(self, question: Hashable, answer: object) -> None:
        self._answers[question] = answer
        self._answers.move_to_end(question)
        while len(self._answers) > self.kept:
            self._answers.popitem(last=False)
