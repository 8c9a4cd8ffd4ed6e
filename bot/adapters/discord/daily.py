"""The daily deal on Discord: ``/tripeaks daily`` and Play under a daily post, the server's leaderboard, and
subscribing a channel to the daily posts."""

from __future__ import annotations

import datetime as dt

from bot.adapters.discord.base import (
    PLATFORM,
    Interaction,
    bot_of,
    guarded,
    in_time,
    own_locale,
    show_error,
    show_new,
)
from bot.adapters.discord.games import launch
from bot.app.commands import DailyDeal
from bot.i18n import match_locale
from bot.render.replies import DailyNotice, daily_notice, render_leaderboard
from bot.render.view import View


@guarded
async def start_daily(interaction: Interaction, day: dt.date | None = None) -> None:
    """``/tripeaks daily`` or Play under a daily post: that day's deal as a new game message (the question first
    when a game with moves would be abandoned). The attempt counts on the server's leaderboard; while it is open,
    starting it again shows it again."""
    await launch(interaction, DailyDeal(day))


@guarded
async def leaderboard(interaction: Interaction) -> None:
    """``/tripeaks leaderboard``: today's daily leaderboard of this server, for the channel to see."""
    locale = await own_locale(interaction)
    if interaction.guild_id is None:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_SERVER, locale))
        return
    service = bot_of(interaction).service
    day = service.today()
    results = await in_time(interaction, service.daily_leaderboard(PLATFORM, str(interaction.guild_id), day))
    await show_new(interaction, render_leaderboard(day, results, locale))


def channel_locale(interaction: Interaction, subscriber_locale: str) -> str:
    """The language of the daily posts to a channel: the server's (its community language), when the bot speaks
    it, else the subscriber's."""
    guild_locale = interaction.guild_locale
    return match_locale(str(guild_locale) if guild_locale is not None else None) or subscriber_locale


@guarded
async def subscribe(interaction: Interaction, on: bool = True) -> None:
    """``/tripeaks subscribe`` / ``unsubscribe``: the daily deal posted to this channel at the daily post time, or
    no longer. Needs Manage Server (the command's default permission, checked here again: a server can change
    who sees a command)."""
    locale = await own_locale(interaction)
    if interaction.guild_id is None or interaction.channel_id is None:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_SERVER, locale))
        return
    if not interaction.permissions.manage_guild:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_MANAGE_SERVER, locale))
        return
    bot = bot_of(interaction)
    service = bot.service
    channel = str(interaction.channel_id)
    post_time = bot.config.daily_post_time
    if on:
        posts_locale = channel_locale(interaction, locale)
        new = await in_time(interaction, service.subscribe(
            PLATFORM, channel, community=str(interaction.guild_id), locale=posts_locale, by=str(interaction.user.id)))
        notice = DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED
        text = daily_notice(notice, posts_locale, post_time)
    else:
        removed = await in_time(interaction, service.unsubscribe(PLATFORM, channel))
        text = daily_notice(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED, locale)
    await show_new(interaction, View(header=text))
