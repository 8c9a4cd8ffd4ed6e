"""What every Telegram handler shares (:class:`TelegramContext`): the application's one door (the flow), who the
player is and which language they read, sending views and editing messages in order.

A command replies with a new message; a tap on an inline button is answered at once (``answerCallbackQuery``,
with the renderer's notice as the toast) and then the tapped message is edited in place, as in
python-telegram-bot's ``examples/inlinekeyboard.py`` (:mod:`bot.adapters.telegram.executor`). No game rule, SQL or
user-facing string lives here: the flow decides, :mod:`bot.render` words it (localised),
:mod:`bot.adapters.telegram.keyboard` lays it out.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from telegram import Bot, CallbackQuery, Chat, InputMediaPhoto, Message, User
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import Application, ContextTypes

from bot.adapters.telegram.boards import BoardEdits
from bot.adapters.telegram.keyboard import ViewTooLarge, caption_text, keyboard, message_text
from bot.adapters.telegram.pacing import TELEGRAM_PACE, BusyOffers, ChatPace, Pace
from bot.adapters.telegram.rounds import RoundMessages
from bot.adapters.telegram.sending import EditOrder, Paced, is_not_modified, persist
from bot.app.abilities import telegram
from bot.app.commands import Actor, ButtonCommand, Surface
from bot.app.effects import BoardRef, GameSnapshot, PlayerKey, Settings
from bot.app.flow import Flow
from bot.i18n import match_locale, resolve_locale
from bot.render.picture import draw_table
from bot.render.view import View

log = logging.getLogger(__name__)

PLATFORM = "telegram"
#: How a player starts a game here; the renderer puts it into error texts.
NEW_COMMAND = "/tripeaks"

Context = ContextTypes.DEFAULT_TYPE
TelegramApp = Application[Any, Any, Any, Any, Any, Any]


def in_group(chat: Chat) -> bool:
    """A group, supergroup or channel: boards there carry their player's name."""
    return chat.type != ChatType.PRIVATE


def group_chat_id(chat_id: str) -> bool:
    """Whether a chat id names a group or channel (Telegram gives them negative ids, private chats positive)."""
    return chat_id.startswith("-")


def message_ref(message: Message) -> BoardRef:
    """A message as the service records a board."""
    return BoardRef(str(message.chat_id), str(message.message_id))


def game_key(snapshot: GameSnapshot) -> tuple[int, int]:
    return snapshot.game_id, snapshot.version


async def picture_of(view: View) -> bytes | None:
    """The PNG of a picture board, drawn in a worker thread so no tap waits behind a picture; None for a view
    without one (a text board, any other message)."""
    if view.table is None:
        return None
    return await asyncio.to_thread(draw_table, view.table)


async def send_view(view: View, to: Message | Chat, *, share_inline: bool = False, paced: Paced | None = None,
                    ) -> Message:
    """A new message showing ``view``: a reply to the message ``to`` (quoting it in groups, while it exists) or a
    message of its own in the chat ``to``. A picture board is a photo, its header and status the caption. Not sent
    again after a timeout (it may have arrived). ``share_inline``: Share opens the inline mode (see
    :func:`~bot.adapters.telegram.keyboard.keyboard`); ``paced``: at the chat's pace (:func:`persist`)."""
    markup = keyboard(view, share_inline=share_inline)
    png = await picture_of(view)
    if png is None:
        text = message_text(view)
        if isinstance(to, Message):
            return await persist(lambda: to.reply_text(text, parse_mode=ParseMode.HTML, reply_markup=markup,
                                                       allow_sending_without_reply=True),
                                 resend_after_timeout=False, paced=paced)
        return await persist(lambda: to.send_message(text, parse_mode=ParseMode.HTML, reply_markup=markup),
                             resend_after_timeout=False, paced=paced)
    caption = caption_text(view)
    if isinstance(to, Message):
        return await persist(lambda: to.reply_photo(png, caption=caption, parse_mode=ParseMode.HTML,
                                                    reply_markup=markup, allow_sending_without_reply=True),
                             resend_after_timeout=False, paced=paced)
    return await persist(lambda: to.send_photo(png, caption=caption, parse_mode=ParseMode.HTML, reply_markup=markup),
                         resend_after_timeout=False, paced=paced)


