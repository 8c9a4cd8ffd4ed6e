"""Taps on inline buttons: the board's cards, Draw, Undo, Hint and New game; a finished game's Share, Review and
Replay; Yes and No under "abandon your game?"; the welcome's Play, Daily and Rules.

Every tap is answered (the toast), then the tapped message is edited where the tap changes it. What each tap
leaves behind:

- a card, Draw, Undo, Hint: the board edited in place (never back to an older version, see
  :class:`~bot.adapters.telegram.sending.Boards`); a tap from an old board of the same game refreshes it;
- a tap on the board of a game that is no longer the player's latest: a private toast pointing at the live board,
  and that message left as it is;
- New game on the board of a game in progress: drawn into the same message when the game has no move yet, else the
  question first (a double tap asks once); on a finished board a new message, the finished board kept as it ended;
- Replay: the same deal in a new message; Share: a result line to forward, with a link that deals the same cards;
  Review: the solver's account as a new message;
- Yes: the question becomes the new game's board; No: it says the game goes on.
"""

from __future__ import annotations

import asyncio
import time

from telegram import Bot, CallbackQuery, Message, Update, User
from telegram.constants import ParseMode

from bot.adapters.telegram.base import NEW_COMMAND, Context, Reply, board_of, game_key, in_group
from bot.adapters.telegram.daily import DailyHandlers
from bot.adapters.telegram.info import InfoHandlers
from bot.adapters.telegram.keyboard import keyboard, message_text
from bot.adapters.telegram.sending import persist
from bot.app.codec import decode
from bot.app.commands import (
    AskHint,
    Begin,
    ConfirmStart,
    KeepPlaying,
    Move,
    NewGame,
    PlayDaily,
    RandomDeal,
    Replay,
    Review,
    Share,
    ShowRules,
)
from bot.app.errors import BadPayload, BotError, ConfirmAbandon, NotYourGame, StaleGame
from bot.render.endings import render_review, render_share
from bot.render.lifecycle import render_kept
from bot.render.replies import error_text, render_rules

#: A second New game tap on the same board within this many seconds is the same tap (one question is asked).
DOUBLE_TAP_SECONDS = 3.0
#: How long the edit of a tapped board waits for the toast to be answered first (seconds); past it, both go on.
TOAST_FIRST_WAIT = 1.0


