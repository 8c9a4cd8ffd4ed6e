"""Getting a reply through to Telegram: retries, and boards that never go back in time.

- :func:`persist`: a send or an edit tried again when Telegram asks for a pause (429 flood control, waited out
  however long it is, the whole chat waiting with it: :class:`~bot.adapters.telegram.pacing.ChatPace`) or when it failed on the way (the network, a timeout, a 5xx: a few more tries with a growing pause),
  so a board catches up with the game rather than stay behind after one lost request; but a new message whose
  request timed out is not sent again (it may have arrived). Anything Telegram refused for good (a 400, a 403) is
  raised at once.
- :func:`post_once`: one try at a message no command asked for (the daily post), Telegram's answer read as what
  became of it (:data:`~bot.app.effects.Posted`), for the daily poster to act on: it keeps its own pace and retries.
- :class:`EditOrder`: the edits of one message happen one at a time, and an edit showing an older version of the
  game than the message already shows is skipped. Taps are handled side by side, so two quick taps can finish in
  either order; the message still ends on the later state. It also remembers the picture each photo board shows,
  so an edit that leaves the picture as it is (a refused tap: only the caption says why) changes the caption and
  the keyboard alone, without uploading the same picture again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import datetime as dt
import logging
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

from telegram import Message
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.adapters.telegram.pacing import ChatPace
from bot.app.effects import ChatGone, Pause, Posted, Refused, Sent, Transient
from bot.metrics import TELEGRAM_FLOOD, TELEGRAM_PAUSE_SECONDS

log = logging.getLogger(__name__)

T = TypeVar("T")
#: How many flood-control pauses in a row one request waits out before it is given up (each however long).
FLOOD_TRIES = 8
#: The pauses before each new try of a request that failed on the way (the network, a timeout, a 5xx).
RETRY_PAUSES: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0)


def retry_after_seconds(error: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
        warnings.simplefilter("ignore")
        pause = error.retry_after
    return pause.total_seconds() if isinstance(pause, dt.timedelta) else float(pause)


def is_transient(error: Exception) -> bool:
    """A failure on the way, worth another try: python-telegram-bot's ``NetworkError`` (which a 5xx answer and
    ``TimedOut`` are) but not ``BadRequest`` (a 400: the same request would be refused again)."""
    return isinstance(error, TimedOut | NetworkError) and not isinstance(error, BadRequest)


#: A chat's allowance and the chat a request writes to.
Paced = tuple[ChatPace, int]


async def persist(send: Callable[[], Awaitable[T]], *, resend_after_timeout: bool = True,
                  paced: Paced | None = None) -> T:
    """``send()``, tried again after each flood-control pause (waited out, up to :data:`FLOOD_TRIES` in a row) and
    after failures on the way (a few times, with :data:`RETRY_PAUSES`). With ``paced`` every try waits for the
    chat's turn, and a pause holds the whole chat; in a turn held to draw the message at its turn
    (:meth:`~bot.adapters.telegram.pacing.ChatPace.holding`) a pause is raised, for the caller to draw it anew. A request that timed out may have arrived all the same: one that
    makes a new message (``resend_after_timeout=False``) is not sent again then, or the chat would get the board
    twice (an edit or an answer may be repeated: twice is the same as once)."""
    pauses = iter(RETRY_PAUSES)
    floods = 0
    while True:
        if paced is not None:
            await paced[0].turn(paced[1])
        try:
            return await send()
        except RetryAfter as error:
            seconds = retry_after_seconds(error)
            TELEGRAM_FLOOD.inc()
            TELEGRAM_PAUSE_SECONDS.inc(seconds)
            floods += 1
            if floods >= FLOOD_TRIES:
                raise
            log.info("flood control: waiting %.0f s", seconds)
            if paced is not None:
                paced[0].paused(paced[1], seconds)  # the next turn waits it out, and so does the rest of the chat
                if paced[0].held(paced[1]):
                    raise  # drawn before its turn: what it shows is drawn again when the turn comes back
            else:
                await asyncio.sleep(seconds)
        except (TimedOut, NetworkError) as error:
            if isinstance(error, TimedOut) and not resend_after_timeout:
                raise
            pause = next(pauses, None)
            if not is_transient(error) or pause is None:
                raise
            log.info("Telegram request failed on the way (%s); trying again in %.2f s", error.message, pause)
            await asyncio.sleep(pause)


#: Parts of Telegram's 400 descriptions that say the chat itself cannot take a message.
CHAT_GONE = (
    "chat not found", "not enough rights", "have no rights", "chat_write_forbidden", "bot was kicked",
    "bot is not a member", "need administrator rights", "chat_restricted", "peer_id_invalid",
    "group chat was deactivated", "user is deactivated", "chat is deactivated", "topic_closed",
)


def chat_gone(error: BadRequest) -> bool:
    """Whether a 400 is about the chat (permanent for the day), not about the message."""
    text = error.message.lower()
    return any(part in text for part in CHAT_GONE)


async def post_once(send: Callable[[], Awaitable[Message]]) -> Posted:
    """``send()`` tried once, and what became of it: 429 (flood control) a :class:`~bot.app.effects.Pause`; the
    network, a timeout, a 5xx :class:`~bot.app.effects.Transient`; 403 (the bot blocked, removed) and the 400s about
    the chat (not found, no right to post, the group moved to a supergroup) :class:`~bot.app.effects.ChatGone`; any
    other 400 is about the message: :class:`~bot.app.effects.Refused`."""
    try:
        message = await send()
    except RetryAfter as error:
        return Pause(retry_after_seconds(error))
    except ChatMigrated as error:  # the group became a supergroup with another id
        return ChatGone(f"the group moved to {error.new_chat_id}")
    except Forbidden as error:
        return ChatGone(error.message)
    except BadRequest as error:
        return ChatGone(error.message) if chat_gone(error) else Refused(error.message)
    except NetworkError as error:  # TimedOut is one; so are 5xx answers
        return Transient(error.message)
    return Sent(str(message.message_id))


def is_not_modified(error: BadRequest) -> bool:
    """Telegram's answer to an edit that changes nothing: nothing to report."""
    return "message is not modified" in error.message.lower()


