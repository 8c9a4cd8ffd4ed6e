"""Writing to a chat no faster than Telegram lets a bot: about one message a second in a chat (short bursts
allowed), about 20 a minute in a group, edits counting as sends (Telegram's Bot FAQ; its engineers in
tdlib/telegram-bot-api#648). Past a limit Telegram answers 429 with a pause (``retry_after``) and repeated 429s
earn longer ones, so the bot keeps under the limits itself, and waits out whatever pause it is told of before
writing to that chat again.

- :class:`Pace`: the limits the bot keeps to, a little under Telegram's (its clock and Telegram's differ);
- :class:`ChatPace`: every chat's allowance, and who writes next. The messages waiting for a chat's turn go in the
  order of how long they have waited (a board whose oldest change is not shown yet waits since that change), not
  in the order they asked: :meth:`ChatPace.turn` waits for a message's turn and counts it; :meth:`ChatPace.holding`
  takes the turn first and lets the caller draw what the message shows only then (the one request it makes
  inside uses that turn; after a 429 it is drawn again at its next turn); :meth:`ChatPace.paused` takes a 429's
  pause for the whole chat; :meth:`ChatPace.busy` says how long a message asked for now would wait.
  ``answerCallbackQuery`` is not limited and never waits here;
- :class:`BusyOffers`: when a group is busy, which players' boards offer a board of their own, once in a while.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import dataclasses
import heapq
import itertools
import time
from collections.abc import AsyncIterator


@dataclasses.dataclass(frozen=True)
class Pace:
    """How fast the bot writes to one chat: a bucket of ``burst`` messages refilled ``per_second``; in a group
    another of ``group_burst`` refilled ``group_per_second`` (2 + 60/3.5 = 19 a minute at most, under 20)."""

    burst: int = 3
    per_second: float = 0.9
    group_burst: int = 2
    group_per_second: float = 1 / 3.5


#: The limits the bot keeps to on Telegram.
TELEGRAM_PACE = Pace()


@dataclasses.dataclass
class _Bucket:
    """An allowance of messages that comes back at a steady rate."""

    size: float
    rate: float
    tokens: float
    at: float

    def wait(self, now: float) -> float:
        """Seconds until one message may go."""
        self.tokens = min(self.size, self.tokens + (now - self.at) * self.rate)
        self.at = now
        return 0.0 if self.tokens >= 1.0 else (1.0 - self.tokens) / self.rate


@dataclasses.dataclass(order=True)
class _Waiter:
    """A message waiting for its chat's turn: the earliest ``since`` goes first, then the first to ask."""

    since: float
    order: int


