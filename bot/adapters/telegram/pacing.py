"""Writing to a chat no faster than Telegram lets a bot: about one message a second in a chat (short bursts
allowed), about 20 a minute in a group, edits counting as sends (Telegram's Bot FAQ; its engineers in
tdlib/telegram-bot-api#648). Past a limit Telegram answers 429 with a pause (``retry_after``) and repeated 429s
earn longer ones, so the bot keeps under the limits itself, and waits out whatever pause it is told of before
writing to that chat again.

- :class:`Pace`: the limits the bot keeps to, a little under Telegram's (its clock and Telegram's differ);
- :class:`ChatPace`: every chat's allowance; :meth:`ChatPace.turn` waits for the chat's next message, and
  :meth:`ChatPace.ready` waits until it could go (to draw what it shows only then), and
  :meth:`ChatPace.paused` takes a 429's pause for the whole chat. ``answerCallbackQuery`` is not limited and
  never waits here.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import time


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


@dataclasses.dataclass
class _Chat:
    buckets: tuple[_Bucket, ...]
    paused_until: float = 0.0
    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)


class ChatPace:
    """The allowance of every chat the bot writes to, within ``pace`` (None: no limit of its own, only the pauses
    Telegram asks for). Remembers the latest :data:`MAX` chats."""

    MAX = 10_000

    def __init__(self, pace: Pace | None = TELEGRAM_PACE) -> None:
        self.pace = pace
        self._chats: collections.OrderedDict[int, _Chat] = collections.OrderedDict()

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
            while len(self._chats) > self.MAX and not next(iter(self._chats.values())).lock.locked():
                self._chats.popitem(last=False)
        self._chats.move_to_end(chat_id)
        return chat

    async def turn(self, chat_id: int) -> None:
        """Wait until the chat may take one more message (one at a time, in the order asked), and count it."""
        chat = self._chat(chat_id)
        async with chat.lock:
            await self.ready(chat_id)
            for bucket in chat.buckets:
                bucket.tokens -= 1.0

    def paused(self, chat_id: int, seconds: float) -> None:
        """Telegram asked for a pause of ``seconds`` in this chat (a 429): nothing is written there until it ends."""
        chat = self._chat(chat_id)
        chat.paused_until = max(chat.paused_until, time.monotonic() + seconds)

    async def ready(self, chat_id: int) -> None:
        """Wait until the chat could take a message now (without counting one): what is drawn right after is what
        the next message shows."""
        chat = self._chat(chat_id)
        while True:
            now = time.monotonic()
            wait = max([chat.paused_until - now, *(bucket.wait(now) for bucket in chat.buckets)])
            if wait <= 0:
                return
            await asyncio.sleep(wait)
