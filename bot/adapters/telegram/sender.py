"""Daily posts on Telegram: :class:`TelegramSender` sends the renderer's daily view to a group for
:class:`bot.app.daily_posts.DailyPoster`, as the same HTML message and inline keyboard as every other reply.

Telegram's flood control answers 429 with ``retry_after``: that becomes :class:`~bot.app.daily_posts.RetryLater`, which
the poster waits out before sending again. A group the bot was removed from, or that no longer exists, is
:class:`~bot.app.daily_posts.Undeliverable`."""

from __future__ import annotations

import datetime as dt
import warnings

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, RetryAfter

from bot.adapters.telegram.keyboard import keyboard, message_text
from bot.app.daily_posts import RetryLater, Undeliverable
from bot.render.view import View


class TelegramSender:
    platform = "telegram"

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send_daily(self, channel_id: str, view: View) -> str | None:
        try:
            message = await self.bot.send_message(int(channel_id), message_text(view), parse_mode=ParseMode.HTML,
                                                  reply_markup=keyboard(view))
        except RetryAfter as error:
            with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
                warnings.simplefilter("ignore")
                pause = error.retry_after
            raise RetryLater(pause.total_seconds() if isinstance(pause, dt.timedelta) else float(pause)) from error
        except (Forbidden, BadRequest) as error:  # removed from the group, or the chat is gone
            raise Undeliverable(error.message) from error
        return str(message.message_id)
