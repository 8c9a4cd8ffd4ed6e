"""Replies about the game rather than a game: ``/tripeaks rules``, ``stats`` and ``settings``, and the buttons of
the settings message. All of them only to the player who asked."""

from __future__ import annotations

from bot.adapters.discord.base import (
    BotContext,
    Interaction,
    guarded,
    in_time,
    locale_for,
    own_locale,
    player_of,
    show_new,
    show_update,
)
from bot.app.commands import SettingChange
from bot.render.replies import render_rules, render_settings, render_stats


@guarded
async def rules(ctx: BotContext, interaction: Interaction) -> None:
    """``/tripeaks rules`` (and Rules under the welcome): how to play, only to the player who asked."""
    await show_new(interaction, render_rules(await own_locale(ctx, interaction)), ephemeral=True)


@guarded
async def stats(ctx: BotContext, interaction: Interaction) -> None:
    """``/tripeaks stats``: the player's statistics, only to them."""
    player, _ = player_of(interaction)
    service = ctx.service
    settings = await service.get_settings(player)
    result = await in_time(ctx, interaction, service.stats(player), ephemeral=True)
    await show_new(interaction, render_stats(result, locale_for(interaction, settings)), ephemeral=True)


@guarded
async def settings(ctx: BotContext, interaction: Interaction) -> None:
    """``/tripeaks settings``: the settings message with its buttons, only to the player."""
    player, _ = player_of(interaction)
    current = await in_time(ctx, interaction, ctx.service.get_settings(player), ephemeral=True)
    await show_new(interaction, render_settings(current, locale_for(interaction, current)), ephemeral=True)


async def on_settings_button(ctx: BotContext, interaction: Interaction, change: SettingChange) -> None:
    """A choice on the settings message: stored, then the message is redrawn (in the new language, if that was
    the choice)."""
    player, name = player_of(interaction)
    updated = await in_time(ctx, interaction, ctx.service.change_setting(player, name, change))
    await show_update(interaction, render_settings(updated, locale_for(interaction, updated)))
