"""Each player's questions to the solver (a hint, a review, a new winnable deal to offer), shared fairly among a
crowd of players:

- one question of a player in flight at a time: the same question asked again joins the one being answered, a
  different one is :class:`~bot.app.errors.OneAtATime`;
- an answer is kept (a hint is a deterministic function of the visible position, so it is kept by game and
  version; a review by game), and the same question asked again is answered from memory, the solver not asked;
- a player may ask new questions only so often (a bucket of :data:`BURST` questions that refills one every
  :data:`REFILL_SECONDS`): past that, :class:`~bot.app.errors.TryAgainIn` says when; a question answered from
  memory or joined is free;
- and a player may send the commands that ask the solver (:func:`asks_the_solver`), answered from memory or not,
  only so fast (:data:`ASKS_BURST`, one more every :data:`ASKS_REFILL_SECONDS`): past that they are told once when
  to try again and then not answered at all (:meth:`Questions.admit`), so a flood costs the bot next to nothing
  (no database, no message) while the others play;
- and a player's requests at the table (its page, taps and event streams) come out of a share of their own
  (:data:`REQUESTS_BURST`, one more every :data:`REQUESTS_REFILL_SECONDS`): past it a request is refused before it
  reads anything (:meth:`Questions.request_wait`).

All of this is first in the process's memory: it saves solver work, and nothing in it must happen exactly once (a
hint is counted in the database, as before). With several processes (Discord shards, a Telegram webhook behind a
load balancer) what a player may ask is also held where every process sees it (:class:`Shared`: the database,
:class:`DatabaseShares`, or Redis, :class:`RedisShares`), so N processes give a player one share, not N:

- their new questions and their table requests come out of one share there, taken only once the process's own
  share allows it (a flood stops in memory, at no cost to the database);
- one question at a time holds there too (a question asked through another process while one is answered is
  :class:`~bot.app.errors.OneAtATime`);
- and an answer is kept there for :data:`ANSWER_SECONDS` (written as text: :mod:`bot.app.answer_texts`), so a hint
  worked out through one process is answered from there through the others.

That no player holds the workers is the solver pool's turn order (:mod:`bot.app.solver_pool`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from bot.app.answer_texts import AnswerText
from bot.app.codec import review_of
from bot.app.commands import AskHint, Command, Invite, OpenLink, Review
from bot.app.errors import OneAtATime, TryAgainIn
from bot.app.model import PlayerKey
from bot.metrics import ANSWERS_SHARED, REDIS_FAILURES
from bot.store import answers, shares
from bot.store.engine import Database
from bot.store.redis_shares import RedisDown, RedisStore

log = logging.getLogger(__name__)

T = TypeVar("T")

#: New questions a player may ask in a row, and the seconds after which each may be asked again.
BURST = 6
REFILL_SECONDS = 2.0
#: Commands asking the solver a player may send in a row, and the seconds after which each may be sent again.
ASKS_BURST = 10
ASKS_REFILL_SECONDS = 0.5
#: Requests at the table a player may send in a row, and the seconds after which each may be sent again: far more
#: than hands tap, far less than a script sends.
REQUESTS_BURST = 60
REQUESTS_REFILL_SECONDS = 0.1
#: How long a question being answered holds its player's turn in the database at most (seconds): past it, a process
#: that ended while answering (and so never gave the turn back) holds it no more.
HOLD_SECONDS = 60.0
#: Answers kept in each process's memory (the least recently used go first).
KEPT_ANSWERS = 10_000
#: How long an answer is kept where every process reads it (seconds): a hint's position is seldom asked about again
#: after that, and a review costs one more solver call then.
ANSWER_SECONDS = 3600.0
#: The database's expired answers are swept once every this many answers kept (by each process).
SWEEP_EVERY = 500
#: A Redis that failed is said once in this many seconds at most (the database answers meanwhile).
REDIS_WARNING_SECONDS = 60.0


def asks_the_solver(command: Command) -> bool:
    """Whether ``command`` asks the solver something: a hint, a review (a button or a link), the invitations with a
    new winnable deal."""
    return isinstance(command, AskHint | Review | Invite) or (
        isinstance(command, OpenLink) and review_of(command.parameter) is not None)


@dataclass
class _Bucket:
    """A player's share: ``tokens`` left at the time ``at``; ``told`` whether they were told to wait since."""

    tokens: float
    at: float
    told: bool = False

    def take(self, burst: int, refill_seconds: float, now: float) -> float:
        """Take one token; 0 when one was there, else the seconds until one will be."""
        self.tokens = min(float(burst), self.tokens + (now - self.at) / refill_seconds)
        self.at = now
        if self.tokens < 1:
            return (1 - self.tokens) * refill_seconds
        self.tokens -= 1
        self.told = False
        return 0.0

    def full(self, burst: int, refill_seconds: float, now: float) -> bool:
        return self.tokens + (now - self.at) / refill_seconds >= burst


