"""Telegram updates in, the game flow's effects out: the adapter's handlers, registered on one Application.

The handlers live by responsibility: :mod:`~bot.adapters.telegram.base` (the player, the language, sending and
editing), :mod:`~bot.adapters.telegram.commands` (every command, tap and word read into a typed command for the
flow), :mod:`~bot.adapters.telegram.executor` (the flow's effects carried out) and
:mod:`~bot.adapters.telegram.inline` (``@<bot>`` in any chat: invitations to play). No game rule, SQL or
user-facing string lives in any of them.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from telegram import Update
from telegram.error import TelegramError, TimedOut
from telegram.ext import CallbackQueryHandler, CommandHandler, InlineQueryHandler, MessageHandler, filters

from bot.adapters.telegram import commands, inline
from bot.adapters.telegram.base import NEW_COMMAND, Context, TelegramApp, TelegramContext
from bot.adapters.telegram.menu import COMMANDS
from bot.render.replies import error_text

log = logging.getLogger(__name__)

#: The owner's command (out of the command menu).
OWNER_COMMAND = "owner"

#: The updates the bot asks Telegram for.
ALLOWED_UPDATES = [Update.MESSAGE, Update.CALLBACK_QUERY, Update.INLINE_QUERY]

def bound(tg: TelegramContext, handler: Callable[[TelegramContext, Any, Context], Awaitable[None]],
          ) -> Callable[[Any, Context], Coroutine[Any, Any, None]]:
    """``handler`` as python-telegram-bot calls it, with the adapter's parts."""

    async def run(update: Any, context: Context) -> None:
        await handler(tg, update, context)

    run.__name__ = handler.__name__
    return run


def register(app: TelegramApp, tg: TelegramContext) -> None:
    """Every handler of the bot on ``app``. None blocks the Application's update processing (``block=False``: each
    runs as a task of its own): an update waiting for the solver (a hint, a review, an inline query's new deal)
    holds none of its slots for concurrent updates, so every other player's tap is handled at once whatever the
    solver is doing. How much solver work one player may ask for is the application's to bound
    (:mod:`bot.app.questions`)."""
    assert {name for name, _ in COMMANDS} <= set(commands.READERS)
    app.add_handler(CommandHandler(list(commands.READERS), bound(tg, commands.on_command), block=False))
    # the deployment owner's commands: in a private chat only (an answer in a group would be for all to read)
    app.add_handler(CommandHandler(OWNER_COMMAND, bound(tg, commands.on_owner), filters.ChatType.PRIVATE,
                                   block=False))
    app.add_handler(CallbackQueryHandler(bound(tg, commands.on_callback), block=False))
    app.add_handler(InlineQueryHandler(bound(tg, inline.on_inline_query), block=False))
    # in a private chat, words that are no command: a card's name plays it, anything else points to /help
    app.add_handler(MessageHandler(filters.TEXT & ~filters.COMMAND & filters.ChatType.PRIVATE,
                                   bound(tg, commands.on_text), block=False))
    app.add_error_handler(bound(tg, on_error))


async def on_error(tg: TelegramContext, update: object, context: Context) -> None:
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
        locale = tg.locale(user, None) if user is not None else tg.default_locale
        try:
            await update.effective_message.reply_text(error_text(RuntimeError(), locale, NEW_COMMAND))
        except TelegramError:
            log.warning("could not report the error to chat %s", update.effective_message.chat_id)