async def edit_view(view: View, at: tuple[Bot, int, int] | CallbackQuery, *, share_inline: bool = False,
                    same_picture: bool = False, paced: Paced | None = None) -> None:
    """Edit a message to ``view``: the message ``at`` names (the bot, a chat id and a message id), or the one a
    callback query was tapped on. A picture board is a new photo with its caption and keyboard in one call
    (editMessageMedia), or with ``same_picture`` (the photo already shows this table) its caption and keyboard
    alone (editMessageCaption: nothing uploaded); any other view a text; a text message cannot become a photo nor a
    photo a text (Telegram answers BadRequest: the caller sends the view anew). ``share_inline`` and ``paced`` as
    for :func:`send_view`."""
    markup = keyboard(view, share_inline=share_inline)
    if same_picture and view.table is not None:
        caption = caption_text(view)
        if isinstance(at, CallbackQuery):
            await persist(lambda: at.edit_message_caption(caption, parse_mode=ParseMode.HTML, reply_markup=markup),
                          paced=paced)
        else:
            bot, chat_id, message_id = at
            await persist(lambda: bot.edit_message_caption(chat_id=chat_id, message_id=message_id, caption=caption,
                                                           parse_mode=ParseMode.HTML, reply_markup=markup),
                          paced=paced)
        return
    png = await picture_of(view)
    if png is None:
        text = message_text(view)
        if isinstance(at, CallbackQuery):
            await persist(lambda: at.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=markup),
                          paced=paced)
        else:
            bot, chat_id, message_id = at
            await persist(lambda: bot.edit_message_text(text, chat_id=chat_id, message_id=message_id,
                                                        parse_mode=ParseMode.HTML, reply_markup=markup), paced=paced)
        return
    media = InputMediaPhoto(png, caption=caption_text(view), parse_mode=ParseMode.HTML)
    if isinstance(at, CallbackQuery):
        await persist(lambda: at.edit_message_media(media, reply_markup=markup), paced=paced)
    else:
        bot, chat_id, message_id = at
        await persist(lambda: bot.edit_message_media(media, chat_id=chat_id, message_id=message_id,
                                                     reply_markup=markup), paced=paced)