@dataclass
class _Turn:
    """A player's turn to take from the deployment's share in this process, and how many wait for it."""

    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    users: int = 0


class Questions:
    """The solver questions of every player of this process; ``clock`` tells seconds (monotonic)."""

    def __init__(self, *, burst: int = BURST, refill_seconds: float = REFILL_SECONDS, kept: int = KEPT_ANSWERS,
                 clock: Callable[[], float] = time.monotonic, shared: Shared | None = None) -> None:
        self.shared = shared
        self.burst = burst
        self.refill_seconds = refill_seconds
        self.kept = kept
        self.clock = clock
        self._answers: OrderedDict[Hashable, Any] = OrderedDict()
        self._asking: dict[PlayerKey, tuple[Hashable, asyncio.Future[Any]]] = {}
        self._buckets: dict[PlayerKey, _Bucket] = {}
        self._asks: dict[PlayerKey, _Bucket] = {}
        self._requests: dict[PlayerKey, _Bucket] = {}
        self._taking: dict[PlayerKey, _Turn] = {}

    def admit(self, player: PlayerKey) -> bool:
        """Whether a command of ``player``'s that asks the solver is answered at all: True within their share,
        :class:`~bot.app.errors.TryAgainIn` the first time past it, False after that until it refills."""
        now = self.clock()
        bucket = self._asks.setdefault(player, _Bucket(float(ASKS_BURST), now))
        wait = bucket.take(ASKS_BURST, ASKS_REFILL_SECONDS, now)
        self._forget_full(self._asks, ASKS_BURST, ASKS_REFILL_SECONDS, now)
        if not wait:
            return True
        if bucket.told:
            return False
        bucket.told = True
        raise TryAgainIn(max(1, math.ceil(wait)))

    async def request_wait(self, player: PlayerKey) -> float:
        """Seconds until a request of ``player``'s at the table may be taken: 0 when it is taken now (out of their
        share, in this process and then in the deployment's)."""
        now = self.clock()
        bucket = self._requests.setdefault(player, _Bucket(float(REQUESTS_BURST), now))
        wait = bucket.take(REQUESTS_BURST, REQUESTS_REFILL_SECONDS, now)
        self._forget_full(self._requests, REQUESTS_BURST, REQUESTS_REFILL_SECONDS, now)
        if wait or self.shared is None:
            return wait
        # one take at a time for a player in this process: a flood holds one database connection, not the pool
        held = self._taking.setdefault(player, _Turn())
        held.users += 1
        try:
            async with held.lock:
                return await self.shared.take(player, "requests", REQUESTS_BURST, REQUESTS_REFILL_SECONDS)
        finally:
            held.users -= 1
            if not held.users:
                del self._taking[player]

    async def ask(self, player: PlayerKey, question: Hashable, answer: Callable[[], Awaitable[T | None]], *,
                  keep: bool = True, text: AnswerText[T] | None = None) -> T | None:
        """``question`` from ``player``, answered by ``answer()`` unless it is already known or being answered. None
        (the solver could not answer it: busy, or out of time) is never kept; ``keep`` False keeps nothing (a
        random deal). With ``text`` (how the answer is written down) the answer is also kept for every process."""
        if keep and question in self._answers:
            self._answers.move_to_end(question)
            known: T = self._answers[question]
            return known
        shared_key = repr(question) if keep and text is not None and self.shared is not None else None
        if shared_key is not None and text is not None and self.shared is not None:
            written = await self.shared.answer(shared_key)
            if written is not None:
                kept: T = text.read(written)
                self._keep(question, kept)
                ANSWERS_SHARED.inc()
                return kept
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
            if self.shared is None:
                result = await answer()
            else:
                if wait := await self.shared.take(player, "questions", self.burst, self.refill_seconds):
                    raise TryAgainIn(max(1, math.ceil(wait)))
                async with self._held(self.shared, player, question):
                    result = await answer()
                if shared_key is not None and text is not None and result is not None:
                    await self.shared.keep(shared_key, text.write(result))
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

    @staticmethod
    @contextlib.asynccontextmanager
    async def _held(shared: Shared, player: PlayerKey, question: Hashable) -> AsyncIterator[None]:
        """While open, ``player`` has a question being answered in this deployment: another process asked one
        meanwhile is :class:`~bot.app.errors.OneAtATime` (a hold is a bucket of one token given back on leaving, and
        refilled after :data:`HOLD_SECONDS` should its process end first)."""
        if await shared.take(player, "asking", 1, HOLD_SECONDS):
            raise OneAtATime(f"{question!r} while another process answers one")
        try:
            yield
        finally:
            await shared.give_back(player, "asking", 1)

    def _take_turn(self, player: PlayerKey) -> None:
        """Spend one of the player's new questions, or say when the next one may be asked."""
        now = self.clock()
        bucket = self._buckets.setdefault(player, _Bucket(float(self.burst), now))
        wait = bucket.take(self.burst, self.refill_seconds, now)
        self._forget_full(self._buckets, self.burst, self.refill_seconds, now)
        if wait:
            raise TryAgainIn(max(1, math.ceil(wait)))

    def _forget_full(self, buckets: dict[PlayerKey, _Bucket], burst: int, refill_seconds: float, now: float) -> None:
        """Past :data:`KEPT_ANSWERS` players, forget those whose buckets are full again (as a newcomer's)."""
        if len(buckets) > self.kept:
            for key in [key for key, held in buckets.items() if held.full(burst, refill_seconds, now)]:
                del buckets[key]

    def _keep(self, question: Hashable, answer: object) -> None:
        self._answers[question] = answer
        self._answers.move_to_end(question)
        while len(self._answers) > self.kept:
            self._answers.popitem(last=False)


