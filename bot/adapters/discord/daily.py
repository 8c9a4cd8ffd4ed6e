"""The daily deal's shared side on Discord: the server's leaderboard, and subscribing a channel to the daily
posts (``/tripeaks daily`` and Play under a post start games: :mod:`bot.adapters.discord.games`)."""

from __future__ import annotations

from bot.adapters.discord.base import (
    PLATFORM,
    BotContext,
    Interaction,
    guarded,
    in_time,
    own_locale,
    show_error,
    show_new,
)
from bot.i18n import match_locale
from bot.render.replies import DailyNotice, daily_notice, render_leaderboard
from bot.render.view import View


@guarded
async def leaderboard(ctx: BotContext, interaction: Interaction) -> None:
    """``/tripeaks leaderboard``: today's daily leaderboard of this server, for the channel to see."""
    locale = await own_locale(ctx, interaction)
    if interaction.guild_id is None:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_SERVER, locale))
        return
    service = ctx.service
    day = service.today()
    results = await in_time(ctx, interaction, service.daily_leaderboard(PLATFORM, str(interaction.guild_id), day))
    await show_new(interaction, render_leaderboard(day, results, locale))


def channel_locale(interaction: Interaction, subscriber_locale: str) -> str:
    """The language of the daily posts to a channel: the server's (its community language), when the bot speaks
    it, else the subscriber's."""
    guild_locale = interaction.guild_locale
    return match_locale(str(guild_locale) if guild_locale is not None else None) or subscriber_locale


@guarded
async def subscribe(ctx: BotContext, interaction: Interaction, on: bool = True) -> None:
    """``/tripeaks subscribe`` / ``unsubscribe``: the daily deal posted to this channel at the daily post time, or
    no longer. Needs Manage Server (the command's default permission, checked here again: a server can change
    who sees a command), and the app installed to the server, not only to the player's account (a user app can
    answer a command anywhere but post nothing of its own)."""
    locale = await own_locale(ctx, interaction)
    if interaction.guild_id is None or interaction.channel_id is None:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_SERVER, locale))
        return
    if interaction.is_user_integration() and not interaction.is_guild_integration():
        # installed to the player's account only: the bot is no member of the server, cannot post to the channel
        # and sees no server permission to check
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_SERVER_INSTALL, locale))
        return
    if not interaction.permissions.manage_guild:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_MANAGE_SERVER, locale))
        return
    service = ctx.service
    channel = str(interaction.channel_id)
    post_time = ctx.config.daily_post_time
    if on:
        posts_locale = channel_locale(interaction, locale)
        new = await in_time(ctx, interaction, service.subscribe(
            PLATFORM, channel, community=str(interaction.guild_id), locale=posts_locale, by=str(interaction.user.id)))
        notice = DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED
        text = daily_notice(notice, posts_locale, post_time)
    else:
        removed = await in_time(ctx, interaction, service.unsubscribe(PLATFORM, channel))
        text = daily_notice(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED, locale)
    await show_new(interaction, View(header=text))