@dataclasses.dataclass
class _Shown:
    """What one message shows: a lock for its edits, the game and version last drawn into it, and its picture."""

    lock: asyncio.Lock = dataclasses.field(default_factory=asyncio.Lock)
    game: tuple[int, int] | None = None  # (game id, version)
    picture: object = None


@dataclasses.dataclass
class Turn:
    """An edit's turn at a message: whether to make it (not when the message shows a later version of the game),
    and the picture the message shows (what the picture board was drawn from, as this process last sent or edited
    it; None when not known, or no picture). The editor sets ``picture`` to what its edit made the message show."""

    wanted: bool
    picture: object


class EditOrder:
    """The messages the bot edits, each edited one request at a time, never back to an older version of the game
    it shows. Remembers the latest :data:`MAX` messages (an older one is simply edited as asked)."""

    MAX = 10_000

    def __init__(self) -> None:
        self._shown: collections.OrderedDict[tuple[int, int], _Shown] = collections.OrderedDict()

    def _entry(self, key: tuple[int, int]) -> _Shown:
        shown = self._shown.get(key)
        if shown is None:
            shown = self._shown[key] = _Shown()
            while len(self._shown) > self.MAX:
                oldest = next(iter(self._shown))
                if self._shown[oldest].lock.locked():
                    break
                del self._shown[oldest]
        self._shown.move_to_end(key)
        return shown

    def sent(self, chat_id: int, message_id: int, picture: object) -> None:
        """A new message showing ``picture`` (a photo board's table)."""
        self._entry((chat_id, message_id)).picture = picture

    @contextlib.asynccontextmanager
    async def editing(self, chat_id: int, message_id: int,
                      game: tuple[int, int] | None) -> AsyncIterator[Turn]:
        """Hold the message's turn; yields whether to edit it to ``game`` (game id, version; None: not a game
        board), False when it already shows a later version of that game, and the picture it shows. Leaving the
        block normally records ``game`` as shown and the turn's picture; an error forgets the picture (the edit
        may or may not have been made)."""
        shown = self._entry((chat_id, message_id))
        async with shown.lock:
            newer = (game is not None and shown.game is not None and shown.game[0] == game[0]
                     and shown.game[1] > game[1])
            turn = Turn(not newer, shown.picture)
            try:
                yield turn
            except BaseException:
                shown.picture = None
                raise
            if not newer:
                shown.game = game
            shown.picture = turn.picture
