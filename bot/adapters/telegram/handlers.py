"""Telegram updates in, service calls out, rendered views back: the adapter's handlers, registered on one
Application.

The handlers live by responsibility: :mod:`~bot.adapters.telegram.base` (the player, the language, sending and
editing), :mod:`~bot.adapters.telegram.games` (starting games, ``/tripeaks``, ``/resume``, ``/play``),
:mod:`~bot.adapters.telegram.taps` (inline buttons), :mod:`~bot.adapters.telegram.daily` (``/daily``,
``/leaderboard``, ``/subscribe``) and :mod:`~bot.adapters.telegram.info` (``/start``, ``/help``, ``/rules``,
``/stats``, ``/settings``, ``/winnable``). No game rule, SQL or user-facing string lives in any of them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.error import TelegramError, TimedOut
from telegram.ext import CallbackQueryHandler, CommandHandler

from bot.adapters.telegram.base import NEW_COMMAND, PLATFORM, Context, TelegramApp
from bot.adapters.telegram.menu import COMMANDS, menu_commands
from bot.adapters.telegram.taps import TapHandlers
from bot.render.replies import error_text

__all__ = ["ALLOWED_UPDATES", "COMMANDS", "NEW_COMMAND", "PLATFORM", "TelegramApp", "TelegramHandlers",
           "menu_commands"]

log = logging.getLogger(__name__)

#: The updates the bot asks Telegram for.
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY]


class TelegramHandlers(TapHandlers):
    """Every handler of one Application, bound to the game service."""

    def register(self, app: TelegramApp) -> None:
        commands: dict[str, Callable[[Update, Context], Coroutine[Any, Any, None]]] = {
            "tripeaks": self.cmd_new,
            "daily": self.cmd_daily,
            "resume": self.cmd_resume,
            "play": self.cmd_play,
            "rules": self.cmd_rules,
            "stats": self.cmd_stats,
            "settings": self.cmd_settings,
            "winnable": self.cmd_winnable,
            "help": self.cmd_help,
            "start": self.cmd_start,
            "leaderboard": self.cmd_leaderboard,
            "subscribe": self.cmd_subscribe,
            "unsubscribe": self.cmd_unsubscribe,
        }
        assert {name for name, _ in COMMANDS} <= set(commands)
        for name, callback in commands.items():
            app.add_handler(CommandHandler(name, callback))
        app.add_handler(CallbackQueryHandler(self.on_callback))
        app.add_error_handler(self.on_error)

    async def on_error(self, update: object, context: Context) -> None:
        """Log what a handler did not expect; a command gets a short apology in the player's language."""
        # ids only: an Update holds names and message text, which stay out of the logs
        update_id = update.update_id if isinstance(update, Update) else None
        chat = update.effective_chat if isinstance(update, Update) else None
        if isinstance(context.error, TimedOut):  # a new message that may have arrived: neither resent nor apologised for
            log.warning("a request to Telegram timed out handling update %s in chat %s (it may have arrived; not sent "
                        "again)", update_id, chat.id if chat is not None else None)
            return
        log.error("error handling update %s in chat %s", update_id, chat.id if chat is not None else None,
                  exc_info=context.error)
        if isinstance(update, Update) and update.callback_query is None and update.effective_message is not None:
            user = update.effective_user
            locale = await self.safe_locale(user) if user is not None else self.default_locale
            try:
                await update.effective_message.reply_text(error_text(RuntimeError(), locale, NEW_COMMAND))
            except TelegramError:
                log.warning("could not report the error to chat %s", update.effective_message.chat_id)
