"""Live rounds' messages on Telegram: posted in the group, then brought up to date at the group's pace (shared with
the boards there: :class:`~bot.adapters.telegram.pacing.ChatPace`), each edit drawing the round as the database has
it when it goes, so the moves made meanwhile coalesce into one edit; and the loop that ends the rounds whose time
is up (once, in the database: :meth:`bot.app.flow.Flow.rounds_due`) and shows their results. The final edit always
lands: a 429 is waited out (:func:`~bot.adapters.telegram.sending.persist`), a message gone is posted anew.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import assert_never

from telegram import Bot, Chat, Message
from telegram.constants import ChatType

from bot.adapters.telegram.pacing import ChatPace
from bot.app.codec import BadPayload, start_parameter, watch_parameter
from bot.app.commands import RoundDeal
from bot.app.effects import (
    Answer,
    BoardRef,
    ChatEffect,
    EditBoard,
    EditMessage,
    Effect,
    Post,
    PostRound,
    PostTo,
    RedrawBoard,
    RedrawRound,
    Reply,
    Report,
    RoundAt,
    RoundSnapshot,
    SendBoard,
    Tell,
)
from bot.app.flow import Flow
from bot.render.rounds import render_round
from bot.render.view import View

#: Edit a message to a view; False when it can no longer be edited.
Edit = Callable[[Bot, BoardRef, View, tuple[int, int] | None], Awaitable[bool]]
#: Send a view as a new message in a chat, or answering a message.
Send = Callable[[View, Message | Chat], Awaitable[Message]]

log = logging.getLogger(__name__)

#: Seconds between two looks for rounds whose time is up.
DUE_EVERY = 1.0
#: Seconds between two redraws of a running round's time left when nobody moves.
CLOCK_EVERY = 60.0

PLATFORM = "telegram"


def join_link(username: str, round_id: int) -> str:
    """The link that opens the private chat with the bot and deals the round there (``/start round-<id>``)."""
    return f"https://t.me/{username}?start={start_parameter(RoundDeal(round_id))}"


class RoundMessages:
    """The round messages this process brings up to date: one writer a round."""

    def __init__(self, flow: Flow, pace: ChatPace, edit: Edit, send: Send) -> None:
        self.flow = flow
        self.pace = pace
        self.edit = edit
        self.send = send
        #: the Mini App's short name (TELEGRAM_MINI_APP), for the direct link that opens the table from the group
        self.mini_app: str | None = None
        self._stale: set[int] = set()
        self._writers: dict[int, asyncio.Task[None]] = {}
        #: the running rounds whose messages this process has drawn, and when it last did
        self._clocks: dict[int, float] = {}
        self._loop: asyncio.Task[None] | None = None
        self._stopping = False

    def view(self, bot: Bot, round: RoundSnapshot, locale: str) -> View:
        """The round's message as the group sees it, with its join link (and the Mini App's direct link)."""
        table = watch = None
        if self.mini_app:
            app = f"https://t.me/{bot.username}/{self.mini_app}?startapp="
            table = app + start_parameter(RoundDeal(round.round_id))
            watch = app + watch_parameter(round.round_id)  # the table opened watching the round
        return render_round(round, locale, join=join_link(bot.username, round.round_id), table=table, watch=watch)

    async def carry_out(self, bot: Bot, anchor: Message | None, effects: list[Effect],
                        reports: list[Report]) -> list[ChatEffect]:
        """Carry out the round effects among ``effects`` (a round's message posted answering ``anchor``, reported
        in ``reports``; brought up to date); the others are the executor's, returned in order."""
        others: list[ChatEffect] = []
        for effect in effects:
            match effect:
                case PostRound(round):
                    if anchor is None:
                        raise BadPayload("the command's message is no longer accessible")
                    sent = await self.send(self.view(bot, round, round.locale), anchor)
                    reports.append(RoundAt(round.round_id, BoardRef(str(sent.chat_id), str(sent.message_id))))
                case RedrawRound():
                    self.redraw(bot, effect)
                case SendBoard() | EditBoard() | RedrawBoard() | Answer() | Reply() | Post() | EditMessage() | Tell() \
                        | PostTo():
                    others.append(effect)  # the chat's own, for the executor
                case unhandled:
                    assert_never(unhandled)
        return others

    def redraw(self, bot: Bot, effect: RedrawRound) -> None:
        """Bring the round's message up to date (in the background: a tap is never held by the group's pace)."""
        self._stale.add(effect.round_id)
        if effect.round_id not in self._writers:
            self._writers[effect.round_id] = asyncio.ensure_future(self._write(bot, effect.round_id))

    async def settled(self) -> None:
        """Wait until no round message is being brought up to date (tests, and a clean stop)."""
        while self._writers:
            await asyncio.gather(*self._writers.values(), return_exceptions=True)

    async def _write(self, bot: Bot, round_id: int) -> None:
        try:
            while round_id in self._stale:
                round = await self.flow.rounds.now(round_id)
                if round.message is None:
                    self._stale.discard(round_id)  # not posted yet: the post draws it as it stands
                    break
                async with self.pace.holding(int(round.chat_id)):  # the chat's turn first, then drawn
                    self._stale.discard(round_id)
                    round = await self.flow.rounds.now(round_id)  # as it stands when the edit goes
                    await self._show(bot, round)
        except Exception:
            log.exception("could not bring the message of round %s up to date", round_id)
        finally:
            del self._writers[round_id]
            if round_id in self._stale and not self._stopping:  # asked again as the writer ended: once more
                self._writers[round_id] = asyncio.ensure_future(self._write(bot, round_id))

    async def _show(self, bot: Bot, round: RoundSnapshot) -> None:
        assert round.message is not None
        view = self.view(bot, round, round.locale)
        if round.ended:
            self._clocks.pop(round.round_id, None)
        else:
            self._clocks[round.round_id] = asyncio.get_running_loop().time()
        if not await self.edit(bot, round.message, view, None) and round.ended:
            # the results must land: the message is gone or can no longer be edited, so they are posted anew
            chat = Chat(int(round.chat_id), ChatType.GROUP)
            chat.set_bot(bot)
            await self.send(view, chat)
        if round.ended:
            await self.flow.rounds.results_shown(round.round_id)

    # --- the clock ------------------------------------------------------------------------------------------------

    def start(self, bot: Bot) -> None:
        """Start the loop that ends rounds whose time is up and keeps the time left of running ones current."""
        self._loop = asyncio.ensure_future(self._run(bot))

    async def stop(self) -> None:
        """Stop the loop and the writers (a round's results still to show are shown by the next start's loop)."""
        self._stopping = True
        tasks = [task for task in (self._loop, *self._writers.values()) if task is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._loop = None

    async def _run(self, bot: Bot) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                for effect in await self.flow.rounds.due(PLATFORM):
                    if isinstance(effect, RedrawRound):
                        self.redraw(bot, effect)
                now = loop.time()
                for round_id, at in list(self._clocks.items()):
                    if now - at >= CLOCK_EVERY:
                        self._clocks[round_id] = now
                        self.redraw(bot, RedrawRound(round_id))
            except Exception:
                log.exception("could not end the rounds whose time is up")
            await asyncio.sleep(DUE_EVERY)
