"""The daily deal on Telegram: ``/daily``, the Play button under a daily post, ``/leaderboard``, ``/subscribe`` and
``/unsubscribe``.

The first ``/daily`` of a day starts the player's attempt; while it is open, ``/daily`` again (or Play) shows it
again as a new message, which becomes its live board. In a group the attempt counts on the group's leaderboard,
and every board names its player, so the boards of everyone who tapped Play under one post can be told apart.
"""

from __future__ import annotations

from telegram import Bot, Message, Update, User
from telegram.constants import ChatMemberStatus, ChatType

from bot.adapters.telegram.base import PLATFORM, Context, Reply
from bot.adapters.telegram.games import GameHandlers
from bot.app.commands import DailyDeal, PlayDaily
from bot.render.replies import DailyNotice, daily_notice, render_leaderboard


class DailyHandlers(GameHandlers):
    """The daily deal's commands and its Play button."""

    async def cmd_daily(self, update: Update, context: Context) -> None:
        """``/daily``: today's deal, the same for everyone (asked first when it would abandon a game)."""

        async def work(message: Message, user: User) -> None:
            await self.launch(context.bot, user, DailyDeal(), message)

        await self._command(update, work)

    async def tap_daily(self, bot: Bot, user: User, payload: PlayDaily, anchor: Message) -> Reply:
        """The Play button under a daily post: everyone who taps it gets their own game, in a new message."""
        await self.launch(bot, user, DailyDeal(payload.day), anchor)
        return Reply(None)

    async def cmd_leaderboard(self, update: Update, context: Context) -> None:
        """``/leaderboard``: today's daily leaderboard of this group."""

        async def work(message: Message, user: User) -> None:
            locale = await self.user_locale(user)
            if message.chat.type == ChatType.PRIVATE:
                await self.reply_text(message, daily_notice(DailyNotice.NEEDS_GROUP, locale))
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
                text = daily_notice(DailyNotice.NEEDS_GROUP_ADMIN, locale)
            elif on:
                # the posts speak the language of the administrator who subscribed the group
                new = await self.service.subscribe(PLATFORM, str(message.chat_id), community=str(message.chat_id),
                                                   locale=locale, by=str(user.id))
                text = daily_notice(DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED, locale,
                                    self.post_time)
            else:
                removed = await self.service.unsubscribe(PLATFORM, str(message.chat_id))
                text = daily_notice(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED, locale)
            await self.reply_text(message, text)

        await self._command(update, work)
