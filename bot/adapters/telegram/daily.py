"""The daily deal's shared side on Telegram: ``/leaderboard``, ``/subscribe`` and ``/unsubscribe`` (``/daily`` and
the Play button under a daily post start games: :mod:`bot.adapters.telegram.games`).

In a group a daily attempt counts on the group's leaderboard, and every board names its player, so the boards of
everyone who tapped Play under one post can be told apart.
"""

from __future__ import annotations

from telegram import Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType

from bot.adapters.telegram.base import PLATFORM, Context, TelegramContext
from bot.render.replies import DailyNotice, daily_notice, render_leaderboard


async def cmd_leaderboard(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/leaderboard``: today's daily leaderboard of this group."""

    async def work(message: Message, user: User) -> None:
        locale = await tg.user_locale(user)
        if message.chat.type == ChatType.PRIVATE:
            await tg.reply_text(message, daily_notice(DailyNotice.NEEDS_GROUP, locale))
            return
        day = tg.service.today()
        results = await tg.service.daily_leaderboard(PLATFORM, str(message.chat_id), day)
        await tg.reply(message, render_leaderboard(day, results, locale))

    await tg.command(update, work)


async def cmd_subscribe(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/subscribe``: a group administrator has the daily deal posted to the group every day."""
    await _subscription(tg, update, context, on=True)


async def cmd_unsubscribe(tg: TelegramContext, update: Update, context: Context) -> None:
    """``/unsubscribe``: a group administrator stops the daily posts."""
    await _subscription(tg, update, context, on=False)


async def _subscription(tg: TelegramContext, update: Update, context: Context, *, on: bool) -> None:
    async def work(message: Message, user: User) -> None:
        locale = await tg.user_locale(user)
        if message.chat.type == ChatType.PRIVATE:
            text = daily_notice(DailyNotice.NEEDS_GROUP, locale)
        elif (await context.bot.get_chat_member(message.chat_id, user.id)).status not in (
                ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR):
            text = daily_notice(DailyNotice.NEEDS_GROUP_ADMIN, locale)
        elif on:
            # the posts speak the language of the administrator who subscribed the group
            new = await tg.service.subscribe(PLATFORM, str(message.chat_id), community=str(message.chat_id),
                                             locale=locale, by=str(user.id))
            text = daily_notice(DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED, locale,
                                tg.post_time)
        else:
            removed = await tg.service.unsubscribe(PLATFORM, str(message.chat_id))
            text = daily_notice(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED, locale)
        await tg.reply_text(message, text)

    await tg.command(update, work)