class TapHandlers(DailyHandlers, InfoHandlers):
    """The handler of callback queries, with what every kind of button does."""

    async def on_callback(self, update: Update, context: Context) -> None:
        """A tap: work out the reply, answer the query at once, then edit the message in place."""
        query = update.callback_query
        if query is None:
            return
        user = query.from_user
        try:
            reply = await self.tap(context.bot, query, user)
        except Exception:
            # whatever failed, the tap is answered, so the player's client stops spinning
            await self.answer(query, error_text(RuntimeError(), await self.safe_locale(user), NEW_COMMAND))
            raise
        # the toast first, as long as Telegram answers it at once; one that fails or hangs goes on being tried
        # while the board is edited: it neither holds the edit back for long nor prevents it
        answering = asyncio.ensure_future(self.answer(query, reply.notice))
        await asyncio.wait({answering}, timeout=TOAST_FIRST_WAIT)
        try:
            if reply.view is not None:
                await self.show_tapped(query, reply)
        finally:
            await answering

    async def show_tapped(self, query: CallbackQuery, reply: Reply) -> None:
        """The tapped message edited to the reply's view (sent anew when it cannot be edited)."""
        assert reply.view is not None
        sent = await self.edit(query, reply.view, reply.game)
        shown = sent if sent is not None else query.message
        if reply.game is not None and isinstance(shown, Message) and board_of(shown) != reply.live:
            # the board was sent anew, or the player played on an older board of the game (after /resume, say):
            # the board they play on is the live one, which /play edits
            await self.service.show_board(reply.game[0], board_of(shown))

    async def tap(self, bot: Bot, query: CallbackQuery, user: User) -> Reply:
        try:
            command = decode(query.data or "")
            match command:
                case Move() | AskHint():
                    snapshot = await self.service.act(self.player(user), self.name(user), command)
                    view = self.game_view(snapshot, user, group=self.tapped_in_group(query))
                    return Reply(view.notice, view, game_key(snapshot), snapshot.board)
                case NewGame():
                    return await self.tap_new_game(bot, user, command, self.anchor(query))
                case Replay():
                    return await self.tap_replay(bot, user, command, self.anchor(query))
                case Share():
                    return await self.tap_share(bot, user, command, self.anchor(query))
                case Review():
                    snapshot = await self.service.act(self.player(user), self.name(user), command)
                    review = await self.service.review(command.game_id)
                    view = render_review(snapshot, review, await self.user_locale(user))
                    await self.reply(self.anchor(query), view)
                    return Reply(None)
                case ConfirmStart():
                    await self.check_owner(user, command.abandon)
                    await self.launch(bot, user, command, self.anchor(query), in_place=True)
                    return Reply(None)
                case KeepPlaying():
                    await self.check_owner(user, command.game_id)
                    self.asked = {key: at for key, at in self.asked.items() if key[0] != command.game_id}
                    return Reply(None, render_kept(await self.user_locale(user)))
                case Begin(request):
                    await self.launch(bot, user, request, self.anchor(query))
                    return Reply(None)
                case ShowRules():
                    await self.reply(self.anchor(query), render_rules(await self.user_locale(user)))
                    return Reply(None)
                case PlayDaily():
                    return await self.tap_daily(bot, user, command, self.anchor(query))
            return await self.tap_settings(query, user, command)
        except StaleGame as error:
            # an old board of the same game, or a double tap: nothing changed; show the game as it stands
            current = error.current
            view = self.game_view(current, user, group=self.tapped_in_group(query))
            return Reply(error_text(error, self.locale(user, current.settings), NEW_COMMAND), view,
                         game_key(current), current.board)
        except BotError as error:
            # NotCurrentGame among them: a private toast pointing at the live board, the tapped message untouched
            return Reply(error_text(error, await self.user_locale(user), NEW_COMMAND))

    @staticmethod
    def anchor(query: CallbackQuery) -> Message:
        """The tapped message, to answer with a new one; a message too old for Telegram to hand over is refused."""
        message = query.message
        if not isinstance(message, Message):
            raise BadPayload("the tapped message is no longer accessible")
        return message

    @staticmethod
    def tapped_in_group(query: CallbackQuery) -> bool:
        message = query.message
        return message is not None and in_group(message.chat)

    async def check_owner(self, user: User, game_id: int) -> None:
        """Yes and No under a question in a group are for the player it asked only."""
        game = await self.service.game(game_id)
        if game.owner != self.player(user):
            raise NotYourGame(game.owner_name)

    async def tap_new_game(self, bot: Bot, user: User, command: NewGame, anchor: Message) -> Reply:
        """New game on a board: the service decides (a question first when the game has moves; a toast for an
        old or replaced board). The new game replaces an unfinished board in the same message; a finished
        game's board stays as it ended and the new game is a new message."""
        try:
            snapshot = await self.service.act(self.player(user), self.name(user), command, ask=True)
        except ConfirmAbandon as error:
            if not self.double_tap(command):
                await self.ask_first(user, error.current, error.request or RandomDeal(), anchor)
            return Reply(None)
        replaced = snapshot.replaced
        in_place = replaced is not None and replaced.game_id == command.game_id and replaced.abandoned
        await self.present(bot, user, snapshot, anchor, in_place=in_place)
        return Reply(None)

    def double_tap(self, command: NewGame) -> bool:
        """Whether this New game repeats one just asked about from the same board."""
        now = time.monotonic()
        self.asked = {key: at for key, at in self.asked.items() if now - at < DOUBLE_TAP_SECONDS}
        key = (command.game_id, command.version)
        if key in self.asked:
            return True
        self.asked[key] = now
        return False

    async def tap_replay(self, bot: Bot, user: User, command: Replay, anchor: Message) -> Reply:
        """Replay on a finished board: the same deal again, as a new message."""
        try:
            snapshot = await self.service.act(self.player(user), self.name(user), command, ask=True)
        except ConfirmAbandon as error:
            assert error.request is not None  # the service names the replay it would start
            await self.ask_first(user, error.current, error.request, anchor)
            return Reply(None)
        await self.present(bot, user, snapshot, anchor)
        return Reply(None)

    async def tap_share(self, bot: Bot, user: User, command: Share, anchor: Message) -> Reply:
        """Share on a finished board: a spoiler-free result line as a message of its own, to forward; its link
        (``t.me/<bot>?start=<code>``) opens the bot and deals the same cards."""
        snapshot = await self.service.act(self.player(user), self.name(user), command)
        link = self.deal_link(bot, str(snapshot.game.code))
        view = render_share(snapshot, await self.user_locale(user), replay=link, url=link)
        text, markup = message_text(view), keyboard(view)
        await persist(lambda: anchor.chat.send_message(text, parse_mode=ParseMode.HTML, reply_markup=markup),
                      resend_after_timeout=False)
        return Reply(None)

    @staticmethod
    def deal_link(bot: Bot, code: str) -> str:
        """The challenge link of a deal: it opens a private chat with the bot, whose ``/start <code>`` deals it."""
        return f"https://t.me/{bot.username}?start={code}"