class TelegramContext:
    """What the handlers of one Application share: the application's one door, ``flow``."""

    def __init__(self, flow: Flow, default_locale: str = "en", pace: Pace | None = TELEGRAM_PACE) -> None:
        self.flow = flow
        self.default_locale = resolve_locale(default_locale)
        self.edits = EditOrder()
        #: every chat's allowance of messages (``pace`` None: only the pauses Telegram asks for)
        self.pace = ChatPace(pace)
        self.boards = BoardEdits(self.pace, flow.game_now, flow.game_version)
        #: the players offered a board of their own in a busy group
        self.offers = BusyOffers(self.pace)
        #: the live rounds' messages, brought up to date at their group's pace
        self.rounds = RoundMessages(flow, self.pace, self.edit_message, self.send)
        #: the bot has inline mode (BotFather's /setinline; read at start-up): Share opens it in a chat the player
        #: picks, rather than posting the result here
        self.inline = False
        #: the table in the browser (PUBLIC_URL; None: no table button) and its Mini App's short name, for groups
        self.table_url: str | None = None
        self.mini_app: str | None = None

    # --- who and which language ---------------------------------------------------------------------------

    @staticmethod
    def player(user: User) -> PlayerKey:
        return PlayerKey(PLATFORM, str(user.id))

    @staticmethod
    def name(user: User) -> str:
        return user.full_name[:100]

    def actor(self, user: User, chat: Chat | None) -> Actor:
        """Who acted, and where: a daily attempt in a group counts on the group's leaderboard; one in a private chat
        on none."""
        chat_id = str(chat.id) if chat is not None else None
        community = chat_id if chat_id is not None and group_chat_id(chat_id) else None
        return Actor(self.player(user), self.name(user), chat_id, community)

    def locale(self, user: User, settings: Settings | None) -> str:
        """The player's own language setting first, then Telegram's ``language_code`` (``pt-br`` is pt_BR),
        then the configured default for a language the bot does not speak."""
        override = settings.language if settings is not None else None
        return resolve_locale(override, self.platform_locale(user))

    def platform_locale(self, user: User) -> str:
        """The language Telegram says the player reads, or the configured default for one the bot does not speak."""
        return match_locale(user.language_code) or self.default_locale

    def surface(self, user: User, chat: Chat | None, *, addressee: PlayerKey | None = None, admin: bool = False,
                buttons: tuple[ButtonCommand, ...] | None = None) -> Surface:
        """What the flow needs to know of Telegram for ``user``'s command in ``chat`` (``buttons``: what the tapped
        message's buttons carry): what Telegram can do there (:func:`bot.app.abilities.telegram`: in a private chat
        the settings and a review take the board's place in its message; a group's go to the private chat)."""
        return Surface(platform=PLATFORM, abilities=telegram(chat is None or in_group(chat)), addressee=addressee,
                       admin=admin, platform_locale=self.platform_locale(user), buttons=buttons)

    # --- sending ----------------------------------------------------------------------------------------------

    async def reply(self, message: Message, view: View) -> Message:
        """A new message answering ``message`` (quoting it in groups, as long as it still exists)."""
        return await self.send(view, message)

    async def send(self, view: View, to: Message | Chat) -> Message:
        """A new message showing ``view`` (:func:`send_view`); the picture of a photo board is remembered, so an edit
        that keeps it uploads nothing."""
        sent = await send_view(view, to, share_inline=self.inline, paced=(self.pace, to.chat_id if isinstance(
            to, Message) else to.id))
        if view.table is not None:
            self.edits.sent(sent.chat_id, sent.message_id, view.table)
        return sent

    async def tell(self, bot: Bot, chat_id: str, view: View) -> Message | None:
        """A new message in the chat ``chat_id``, not the one acted in (a challenger's, a player's private chat):
        best effort, None when the chat is closed to the bot (a private chat the player never started, a bot
        blocked or removed), which is logged."""
        chat = Chat(int(chat_id), ChatType.GROUP if int(chat_id) < 0 else ChatType.PRIVATE)
        chat.set_bot(bot)
        try:
            return await self.send(view, chat)
        except TelegramError as error:  # "bot can't initiate conversation with a user", or blocked
            log.info("could not write to chat %s: %s", chat_id, error.message)
            return None

    async def reply_text(self, message: Message, text: str) -> Message:
        """A short plain-text answer to ``message``."""
        return await persist(lambda: message.reply_text(text, allow_sending_without_reply=True),
                             resend_after_timeout=False, paced=(self.pace, message.chat_id))

    async def edit_in_place(self, bot: Bot, where: BoardRef, view: View, *, photo: bool | None) -> bool:
        """Edit the message at ``where`` (a board) to ``view``, which has no picture (the settings, a review), keeping
        the kind of message it is: a photo's caption and keyboard (the picture stays, for the board to come back to),
        a text message's text. ``photo`` None: not known here, so the one the message is not is tried after the
        other. False when it cannot be edited so (gone, too old, a caption over Telegram's limit)."""
        chat_id, message_id = int(where.chat_id), int(where.message_id)
        markup = keyboard(view, share_inline=self.inline)
        paced = (self.pace, chat_id)

        async def caption() -> None:
            text = caption_text(view)
            await persist(lambda: bot.edit_message_caption(chat_id=chat_id, message_id=message_id, caption=text,
                                                           parse_mode=ParseMode.HTML, reply_markup=markup),
                          paced=paced)

        async def text() -> None:
            body = message_text(view)
            await persist(lambda: bot.edit_message_text(body, chat_id=chat_id, message_id=message_id,
                                                        parse_mode=ParseMode.HTML, reply_markup=markup), paced=paced)

        async with self.edits.editing(chat_id, message_id, None) as turn:
            tries = [caption, text] if (turn.picture is not None if photo is None else photo) else [text, caption]
            for edit in tries[:2 if photo is None else 1]:
                try:
                    await edit()
                    return True
                except ViewTooLarge:
                    return False
                except BadRequest as error:
                    if is_not_modified(error):
                        return True
                    log.info("could not show a message in place of board %s (%s)", message_id, error.message)
        return False

    async def edit_message(self, bot: Bot, where: BoardRef, view: View, game: tuple[int, int] | None) -> bool:
        """Edit the message at ``where`` to ``view``, unless it already shows a later version of ``game``.
        False when it can no longer be edited (gone, too old, a text board where a picture is wanted or the other way
        round); an edit that changes nothing is no error. At the chat's pace."""
        chat_id, message_id = int(where.chat_id), int(where.message_id)
        async with self.edits.editing(chat_id, message_id, game) as turn:
            if not turn.wanted:
                return True
            same_picture = view.table is not None and view.table == turn.picture
            try:
                await edit_view(view, (bot, chat_id, message_id), share_inline=self.inline,
                                same_picture=same_picture, paced=(self.pace, chat_id))
            except BadRequest as error:
                if not is_not_modified(error):
                    log.info("could not edit message %s (%s)", message_id, error.message)
                    turn.picture = None
                    return False
            turn.picture = view.table
        return True
