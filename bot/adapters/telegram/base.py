"""What every Telegram handler shares: who the player is and which language they read, sending and editing views,
and answering taps.

A command replies with a new message; a tap on an inline button is answered at once (``answerCallbackQuery``,
with the renderer's notice as the toast) and then the tapped message is edited in place, as in
python-telegram-bot's ``examples/inlinekeyboard.py``. No game rule, SQL or user-facing string lives here: the
service decides, :mod:`bot.render` words it (localised), :mod:`bot.adapters.telegram.keyboard` lays it out.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from telegram import Bot, CallbackQuery, Chat, Message, Update, User
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, ContextTypes

from bot.adapters.telegram.keyboard import keyboard, message_text, toast
from bot.adapters.telegram.sending import Boards, is_not_modified, persist
from bot.app.errors import BotError
from bot.app.model import BoardRef, GameSnapshot, PlayerKey, Settings
from bot.app.service import GameService
from bot.i18n import match_locale, resolve_locale
from bot.render.game import render_game
from bot.render.replies import error_text
from bot.render.view import View
from core.errors import TriPeaksError

log = logging.getLogger(__name__)

PLATFORM = "telegram"
#: How a player starts a game here; the renderer puts it into error texts.
NEW_COMMAND = "/tripeaks"

Context = ContextTypes.DEFAULT_TYPE
TelegramApp = Application[Any, Any, Any, Any, Any, Any]


@dataclasses.dataclass(frozen=True)
class Reply:
    """What a tap produces: the toast, and the view to edit the tapped message to (None: leave it), with the
    game and version that view shows (so an older one never replaces a newer one)."""

    notice: str | None
    view: View | None = None
    game: tuple[int, int] | None = None
    #: where the game's live board was (the tapped message becomes it when it is another one)
    live: BoardRef | None = None


def in_group(chat: Chat) -> bool:
    """A group, supergroup or channel: boards there carry their player's name."""
    return chat.type != ChatType.PRIVATE


def group_chat_id(chat_id: str) -> bool:
    """Whether a chat id names a group or channel (Telegram gives them negative ids, private chats positive)."""
    return chat_id.startswith("-")


def board_of(message: Message) -> BoardRef:
    return BoardRef(str(message.chat_id), str(message.message_id))


def game_key(snapshot: GameSnapshot) -> tuple[int, int]:
    return snapshot.game_id, snapshot.version


