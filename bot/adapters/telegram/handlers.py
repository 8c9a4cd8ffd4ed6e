"""Telegram updates in, service calls out, rendered views back: the adapter's handlers.

A command replies with a new message; a tap on an inline button is answered at once (``answerCallbackQuery``,
with the renderer's notice as the toast) and then the tapped message is edited in place, as in
python-telegram-bot's ``examples/inlinekeyboard.py``. No game rule, SQL or user-facing string lives here: the
service decides, :mod:`bot.render` words it (localised), :mod:`bot.adapters.telegram.keyboard` lays it out.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import logging
import warnings
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from telegram import CallbackQuery, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, RetryAfter, TelegramError
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.adapters.telegram.keyboard import keyboard, message_text, toast
from bot.app.codec import decode
from bot.app.commands import AskHint, GameCommand, Move, NewGame, PlayDaily, SettingChange
from bot.app.errors import BadPayload, BotError, CardNotInPlay, NoActiveGame, NotACard, NotYourGame, StaleGame
from bot.app.model import GameSnapshot, PlayerKey, Settings
from bot.app.service import GameService
from bot.i18n import SUPPORTED_LOCALES, resolve_locale
from bot.render.commands import COMMAND_DESCRIPTIONS, command_description
from bot.render.game import refusal_text, render_game
from bot.render.replies import (
    DailyNotice,
    daily_notice,
    error_text,
    render_leaderboard,
    render_rules,
    render_settings,
    render_stats,
)
from bot.render.view import View
from core.deal import Rules
from core.errors import InvalidCodeError, TriPeaksError
from core.game import Reason

log = logging.getLogger(__name__)

PLATFORM = "telegram"
#: How a player starts a game here; the renderer puts it into error texts.
NEW_COMMAND = "/tripeaks"
#: The bot's commands, in menu order, each with the key of its description in :data:`bot.render.COMMAND_DESCRIPTIONS`.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("tripeaks", "new"),
    ("daily", "daily"),
    ("resume", "resume"),
    ("play", "play"),
    ("rules", "rules"),
    ("stats", "stats"),
    ("settings", "settings"),
    ("leaderboard", "leaderboard"),
    ("subscribe", "subscribe"),
    ("unsubscribe", "unsubscribe"),
    ("help", "help"),
)
#: The updates the bot asks Telegram for.
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]

Context = ContextTypes.DEFAULT_TYPE
TelegramApp = Application[Any, Any, Any, Any, Any, Any]


def menu_commands(locale: str) -> list[tuple[str, str]]:
    """The command menu in ``locale``: (command, description) for every command the renderer describes."""
    return [(name, command_description(key, locale)) for name, key in COMMANDS if key in COMMAND_DESCRIPTIONS]


@dataclasses.dataclass(frozen=True)
class _Reply:
    """What a tap produces: the toast, and the view to edit the tapped message to (None: leave it)."""

    notice: str | None
    view: View | None = None


T = TypeVar("T")
#: The longest flood-control pause a reply waits out (once); a longer one gives up, and the next tap catches up.
FLOOD_WAIT_MAX = 5.0


async def flood_wait(send: Callable[[], Awaitable[T]]) -> T:
    """``send()``, once more after Telegram's flood control asks for a short pause (busy groups hit it first)."""
    try:
        return await send()
    except RetryAfter as error:
        with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
            warnings.simplefilter("ignore")
            pause = error.retry_after
        seconds = pause.total_seconds() if isinstance(pause, dt.timedelta) else float(pause)
        if seconds > FLOOD_WAIT_MAX:
            raise
        log.info("flood control: waiting %.0f s", seconds)
        await asyncio.sleep(seconds)
        return await send()


def is_not_modified(error: BadRequest) -> bool:
    """Telegram's answer to an edit that changes nothing: nothing to report."""
    return "message is not modified" in error.message.lower()


