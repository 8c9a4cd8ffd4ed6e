"""Posting the daily deal to subscribed channels and groups at the daily post time (UTC), on every platform.

:class:`DailyPoster` is platform-neutral. Each post is an effect, :class:`~bot.app.effects.PostTo` (the channel and
its :class:`~bot.app.daily.DailyPost`), carried out by the platform's one executor (the same that delivers the
outbox: ``outbox_executor`` in each adapter's ``executor.py``), which draws it and reports what became of it as a
value (:class:`~bot.app.effects.PostedTo`); the poster decides when, acts on the report, and makes sure each post is
made exactly once:

- Every (subscription, day) post is claimed in the database (``daily_posts``, unique per subscription and day)
  before it is sent, and marked sent after. Two processes never both send it, and a restart never sends it again.
  A claim whose process died before marking it sent is taken over once it is older than ``lease``, so at worst a
  crash in the moment between Telegram's answer and the commit repeats one post; a post is never lost.
- On start (and at every round) the posts of today still unsent are made when the post time has passed: a post
  missed while the bot was down is made when it comes back the same day. A day that has ended is not posted late.
- Several chats are posted to at once (:data:`CONCURRENCY`), so one slow chat never holds up the round; each
  platform's sends go through one :class:`RateLimiter` (Telegram: 30 messages a second overall and 20 a minute
  per group).
- Failures are told apart, by the executor's report. A refusal asking to retry after a pause
  (:class:`~bot.app.effects.Pause`, Telegram's 429) holds every send of that platform for the pause, then the post is
  sent again. A transient failure (:class:`~bot.app.effects.Transient`: the network, a timeout, a 5xx) is tried
  again after a growing pause. Either way at most :data:`MAX_ATTEMPTS`
  sends go to one chat in a round; then the claim is released and the next round (a minute later) tries again, so
  a post is never dropped for a passing fault and never retried without end. A chat that is gone or closed to the
  bot (:class:`~bot.app.effects.ChatGone`: not found, the bot blocked or removed, no right to post) is given up for
  that day. A refusal of the message itself (:class:`~bot.app.effects.Refused`), or anything else (a bug, no report)
  releases the claim for the next round.

Time is the poster's ``clock`` (an aware UTC datetime) and ``sleep``; the tests drive both.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import assert_never

from bot.app.daily import Clock, DailyPost, Recap, Subscription
from bot.app.effects import (
    ChatGone,
    ExecutorFor,
    Pause,
    Posted,
    PostedTo,
    PostTo,
    Refused,
    Report,
    Sent,
    Transient,
)
from bot.app.subscriptions import Subscriptions
from core.deal import GameCode

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]

#: How often the poster looks again for new subscriptions and released claims (seconds).
POLL_SECONDS = 60.0
#: A claim not marked sent within this long belongs to a process that died; another may take it over.
DEFAULT_LEASE = dt.timedelta(minutes=10)
#: Telegram's broadcast limits: about 30 messages a second overall, 20 a minute to one group.
TELEGRAM_LIMITS = ((30, 1.0), (20, 60.0))
#: Discord: discord.py already keeps to each route's limits; this keeps well under the global 50 requests a second.
DISCORD_LIMITS = ((40, 1.0), (5, 5.0))
#: How many chats are posted to at the same time (the rate limiters still apply across them).
CONCURRENCY = 8
#: Sends to one chat in one round (the first, then retries after 429s and transient failures).
MAX_ATTEMPTS = 5
#: Pauses before another try after a transient failure (seconds): the n-th retry waits the n-th (the last repeats).
BACKOFF = (1.0, 2.0, 4.0, 8.0)


class RateLimiter:
    """Sliding windows on the poster's clock: at most ``overall[0]`` sends in ``overall[1]`` seconds, and at most
    ``per_chat[0]`` to one chat in ``per_chat[1]`` seconds. :meth:`wait` sleeps (with the poster's ``sleep``)
    until a send is allowed and counts it."""

    def __init__(self, clock: Clock, sleep: Sleep, overall: tuple[int, float], per_chat: tuple[int, float]) -> None:
        self.clock = clock
        self.sleep = sleep
        self.overall = overall
        self.per_chat = per_chat
        self._all: collections.deque[float] = collections.deque()
        self._by_chat: dict[str, collections.deque[float]] = collections.defaultdict(collections.deque)
        self._held_until = 0.0

    def _now(self) -> float:
        return self.clock().timestamp()

    @staticmethod
    def _delay(sent: collections.deque[float], limit: tuple[int, float], now: float) -> float:
        count, period = limit
        while sent and sent[0] <= now - period:
            sent.popleft()
        return 0.0 if len(sent) < count else sent[0] + period - now

    def hold(self, seconds: float) -> None:
        """No send for ``seconds`` (the platform's flood control asked for a pause)."""
        self._held_until = max(self._held_until, self._now() + seconds)

    async def wait(self, chat: str) -> None:
        while True:
            now = self._now()
            delay = max(self._delay(self._all, self.overall, now),
                        self._delay(self._by_chat[chat], self.per_chat, now), self._held_until - now)
            if delay <= 0:
                break
            await self.sleep(delay)
        now = self._now()
        self._all.append(now)
        self._by_chat[chat].append(now)


class DailyPoster:
    """Posts the day's deal to every subscription of the platforms it has executors for; see the module docstring.

    ``subscriptions`` are the channels to post to; ``executors`` each platform's executor of what reaches a chat
    outside a command (given no language: a post carries its own); ``code_for`` picks the day's deal
    (:meth:`bot.app.daily_codes.DailyCodes.code`, under the deployment's secret); ``post_time`` is the UTC time of
    day of the posts (``DAILY_POST_TIME``); ``recap`` tells how the day before's deal went in a subscription's
    community (:meth:`bot.app.leaderboards.Leaderboards.recap`: its code, public now, with the best result), which
    each post gives, so a channel's history is a list of daily codes.
    """

    def __init__(self, subscriptions: Subscriptions, code_for: Callable[[dt.date], Awaitable[GameCode]],
                 executors: Mapping[str, ExecutorFor], *, post_time: dt.time, clock: Clock | None = None,
                 sleep: Sleep = asyncio.sleep, lease: dt.timedelta = DEFAULT_LEASE,
                 limits: Mapping[str, tuple[tuple[int, float], tuple[int, float]]] | None = None,
                 poll_seconds: float = POLL_SECONDS, concurrency: int = CONCURRENCY,
                 max_attempts: int = MAX_ATTEMPTS,
                 recap: Callable[[Subscription, dt.date], Awaitable[Recap]] | None = None) -> None:
        self.subscriptions = subscriptions
        self.executors = dict(executors)
        self.post_time = post_time.replace(tzinfo=None)
        self.clock: Clock = clock or (lambda: dt.datetime.now(dt.UTC))
        self.sleep = sleep
        self.code_for = code_for
        self.recap = recap
        self.lease = lease
        self.poll_seconds = poll_seconds
        self.concurrency = concurrency
        self.max_attempts = max_attempts
        self._limits = dict(limits or {"telegram": TELEGRAM_LIMITS, "discord": DISCORD_LIMITS})
        self.limiters = {platform: self._limiter(platform) for platform in self.executors}

    def _limiter(self, platform: str) -> RateLimiter:
        return RateLimiter(self.clock, self.sleep, *self._limits.get(platform, DISCORD_LIMITS))

    def add(self, platform: str, executor: ExecutorFor) -> None:
        """Post on ``platform`` too, from now on, through ``executor`` (it connected after the poster started)."""
        self.executors[platform] = executor
        self.limiters.setdefault(platform, self._limiter(platform))

    def now(self) -> dt.datetime:
        return self.clock().astimezone(dt.UTC)

    def due_at(self, day: dt.date) -> dt.datetime:
        """When the posts of ``day`` are due."""
        return dt.datetime.combine(day, self.post_time, tzinfo=dt.UTC)

    async def run_once(self) -> int:
        """Make today's posts that are due and not yet made; returns how many were sent."""
        now = self.now()
        day = now.date()
        if now < self.due_at(day) or not self.executors:
            return 0
        waiting = await self.subscriptions.unsent(day, tuple(self.executors))
        if not waiting:
            return 0
        await self.code_for(day)  # found once, before the first Play under a post (the post names no code)
        slots = asyncio.Semaphore(self.concurrency)

        async def claim_and_post(subscription: Subscription) -> int:
            async with slots:
                if not await self.subscriptions.claim(subscription.id, day, self.now(), self.lease):
                    return 0
                return await self._post(subscription, day)

        results = await asyncio.gather(*(claim_and_post(s) for s in waiting), return_exceptions=True)
        for subscription, result in zip(waiting, results, strict=True):
            if isinstance(result, asyncio.CancelledError):
                raise result
            if isinstance(result, BaseException):
                log.error("daily post to %s %s failed", subscription.platform, subscription.channel_id,
                          exc_info=result)
        return sum(result for result in results if isinstance(result, int))

    async def _post(self, subscription: Subscription, day: dt.date) -> int:
        executor_for = self.executors[subscription.platform]
        limiter = self.limiters[subscription.platform]
        post = PostTo(subscription.channel_id, DailyPost(day, subscription.locale,
                                                         await self._recap(subscription, day)))
        where = f"{subscription.platform} {subscription.channel_id}"
        try:
            for attempt in range(1, self.max_attempts + 1):
                await limiter.wait(subscription.channel_id)
                try:
                    posted = self._posted(post, await executor_for(None).run([post]))
                except Exception:
                    log.exception("daily post to %s failed; trying again in the next round", where)
                    await self.subscriptions.release(subscription.id, day)
                    return 0
                match posted:
                    case Sent(message_id):
                        await self.subscriptions.finish(subscription.id, day, self.now(), message_id=message_id)
                        return 1
                    case Pause(seconds):
                        log.info("daily post to %s: flood control, waiting %.0f s", where, seconds)
                        limiter.hold(seconds)
                    case Transient(reason):
                        if attempt < self.max_attempts:
                            pause_seconds = BACKOFF[min(attempt, len(BACKOFF)) - 1]
                            log.info("daily post to %s failed (%s); again in %.0f s", where, reason, pause_seconds)
                            await self.sleep(pause_seconds)
                    case ChatGone(reason):
                        log.warning("daily post to %s given up for the day: %s", where, reason)
                        await self.subscriptions.finish(subscription.id, day, self.now(), error=reason or "gone")
                        return 0
                    case Refused(reason):
                        log.error("daily post to %s refused (%s); trying again in the next round", where, reason)
                        await self.subscriptions.release(subscription.id, day)
                        return 0
                    case unhandled:
                        assert_never(unhandled)
        except asyncio.CancelledError:  # stopping: the next start makes the post
            with contextlib.suppress(Exception):
                await asyncio.shield(self.subscriptions.release(subscription.id, day))
            raise
        log.warning("daily post to %s: %d attempts failed; trying again in the next round", where,
                    self.max_attempts)
        await self.subscriptions.release(subscription.id, day)
        return 0

    @staticmethod
    def _posted(post: PostTo, reports: list[Report]) -> Posted:
        """What the executor reported of ``post``; an executor that reported nothing of it made no post."""
        for report in reports:
            if isinstance(report, PostedTo) and report.chat_id == post.chat_id:
                return report.posted
        return Refused("the executor reported no post")

    async def _recap(self, subscription: Subscription, day: dt.date) -> Recap | None:
        """The day before in ``subscription``'s community, for ``day``'s post; None when it cannot be told (the
        post goes without it rather than not at all)."""
        if self.recap is None:
            return None
        try:
            return await self.recap(subscription, day)
        except Exception:
            log.exception("the recap of the day before %s for %s %s failed", day, subscription.platform,
                          subscription.channel_id)
            return None

    def seconds_to_next_round(self) -> float:
        """Until the next post time, or the next poll, whichever comes first."""
        now = self.now()
        due = self.due_at(now.date())
        if due <= now:
            due = self.due_at(now.date() + dt.timedelta(days=1))
        return max(0.0, min(self.poll_seconds, (due - now).total_seconds()))

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Post until ``stop`` is set (or the task is cancelled): a round at once (the catch-up), then one at
        every post time and poll."""
        while stop is None or not stop.is_set():
            try:
                await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("a round of daily posts failed")
            await self.sleep(self.seconds_to_next_round())


__all__ = ["DailyPoster", "RateLimiter"]
