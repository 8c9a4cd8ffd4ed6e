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
from bot.adapters.discord.executor import DiscordExecutor
from bot.app.commands import SettingChange
from bot.render.replies import render_rules, render_settings, render_stats


@guarded
async def rules(ctx: BotContext, interaction: Interaction, *, play: bool = False) -> None:
    """``/tripeaks rules`` (and Rules under the welcome, ``play``: with a Play button): how to play, only to the
    player who asked."""
    await show_new(interaction, render_rules(await own_locale(ctx, interaction), play=play), ephemeral=True)


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
    before = await ctx.service.get_settings(player)
    updated = await in_time(ctx, interaction, ctx.service.change_setting(player, name, change))
    await show_update(interaction, render_settings(updated, locale_for(interaction, updated)))
    if (updated.board, updated.four_colour) != (before.board, before.four_colour):
        await redraw_live_board(ctx, interaction)


async def redraw_live_board(ctx: BotContext, interaction: Interaction) -> None:
    """The player's game in progress redrawn in place as their settings now draw it: a Discord message can change
    from the picture to the code block and back in one edit (its attachment replaced or taken away)."""
    player, _ = player_of(interaction)
    snapshot = await ctx.service.current_game(player)
    if snapshot is None or snapshot.board is None or snapshot.game.is_over:
        return
    executor = DiscordExecutor(ctx, interaction)
    await executor.edit(snapshot.board, executor.board(snapshot, snapshot.board.chat_id))