class Shared(Protocol):
    """What every process of a deployment sees: the players' shares (buckets of tokens, by kind) and the answers
    kept (texts by key, for :data:`ANSWER_SECONDS`)."""

    async def take(self, player: PlayerKey, kind: str, burst: int, refill_seconds: float) -> float:
        """Take one of ``player``'s ``kind`` tokens: 0 when one was there, else the seconds until one will be."""

    async def give_back(self, player: PlayerKey, kind: str, burst: int) -> None:
        """``player``'s ``kind`` bucket full again."""

    async def answer(self, key: str) -> str | None:
        """The answer kept under ``key``, if any."""

    async def keep(self, key: str, text: str) -> None:
        """Keep ``text`` under ``key``."""


class DatabaseShares:
    """The players' shares and the answers kept in ``db``, one for every process of the deployment (``clock``:
    seconds since the epoch, the same in every process)."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock
        self._kept = 0

    async def take(self, player: PlayerKey, kind: str, burst: int, refill_seconds: float) -> float:
        async with self.db.transaction() as tx:
            return await shares.take(tx, player.platform, player.user_id, kind, burst=burst,
                                     refill_seconds=refill_seconds, now=self.clock())

    async def give_back(self, player: PlayerKey, kind: str, burst: int) -> None:
        async with self.db.transaction() as tx:
            await shares.give_back(tx, player.platform, player.user_id, kind, burst=burst)

    async def answer(self, key: str) -> str | None:
        async with self.db.reading() as tx:
            return await answers.answer(tx, key, self.clock())

    async def keep(self, key: str, text: str) -> None:
        now = self.clock()
        self._kept += 1
        async with self.db.transaction() as tx:
            await answers.keep(tx, key, text, now + ANSWER_SECONDS)
            if self._kept % SWEEP_EVERY == 0:
                await answers.sweep(tx, now)


class RedisShares:
    """The players' shares and the answers kept in Redis (``store``); while Redis fails, in the database
    (``fallback``), said once a minute at most."""

    def __init__(self, store: RedisStore, fallback: DatabaseShares) -> None:
        self.store = store
        self.fallback = fallback
        self._warned_at: float | None = None

    async def take(self, player: PlayerKey, kind: str, burst: int, refill_seconds: float) -> float:
        try:
            return await self.store.take(player.platform, player.user_id, kind, burst=burst,
                                         refill_seconds=refill_seconds, now=self.fallback.clock())
        except RedisDown as down:
            self._warn(down)
            return await self.fallback.take(player, kind, burst, refill_seconds)

    async def give_back(self, player: PlayerKey, kind: str, burst: int) -> None:
        try:
            await self.store.give_back(player.platform, player.user_id, kind)
        except RedisDown as down:
            self._warn(down)
            await self.fallback.give_back(player, kind, burst)

    async def answer(self, key: str) -> str | None:
        try:
            return await self.store.answer(key)
        except RedisDown as down:
            self._warn(down)
            return await self.fallback.answer(key)

    async def keep(self, key: str, text: str) -> None:
        try:
            await self.store.keep(key, text, ANSWER_SECONDS)
        except RedisDown as down:
            self._warn(down)
            await self.fallback.keep(key, text)

    def _warn(self, down: RedisDown) -> None:
        REDIS_FAILURES.inc()
        now = time.monotonic()
        if self._warned_at is None or now - self._warned_at >= REDIS_WARNING_SECONDS:
            self._warned_at = now
            log.warning("Redis failed (%s): the players' shares and the answers kept are in the database until it "
                        "answers again", down)
