"""The Telegram executor: the effects of :mod:`bot.app.flow` carried out for one command or one tap, and what it did
reported back (:class:`~bot.app.effects.BoardAt`: the message that now shows a game, which the flow records).

- a board sent answers the command or the tapped message (quoting it in groups); with ``reuse`` the tapped message
  itself is redrawn into it (Yes under the question, New game on a board with no move yet). It is reported as the
  game's live board, and the replaced game's board is redrawn as no longer the latest;
- a board edited is the tapped message (never back to an older version of the game:
  :class:`~bot.adapters.telegram.sending.EditOrder`); the tap's toast is answered first, then the message edited;
  a message that can no longer be edited is followed by a new one;
- a private line is the tap's toast, or a short reply to a command; a private message (the question) is a reply,
  as Telegram has no message only one member of a group sees; a review asked for in a group goes to the player's
  private chat with the bot, never to the group: sent there, or (when the bot may not write first, the player never
  started it) the tap opens that chat with the link ``t.me/<bot>?start=review-<game>``, which shows it there;
- a post is a message of its own in the chat: the shared result, with the challenge link ``t.me/<bot>?start=<code>``;
  a reply answers the command for the chat to see (the leaderboard, a subscription);
- a board redrawn where it is: a text board cannot become a picture (nor the other way round), so after a change
  of board style it is sent anew, and the old one loses its buttons.

Every tap is answered exactly once, so the player's client stops spinning.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable

from telegram import Bot, CallbackQuery, Chat, Message, User
from telegram.constants import ChatType
from telegram.error import BadRequest, TelegramError

from bot.adapters.telegram.base import (
    NEW_COMMAND,
    TelegramContext,
    edit_view,
    game_key,
    group_chat_id,
    in_group,
    message_ref,
    send_view,
)
from bot.adapters.telegram.inline import deal_link
from bot.adapters.telegram.keyboard import toast
from bot.adapters.telegram.menu import menu_commands
from bot.adapters.telegram.sending import is_not_modified, persist
from bot.app.codec import BadPayload, review_parameter
from bot.app.effects import (
    Answer,
    Board,
    BoardAt,
    BoardRef,
    Data,
    EditBoard,
    EditMessage,
    Effect,
    GameSnapshot,
    HelpOf,
    Note,
    Post,
    Problem,
    Question,
    RedrawBoard,
    Reply,
    Report,
    ReviewOf,
    SendBoard,
    Settings,
    ShareOf,
    Shown,
    Tell,
    settings_of,
)
from bot.render.effects import draw, line
from bot.render.endings import review_sent_privately
from bot.render.view import View

log = logging.getLogger(__name__)

#: How long the edit of a tapped message waits for the toast to be answered first (seconds); past it, both go on.
TOAST_FIRST_WAIT = 1.0


class TelegramExecutor:
    """Carries out effects for ``user``'s command (``anchor`` is its message) or tap (``query``; ``anchor`` is the
    tapped message, None when Telegram no longer hands it over)."""

    def __init__(self, tg: TelegramContext, bot: Bot, user: User, anchor: Message | None,
                 query: CallbackQuery | None = None) -> None:
        self.tg = tg
        self.bot = bot
        self.user = user
        self.anchor = anchor
        self.query = query
        self._answered = False
        #: a link the tap's answer opens (the private chat with the bot, to show a review there)
        self._open_url: str | None = None
        #: what was done, for the flow to record
        self._reports: list[Report] = []

    async def run(self, effects: list[Effect]) -> list[Report]:
        """Carry out ``effects`` in order; a tap is answered (with the toast an effect gave, if any) by the end.
        Returns where boards now are."""
        notice: str | None = None
        try:
            for effect in effects:
                match effect:
                    case SendBoard(snapshot, reuse):
                        await self.send_board(snapshot, reuse=reuse)
                    case EditBoard(snapshot, problem):
                        view = self.board(snapshot, self.tapped_in_group())
                        await self.toast_first(self.line(problem) if problem is not None else view.notice,
                                               self.edit_tapped(view, snapshot))
                    case RedrawBoard(snapshot):
                        await self.redraw(snapshot)
                    case Answer(ReviewOf() as review) if self.in_group():
                        notice = await self.review_in_private(review)
                    case Answer(content) | Reply(content):
                        if isinstance(content, Data):
                            continue  # inline mode draws the offers itself (:mod:`bot.adapters.telegram.inline`)
                        if not isinstance(content, Note):
                            await self.tg.reply(self.need_anchor(), self.draw(content))
                        elif isinstance(effect, Answer) and self.query is not None:
                            notice = self.line(content)
                        else:
                            await self.tg.reply_text(self.need_anchor(), self.line(content))
                    case Post(shown):
                        await self.post(self.draw(shown))
                    case EditMessage(shown):
                        await self.toast_first(None, self.edit_tapped(self.draw(shown), None))
                    case Tell(chat_id, shown):
                        await self.tell(chat_id, self.draw(shown))
        except BadPayload as error:  # the tapped message is too old for Telegram to hand over
            notice = self.line(Problem(error, Settings()))
        await self.answer(notice)
        return self._reports

    # --- drawing ------------------------------------------------------------------------------------------------

    def draw(self, content: Shown) -> View:
        locale = self.tg.locale(self.user, settings_of(content))
        match content:
            case HelpOf():
                return draw(content, locale, commands=menu_commands(locale))
            case Question(current):
                anchor = self.need_anchor()
                elsewhere = current.board is not None and current.board.chat_id != str(anchor.chat_id)
                return draw(content, locale, elsewhere=elsewhere)
            case ShareOf(snapshot):
                link = deal_link(self.bot.username, snapshot)
                return draw(content, locale, replay=link, link=link)
        return draw(content, locale)

    def board(self, snapshot: GameSnapshot, group: bool, *, latest: bool = True) -> View:
        """The game as its owner sees it (the acting user is the owner: the service lets nobody else act); in a
        group the board names its player."""
        return draw(Board(snapshot, latest), self.tg.locale(self.user, snapshot.settings), named=group)

    def line(self, note: Note) -> str:
        return line(note, self.tg.locale(self.user, settings_of(note)), NEW_COMMAND)

    # --- messages -----------------------------------------------------------------------------------------------

    def need_anchor(self) -> Message:
        """The message to answer; a tapped message too old for Telegram to hand over is refused."""
        if self.anchor is None:
            raise BadPayload("the tapped message is no longer accessible")
        return self.anchor

    def in_group(self) -> bool:
        """Whether the command or the tap came from a group."""
        message = self.anchor or (self.query.message if self.query is not None else None)
        return message is not None and in_group(message.chat)

    async def review_in_private(self, review: ReviewOf) -> str | None:
        """The review in the player's private chat with the bot (the toast says so); when the bot may not write
        there first, the tap's answer opens that chat with a link that shows the review there (no toast)."""
        private = Chat(self.user.id, ChatType.PRIVATE)
        private.set_bot(self.bot)
        try:
            await send_view(self.draw(review), private)
        except TelegramError as error:  # "bot can't initiate conversation with a user", or blocked
            log.info("review of game %s by link: %s", review.snapshot.game_id, error.message)
            self._open_url = f"https://t.me/{self.bot.username}?start={review_parameter(review.snapshot.game_id)}"
            return None
        return review_sent_privately(self.tg.locale(self.user, review.snapshot.settings))

    def tapped_in_group(self) -> bool:
        message = self.query.message if self.query is not None else None
        return message is not None and in_group(message.chat)

    async def answer(self, text: str | None) -> None:
        """Answer the tap (once): the toast. One that cannot be sent is logged, never raised: the board is edited
        all the same."""
        if self.query is None or self._answered:
            return
        self._answered = True
        query = self.query
        try:
            await persist(lambda: query.answer(toast(text) if self._open_url is None else None, url=self._open_url))
        except TelegramError as error:  # too old, answered already, or Telegram kept failing: only the toast is lost
            log.info("could not answer callback query %s: %s", query.id, error.message)

    async def toast_first(self, text: str | None, edit: Awaitable[None]) -> None:
        """The toast first, as long as Telegram answers it at once; one that fails or hangs goes on being tried
        while the tapped message is edited: it neither holds the edit back for long nor prevents it."""
        answering = asyncio.ensure_future(self.answer(text))
        await asyncio.wait({answering}, timeout=TOAST_FIRST_WAIT)
        try:
            await edit
        finally:
            await answering

    async def tell(self, chat_id: str, view: View) -> None:
        """A new message in another chat (a challenger's): best effort, a chat closed to the bot is logged."""
        chat = Chat(int(chat_id), ChatType.GROUP if int(chat_id) < 0 else ChatType.PRIVATE)
        chat.set_bot(self.bot)
        try:
            await self.tg.send(view, chat)
        except TelegramError as error:
            log.info("could not tell chat %s: %s", chat_id, error.message)

    async def post(self, view: View) -> None:
        """A message of its own in the chat (not a reply)."""
        await self.tg.send(view, self.need_anchor().chat)

    async def send_board(self, snapshot: GameSnapshot, *, reuse: bool) -> None:
        """A game just started (or resumed) as its live board: the tapped message redrawn (``reuse``) or a new
        message answering the anchor; the service is told where it is, and the replaced game's board closed. A
        text message (the question, under a Yes) cannot become a picture board: the board is a new photo, and the
        question loses its buttons."""
        anchor = self.need_anchor()
        view = self.board(snapshot, in_group(anchor.chat))
        shown = anchor
        photo = view.table is not None
        if not reuse or photo != bool(anchor.photo) or not await self.tg.edit_message(
                self.bot, message_ref(anchor), view, game_key(snapshot)):
            shown = await self.tg.reply(anchor, view)
            if reuse and photo != bool(anchor.photo):
                await self.take_buttons_off(message_ref(anchor), snapshot.game_id)
        self._reports.append(BoardAt(snapshot.game_id, message_ref(shown)))
        await self.close(snapshot.replaced, keep=message_ref(shown))

    async def take_buttons_off(self, where: BoardRef, game_id: int) -> None:
        """The message at ``where`` keeps its text but no buttons (best effort)."""
        try:
            await persist(lambda: self.bot.edit_message_reply_markup(int(where.chat_id), int(where.message_id),
                                                                     reply_markup=None))
        except TelegramError as error:
            log.info("could not take the buttons off message %s (game %s): %s", where.message_id, game_id,
                     error.message)

    async def close(self, replaced: GameSnapshot | None, keep: BoardRef) -> None:
        """The board of the game a new one replaced, redrawn as no longer the latest (no buttons when abandoned,
        Share and Review when finished), unless it is ``keep``. Best effort: a board that cannot be edited any more
        stays as it is."""
        if replaced is None or replaced.board is None or replaced.board == keep:
            return
        view = self.board(replaced, group_chat_id(replaced.board.chat_id), latest=False)
        try:
            await self.tg.edit_message(self.bot, replaced.board, view, game_key(replaced))
        except TelegramError as error:
            log.info("could not close the board of game %s: %s", replaced.game_id, error.message)

    async def edit_tapped(self, view: View, snapshot: GameSnapshot | None) -> None:
        """Edit the tapped message to ``view`` (a board of ``snapshot``: never back to an older version, and noted
        as the live board); a message that can no longer be edited is followed by a new one."""
        assert self.query is not None
        query = self.query
        message = query.message
        if not isinstance(message, Message):  # too old for Telegram to say which message it was
            try:
                await edit_view(view, query, share_inline=self.tg.inline)
            except BadRequest as error:
                if not is_not_modified(error):
                    raise
            return
        shown = message
        game = game_key(snapshot) if snapshot is not None else None
        if not await self.tg.edit_message(self.bot, message_ref(message), view, game):
            # the message is gone or can no longer be edited: show the result in a new one
            shown = await self.tg.send(view, message.chat)
        if snapshot is not None and message_ref(shown) != snapshot.board:
            # the board was sent anew, or the player played on an older board of the game (after /resume, say):
            # the board they play on is the live one, which /play edits
            self._reports.append(BoardAt(snapshot.game_id, message_ref(shown)))

    async def redraw(self, snapshot: GameSnapshot) -> None:
        """The game's live board edited to ``snapshot``; when there is none any more (or it cannot be edited: a text
        board that must become a picture), the board is sent anew answering the anchor and becomes the live one,
        and the old one loses its buttons."""
        where = snapshot.board
        if where is not None:
            view = self.board(snapshot, group_chat_id(where.chat_id))
            if await self.tg.edit_message(self.bot, where, view, game_key(snapshot)):
                return
        anchor = self.need_anchor()
        sent = await self.tg.reply(anchor, self.board(snapshot, in_group(anchor.chat)))
        self._reports.append(BoardAt(snapshot.game_id, message_ref(sent)))
        if where is not None:
            await self.take_buttons_off(where, snapshot.game_id)