class TelegramHandlers:
    """The handlers of one Application, bound to the game service."""

    def __init__(self, service: GameService, default_locale: str = "en",
                 post_time: dt.time = dt.time(9, 0)) -> None:
        self.service = service
        self.default_locale = resolve_locale(default_locale)
        #: when the daily posts are made (UTC), quoted when a group subscribes
        self.post_time = post_time

    def register(self, app: TelegramApp) -> None:
        commands: dict[str, Callable[[Update, Context], Coroutine[Any, Any, None]]] = {
            "tripeaks": self.cmd_new,
            "daily": self.cmd_daily,
            "resume": self.cmd_resume,
            "play": self.cmd_play,
            "rules": self.cmd_rules,
            "stats": self.cmd_stats,
            "settings": self.cmd_settings,
            "help": self.cmd_help,
            "start": self.cmd_help,  # what a private chat sends first (not in the menu)
            "leaderboard": self.cmd_leaderboard,
            "subscribe": self.cmd_subscribe,
            "unsubscribe": self.cmd_unsubscribe,
        }
        for name, callback in commands.items():
            app.add_handler(CommandHandler(name, callback))
        app.add_handler(CallbackQueryHandler(self.on_callback))
        app.add_error_handler(self.on_error)

    # --- who and which language ---------------------------------------------------------------------------

    @staticmethod
    def player(user: User) -> PlayerKey:
        return PlayerKey(PLATFORM, str(user.id))

    @staticmethod
    def name(user: User) -> str:
        return user.full_name[:100]

    def locale(self, user: User, settings: Settings | None) -> str:
        """The player's own language setting first, then Telegram's ``language_code``, then the default."""
        override = settings.language if settings is not None else None
        platform = user.language_code
        if not platform or platform.replace("_", "-").split("-")[0].lower() not in SUPPORTED_LOCALES:
            platform = self.default_locale  # a language we do not speak: the configured default
        return resolve_locale(override, platform)

    async def user_locale(self, user: User) -> str:
        return self.locale(user, await self.service.get_settings(self.player(user)))

    def game_view(self, snapshot: GameSnapshot, user: User) -> View:
        """The game as its owner sees it (``user`` is the owner: the service lets nobody else act)."""
        return render_game(snapshot, self.locale(user, snapshot.settings), snapshot.settings)

    # --- sending ----------------------------------------------------------------------------------------------

    @staticmethod
    async def reply(message: Message, view: View) -> Message:
        """A new message answering ``message`` (quoting it in groups, as long as it still exists)."""
        text, markup = message_text(view), keyboard(view)
        return await flood_wait(lambda: message.reply_text(text, parse_mode=ParseMode.HTML, reply_markup=markup,
                                                           allow_sending_without_reply=True))

    async def reply_error(self, message: Message, user: User, error: Exception) -> None:
        locale = await self.user_locale(user)
        await message.reply_text(error_text(error, locale, NEW_COMMAND), allow_sending_without_reply=True)

    async def _command(self, update: Update, work: Callable[[Message, User], Awaitable[None]]) -> None:
        message, user = update.effective_message, update.effective_user
        if message is None or user is None:
            return
        try:
            await work(message, user)
        except (BotError, TriPeaksError) as error:
            await self.reply_error(message, user, error)

    # --- commands ---------------------------------------------------------------------------------------------

    async def cmd_new(self, update: Update, context: Context) -> None:
        """``/tripeaks``: a new game under the player's default rules; ``/tripeaks classic``/``easy``: under those
        rules; ``/tripeaks CODE``: that deal."""
        args = context.args or []

        async def work(message: Message, user: User) -> None:
            code = rules = None
            if args:
                try:
                    rules = Rules.parse(args[0])
                except InvalidCodeError:
                    code = " ".join(args)
            snapshot = await self.service.new_game(self.player(user), self.name(user), code=code, rules=rules,
                                                   chat_id=str(message.chat_id))
            await self.reply(message, self.game_view(snapshot, user))

        await self._command(update, work)

    async def cmd_daily(self, update: Update, context: Context) -> None:
        """``/daily``: today's deal, the same for everyone."""

        async def work(message: Message, user: User) -> None:
            snapshot = await self.start_daily(user, None, str(message.chat_id))
            await self.reply(message, self.game_view(snapshot, user))

        await self._command(update, work)

    async def start_daily(self, user: User, day: dt.date | None, chat_id: str) -> GameSnapshot:
        """A game of the daily deal of ``day`` (today when None)."""
        # counted on the group's daily leaderboard; a game in a private chat is on none
        board = chat_id if chat_id.startswith("-") else None
        return await self.service.new_daily_game(self.player(user), self.name(user), day, chat_id=chat_id,
                                                 board=board)

    async def cmd_leaderboard(self, update: Update, context: Context) -> None:
        """``/leaderboard``: today's daily leaderboard of this group."""

        async def work(message: Message, user: User) -> None:
            locale = await self.user_locale(user)
            if message.chat.type == ChatType.PRIVATE:
                await message.reply_text(daily_notice(DailyNotice.NEEDS_GROUP, locale),
                                         allow_sending_without_reply=True)
                return
            day = self.service.today()
            results = await self.service.daily_leaderboard(PLATFORM, str(message.chat_id), day)
            await self.reply(message, render_leaderboard(day, results, locale))

        await self._command(update, work)

    async def cmd_subscribe(self, update: Update, context: Context) -> None:
        """``/subscribe``: a group administrator has the daily deal posted to the group every day."""
        await self._subscription(update, context, on=True)

    async def cmd_unsubscribe(self, update: Update, context: Context) -> None:
        """``/unsubscribe``: a group administrator stops the daily posts."""
        await self._subscription(update, context, on=False)

    async def _subscription(self, update: Update, context: Context, *, on: bool) -> None:
        async def work(message: Message, user: User) -> None:
            locale = await self.user_locale(user)
            if message.chat.type == ChatType.PRIVATE:
                text = daily_notice(DailyNotice.NEEDS_GROUP, locale)
            elif (await context.bot.get_chat_member(message.chat_id, user.id)).status not in (
                    ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR):
                text = daily_notice(DailyNotice.NEEDS_ADMIN, locale)
            elif on:
                # the posts speak the language of the administrator who subscribed the group
                new = await self.service.subscribe(PLATFORM, str(message.chat_id), board=str(message.chat_id),
                                                   locale=locale, by=str(user.id))
                text = daily_notice(DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED, locale,
                                    self.post_time)
            else:
                removed = await self.service.unsubscribe(PLATFORM, str(message.chat_id))
                text = daily_notice(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED, locale)
            await message.reply_text(text, allow_sending_without_reply=True)

        await self._command(update, work)

    async def cmd_resume(self, update: Update, context: Context) -> None:
        """``/resume``: the player's game in progress, as a new message."""

        async def work(message: Message, user: User) -> None:
            snapshot = await self.service.current_game(self.player(user))
            if snapshot is None:
                raise NoActiveGame()
            await self.reply(message, self.game_view(snapshot, user))

        await self._command(update, work)

    async def cmd_play(self, update: Update, context: Context) -> None:
        """``/play 7h``: tap the free card of that name in the current game."""
        args = context.args or []

        async def work(message: Message, user: User) -> None:
            player = self.player(user)
            try:
                result = await self.service.play_card(player, self.name(user), "".join(args))
            except NotACard:  # not a card: show the game, whose buttons name the cards free to play
                current = await self.service.current_game(player)
                if current is not None:
                    await self.reply(message, self.game_view(current, user))
                return
            except CardNotInPlay:
                # not on the table face up (face down, in the stock or on the waste): a tap could only be refused
                text = refusal_text(Reason.BLOCKED, await self.user_locale(user))
                await message.reply_text(text, allow_sending_without_reply=True)
                return
            await self.reply(message, self.game_view(result, user))

        await self._command(update, work)

    async def cmd_rules(self, update: Update, context: Context) -> None:
        async def work(message: Message, user: User) -> None:
            await self.reply(message, render_rules(await self.user_locale(user)))

        await self._command(update, work)

    async def cmd_stats(self, update: Update, context: Context) -> None:
        async def work(message: Message, user: User) -> None:
            player = self.player(user)
            stats = await self.service.stats(player)
            await self.reply(message, render_stats(stats, self.locale(user, await self.service.get_settings(player))))

        await self._command(update, work)

    async def cmd_settings(self, update: Update, context: Context) -> None:
        async def work(message: Message, user: User) -> None:
            settings = await self.service.get_settings(self.player(user))
            await self.reply(message, render_settings(settings, self.locale(user, settings)))

        await self._command(update, work)

    async def cmd_help(self, update: Update, context: Context) -> None:
        """``/help`` (and ``/start``): the rules, then the commands with their localised descriptions."""

        async def work(message: Message, user: User) -> None:
            locale = await self.user_locale(user)
            rules = render_rules(locale)
            commands = "\n".join(f"/{name} - {description}" for name, description in menu_commands(locale))
            await self.reply(message, dataclasses.replace(rules, status=f"{rules.status}\n\n{commands}"))

        await self._command(update, work)

    # --- taps -------------------------------------------------------------------------------------------------

    async def on_callback(self, update: Update, context: Context) -> None:
        """A tap: work out the reply, answer the query at once, then edit the message in place."""
        query = update.callback_query
        if query is None:
            return
        user = query.from_user
        try:
            reply = await self.tap(query, user)
        except Exception:
            # whatever failed, the tap is answered, so the player's client stops spinning
            await self.answer(query, error_text(RuntimeError(), await self.safe_locale(user), NEW_COMMAND))
            raise
        await self.answer(query, reply.notice)
        if reply.view is not None:
            await self.edit(query, reply.view)

    async def tap(self, query: CallbackQuery, user: User) -> _Reply:
        data = query.data or ""
        try:
            command = decode(data)
            if isinstance(command, Move | AskHint | NewGame):
                return await self.tap_game(user, command)
            if isinstance(command, PlayDaily):
                return await self.tap_daily(query, user, command)
            return await self.tap_settings(query, user, command)
        except StaleGame as error:
            # an old message or a double tap: nothing changed; show the game as it stands
            view = self.game_view(error.current, user)
            return _Reply(error_text(error, self.locale(user, error.current.settings), NEW_COMMAND), view)
        except BotError as error:
            return _Reply(error_text(error, await self.user_locale(user), NEW_COMMAND))

    async def tap_game(self, user: User, command: GameCommand) -> _Reply:
        snapshot = await self.service.act(self.player(user), self.name(user), command)
        view = self.game_view(snapshot, user)
        return _Reply(view.notice, view)

    async def tap_daily(self, query: CallbackQuery, user: User, payload: PlayDaily) -> _Reply:
        """The Play button under a daily post: everyone who taps it gets their own game, in a new message."""
        message = query.message
        if not isinstance(message, Message):
            raise BadPayload("the daily post is no longer accessible")
        snapshot = await self.start_daily(user, payload.day, str(message.chat_id))
        await self.reply(message, self.game_view(snapshot, user))
        return _Reply(None)

    async def tap_settings(self, query: CallbackQuery, user: User, choice: SettingChange) -> _Reply:
        """A settings button: only the player the settings message answered can use it."""
        owner = _addressee(query)
        if owner is not None and owner.id != user.id:
            raise NotYourGame(owner.full_name)
        settings = await self.service.change_setting(self.player(user), self.name(user), choice)
        return _Reply(None, render_settings(settings, self.locale(user, settings)))

    async def answer(self, query: CallbackQuery, text: str | None) -> None:
        try:
            await query.answer(toast(text))
        except BadRequest as error:  # too old, or answered already: the player's client has given up on it
            log.info("could not answer callback query %s: %s", query.id, error.message)

    async def edit(self, query: CallbackQuery, view: View) -> None:
        """Edit the tapped message to ``view``; an edit that changes nothing is no error."""
        text, markup = message_text(view), keyboard(view)
        try:
            await flood_wait(lambda: query.edit_message_text(text, parse_mode=ParseMode.HTML, reply_markup=markup))
        except BadRequest as error:
            if is_not_modified(error):
                return
            message = query.message
            if not isinstance(message, Message):
                raise
            # the message is gone or can no longer be edited: show the result in a new one
            log.info("could not edit message %s (%s); sending a new one", message.message_id, error.message)
            await flood_wait(lambda: message.chat.send_message(text, parse_mode=ParseMode.HTML, reply_markup=markup))

    async def safe_locale(self, user: User) -> str:
        try:
            return await self.user_locale(user)
        except Exception:
            return self.locale(user, None)

    async def on_error(self, update: object, context: Context) -> None:
        """Log what a handler did not expect; a command gets a short apology in the player's language."""
        # ids only: an Update holds names and message text, which stay out of the logs
        update_id = update.update_id if isinstance(update, Update) else None
        chat = update.effective_chat if isinstance(update, Update) else None
        log.error("error handling update %s in chat %s", update_id, chat.id if chat is not None else None,
                  exc_info=context.error)
        if isinstance(update, Update) and update.callback_query is None and update.effective_message is not None:
            user = update.effective_user
            locale = await self.safe_locale(user) if user is not None else self.default_locale
            try:
                await update.effective_message.reply_text(error_text(RuntimeError(), locale, NEW_COMMAND))
            except TelegramError:
                log.warning("could not report the error to chat %s", update.effective_message.chat_id)


def _addressee(query: CallbackQuery) -> User | None:
    """In a group, the user whose command the tapped message answered; None in a private chat."""
    message = query.message
    if not isinstance(message, Message) or message.chat.type == ChatType.PRIVATE:
        return None
    replied = message.reply_to_message
    return replied.from_user if replied is not None else None

