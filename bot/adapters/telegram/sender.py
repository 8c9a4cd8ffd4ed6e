"""Daily posts on Telegram: :class:`TelegramSender` sends the renderer's daily view to a group for
:class:`bot.app.daily_posts.DailyPoster`, as the same HTML message and inline keyboard as every other reply.

How Telegram's answers are read:

- 429 with ``retry_after`` (flood control) is :class:`~bot.app.daily_posts.RetryLater`: the poster waits it out.
- The network, a timeout, a 5xx (python-telegram-bot's ``NetworkError``, ``TimedOut``) are
  :class:`~bot.app.daily_posts.Transient`: tried again after a pause.
- 403 (the bot blocked, removed from the group) and the 400s that are about the chat (not found, no right to post,
  the bot not a member, the group moved to a supergroup) are :class:`~bot.app.daily_posts.Undeliverable`: the
  day's post there is given up.
- Any other 400 is about the message, not the chat: it is raised as it is, and the poster tries again in its next
  round rather than give the chat up.
"""

from __future__ import annotations

import datetime as dt
import warnings

from telegram import Bot
from telegram.constants import ParseMode
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.adapters.telegram.keyboard import keyboard, message_text
from bot.app.daily import DailyPost
from bot.app.daily_posts import RetryLater, Transient, Undeliverable
from bot.render.replies import render_daily

#: Parts of Telegram's 400 descriptions that say the chat itself cannot take the post.
CHAT_GONE = (
    "chat not found", "not enough rights", "have no rights", "chat_write_forbidden", "bot was kicked",
    "bot is not a member", "need administrator rights", "chat_restricted", "peer_id_invalid",
    "group chat was deactivated", "user is deactivated", "chat is deactivated", "topic_closed",
)


def chat_gone(error: BadRequest) -> bool:
    """Whether a 400 is about the chat (permanent for the day), not about the message."""
    text = error.message.lower()
    return any(part in text for part in CHAT_GONE)


class TelegramSender:
    platform = "telegram"

    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def send_daily(self, channel_id: str, post: DailyPost) -> str | None:
        view = render_daily(post.day, post.locale, post.recap)
        try:
            message = await self.bot.send_message(int(channel_id), message_text(view), parse_mode=ParseMode.HTML,
                                                  reply_markup=keyboard(view))
        except RetryAfter as error:
            with warnings.catch_warnings():  # PTB 22 warns that retry_after will become a timedelta
                warnings.simplefilter("ignore")
                pause = error.retry_after
            raise RetryLater(pause.total_seconds() if isinstance(pause, dt.timedelta) else float(pause)) from error
        except ChatMigrated as error:  # the group became a supergroup with another id
            raise Undeliverable(f"the group moved to {error.new_chat_id}") from error
        except Forbidden as error:  # blocked, or removed from the group
            raise Undeliverable(error.message) from error
        except BadRequest as error:
            if chat_gone(error):
                raise Undeliverable(error.message) from error
            raise
        except (TimedOut, NetworkError) as error:  # TimedOut is a NetworkError; 5xx answers are too
            raise Transient(error.message) from error
        return str(message.message_id)