class HandlerBase:
    """The state and helpers of the handlers of one Application, bound to the game service."""

    def __init__(self, service: GameService, default_locale: str = "en",
                 post_time: dt.time = dt.time(9, 0)) -> None:
        self.service = service
        self.default_locale = resolve_locale(default_locale)
        #: when the daily posts are made (UTC), quoted when a group subscribes
        self.post_time = post_time
        self.boards = Boards()
        #: New game taps just asked about, by (game id, version), with when (a double tap asks once)
        self.asked: dict[tuple[int, int], float] = {}

    # --- who and which language ---------------------------------------------------------------------------

    @staticmethod
    def player(user: User) -> PlayerKey:
        return PlayerKey(PLATFORM, str(user.id))

    @staticmethod
    def name(user: User) -> str:
        return user.full_name[:100]

    def locale(self, user: User, settings: Settings | None) -> str:
        """The player's own language setting first, then Telegram's ``language_code`` (``pt-br`` is pt_BR),
        then the configured default for a language the bot does not speak."""
        override = settings.language if settings is not None else None
        return resolve_locale(override, match_locale(user.language_code) or self.default_locale)

    async def user_locale(self, user: User) -> str:
        return self.locale(user, await self.service.get_settings(self.player(user)))

    async def safe_locale(self, user: User) -> str:
        try:
            return await self.user_locale(user)
        except Exception:
            return self.locale(user, None)

    def game_view(self, snapshot: GameSnapshot, user: User, *, group: bool, latest: bool = True) -> View:
        """The game as its owner sees it (``user`` is the owner: the service lets nobody else act); in a group
        the board names its player."""
        return render_game(snapshot, self.locale(user, snapshot.settings), snapshot.settings, owner_label=group,
                           latest=latest)

    # --- sending ----------------------------------------------------------------------------------------------

    @staticmethod
    async def reply(message: Message, view: View) -> Message:
        """A new message answering ``message`` (quoting it in groups, as long as it still exists)."""
        text, markup = message_text(view), keyboard(view)
        return await persist(lambda: message.reply_text(text, parse_mode=ParseMode.HTML, reply_markup=markup,
                                                        allow_sending_without_reply=True),
                             resend_after_timeout=False)

    @staticmethod
    async def reply_text(message: Message, text: str) -> Message:
        """A short plain-text answer to ``message``."""
        return await persist(lambda: message.reply_text(text, allow_sending_without_reply=True),
                             resend_after_timeout=False)

    async def reply_error(self, message: Message, user: User, error: Exception) -> None:
        await self.reply_text(message, error_text(error, await self.user_locale(user), NEW_COMMAND))

    async def _command(self, update: Update, work: Callable[[Message, User], Awaitable[None]]) -> None:
        message, user = update.effective_message, update.effective_user
        if message is None or user is None:
            return
        try:
            await work(message, user)
        except (BotError, TriPeaksError) as error:
            await self.reply_error(message, user, error)

    async def edit_board(self, bot: Bot, where: BoardRef, view: View, game: tuple[int, int] | None) -> bool:
        """Edit the message at ``where`` to ``view``, unless it already shows a later version of ``game``.
        False when it can no longer be edited (gone, too old); an edit that changes nothing is no error."""
        chat_id, message_id = int(where.chat_id), int(where.message_id)
        text, markup = message_text(view), keyboard(view)
        async with self.boards.editing(chat_id, message_id, game) as wanted:
            if not wanted:
                return True
            try:
                await persist(lambda: bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                                            parse_mode=ParseMode.HTML, reply_markup=markup))
            except BadRequest as error:
                if is_not_modified(error):
                    return True
                log.info("could not edit message %s (%s)", message_id, error.message)
                return False
        return True

    async def close_board(self, bot: Bot, user: User, replaced: GameSnapshot | None,
                          keep: BoardRef | None = None) -> None:
        """The board of the game a new one replaced, redrawn as no longer the latest (no buttons when abandoned,
        Share and Review when finished), unless it is ``keep`` (the message that now shows the new game).
        Best effort: a board that cannot be edited any more stays as it is."""
        if replaced is None or replaced.board is None or replaced.board == keep:
            return
        view = self.game_view(replaced, user, group=group_chat_id(replaced.board.chat_id), latest=False)
        try:
            await self.edit_board(bot, replaced.board, view, game_key(replaced))
        except TelegramError as error:
            log.info("could not close the board of game %s: %s", replaced.game_id, error.message)

    # --- taps -------------------------------------------------------------------------------------------------

    async def answer(self, query: CallbackQuery, text: str | None) -> None:
        """The toast; one that cannot be sent is logged, never raised: the board is edited all the same."""
        try:
            await persist(lambda: query.answer(toast(text)))
        except TelegramError as error:  # too old, answered already, or Telegram kept failing: only the toast is lost
            log.info("could not answer callback query %s: %s", query.id, error.message)

    async def edit(self, query: CallbackQuery, view: View, game: tuple[int, int] | None = None) -> Message | None:
        """Edit the tapped message to ``view``; a message that can no longer be edited is followed by a new one
        (returned, so that a board sent anew can be noted)."""
        message = query.message
        if not isinstance(message, Message):  # too old for Telegram to say which message it was
            text, markup = message_text(view), keyboard(view)
            try:
                await persist(lambda: query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=markup))
            except BadRequest as error:
                if not is_not_modified(error):
                    raise
            return None
        if await self.edit_board(query.get_bot(), board_of(message), view, game):
            return None
        # the message is gone or can no longer be edited: show the result in a new one
        text, markup = message_text(view), keyboard(view)
        return await persist(lambda: message.chat.send_message(text, parse_mode=ParseMode.HTML, reply_markup=markup),
                             resend_after_timeout=False)