@dataclasses.dataclass
class _Chat:
    buckets: tuple[_Bucket, ...]
    paused_until: float = 0.0
    #: the messages waiting for a turn, a heap
    queue: list[_Waiter] = dataclasses.field(default_factory=list)
    #: set (and replaced) whenever the queue or the allowance changed: the waiters look again
    changed: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)

    def wait(self, now: float) -> float:
        return max([self.paused_until - now, *(bucket.wait(now) for bucket in self.buckets)])

    def wake(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


@dataclasses.dataclass
class _Hold:
    """A turn taken before the message was drawn (:meth:`ChatPace.holding`), for the one request made with it."""

    pace: ChatPace
    chat_id: int
    since: float
    spent: bool = False


#: The turn the running task holds, if any.
_HELD: contextvars.ContextVar[_Hold | None] = contextvars.ContextVar("held_turn", default=None)


class ChatPace:
    """The allowance of every chat the bot writes to, within ``pace`` (None: no limit of its own, only the pauses
    Telegram asks for). Remembers the latest :data:`MAX` chats."""

    MAX = 10_000

    def __init__(self, pace: Pace | None = TELEGRAM_PACE) -> None:
        self.pace = pace
        self._chats: collections.OrderedDict[int, _Chat] = collections.OrderedDict()
        self._order = itertools.count()

    def _chat(self, chat_id: int) -> _Chat:
        chat = self._chats.get(chat_id)
        if chat is None:
            now, pace = time.monotonic(), self.pace
            buckets: list[_Bucket] = []
            if pace is not None:
                buckets.append(_Bucket(pace.burst, pace.per_second, pace.burst, now))
                if chat_id < 0:  # a group or channel: Telegram gives them negative ids
                    buckets.append(_Bucket(pace.group_burst, pace.group_per_second, pace.group_burst, now))
            chat = self._chats[chat_id] = _Chat(tuple(buckets))
            while len(self._chats) > self.MAX and not next(iter(self._chats.values())).queue:
                self._chats.popitem(last=False)
        self._chats.move_to_end(chat_id)
        return chat

    async def turn(self, chat_id: int, since: float | None = None) -> None:
        """Wait until it is this message's turn in the chat and the chat may take it, and count it. The messages
        waiting go by ``since`` (when what they show began to wait, by ``time.monotonic``; None: now), the earliest
        first. Inside :meth:`holding` for this chat, the first call takes the turn held, and a later one (the same
        request again after a 429) waits with the held turn's ``since``."""
        hold = _HELD.get()
        if hold is not None and hold.pace is self and hold.chat_id == chat_id:
            if not hold.spent:
                hold.spent = True
                return
            since = hold.since
        await self._take(chat_id, since)

    @contextlib.asynccontextmanager
    async def holding(self, chat_id: int, since: float | None = None) -> AsyncIterator[None]:
        """Take the chat's turn (as :meth:`turn`) before what the message shows is drawn, so that it shows what is
        true when it goes rather than when it began to wait; the first request to the chat inside the block
        uses it. A turn left unused (nothing needed sending) is given back."""
        await self._take(chat_id, since)
        hold = _Hold(self, chat_id, time.monotonic() if since is None else since)
        token = _HELD.set(hold)
        try:
            yield
        finally:
            _HELD.reset(token)
            if not hold.spent:
                chat = self._chat(chat_id)
                for bucket in chat.buckets:
                    bucket.tokens = min(bucket.size, bucket.tokens + 1.0)
                chat.wake()

    def held(self, chat_id: int) -> bool:
        """Whether the running task writes to the chat in a turn it took before drawing (:meth:`holding`)."""
        hold = _HELD.get()
        return hold is not None and hold.pace is self and hold.chat_id == chat_id

    async def _take(self, chat_id: int, since: float | None) -> None:
        chat = self._chat(chat_id)
        waiter = _Waiter(time.monotonic() if since is None else since, next(self._order))
        heapq.heappush(chat.queue, waiter)
        chat.wake()  # a waiter that was first may not be any more
        try:
            while True:
                changed = chat.changed
                wait: float | None = None
                if chat.queue[0] is waiter:
                    wait = chat.wait(time.monotonic())
                    if wait <= 0:
                        heapq.heappop(chat.queue)
                        for bucket in chat.buckets:
                            bucket.tokens -= 1.0
                        chat.wake()
                        return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):
                        await changed.wait()
        except BaseException:
            if waiter in chat.queue:
                chat.queue.remove(waiter)
                heapq.heapify(chat.queue)
                chat.wake()
            raise

    def paused(self, chat_id: int, seconds: float) -> None:
        """Telegram asked for a pause of ``seconds`` in this chat (a 429): nothing is written there until it ends."""
        chat = self._chat(chat_id)
        chat.paused_until = max(chat.paused_until, time.monotonic() + seconds)

    def busy(self, chat_id: int) -> float:
        """Seconds a message asked for now would wait for its turn: the chat's own wait and one turn for each
        message waiting before it."""
        chat = self._chats.get(chat_id)
        if chat is None:
            return 0.0
        now = time.monotonic()
        wait = max(0.0, chat.wait(now))
        slowest = min((bucket.rate for bucket in chat.buckets), default=0.0)
        return wait + (len(chat.queue) / slowest if slowest else 0.0)


#: A chat is busy when a message asked for now would wait this long for its turn (seconds): longer than one turn
#: of a group's own pace, so its boards are sharing the turns.
BUSY_WAIT = 5.0
#: How long a player's boards keep the offer once it is made (seconds), and how long before it is made again.
OFFER_SHOWN = 60.0
OFFER_AGAIN = 30 * 60.0


class BusyOffers:
    """Which players' boards offer a board of their own (where a group's limit does not apply) in a busy chat: from
    the first board drawn while the chat is busy, for :data:`OFFER_SHOWN`, then not again in that chat for
    :data:`OFFER_AGAIN`, so no one is pressed. Remembers the latest :data:`MAX` players."""

    MAX = 10_000

    def __init__(self, pace: ChatPace) -> None:
        self.pace = pace
        self._made: collections.OrderedDict[tuple[int, str], float] = collections.OrderedDict()

    def offer(self, chat_id: int, player: str) -> bool:
        """Whether the board of ``player`` drawn now in the chat carries the offer."""
        key, now = (chat_id, player), time.monotonic()
        made = self._made.get(key)
        if made is not None and now - made <= OFFER_SHOWN:
            return True
        if (made is not None and now - made < OFFER_AGAIN) or self.pace.busy(chat_id) < BUSY_WAIT:
            return False
        self._made[key] = now
        self._made.move_to_end(key)
        while len(self._made) > self.MAX:
            self._made.popitem(last=False)
        return True
