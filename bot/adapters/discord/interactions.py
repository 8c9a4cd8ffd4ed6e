"""Every Discord interaction read into a typed command (:mod:`bot.app.commands`) and handed to the one door
(:meth:`bot.app.flow.Flow.handle`), within Discord's deadline (:func:`~bot.adapters.discord.base.in_time`); the
effects are carried out by the :class:`~bot.adapters.discord.executor.DiscordExecutor`, whose report the flow
records. How each interaction is answered:

- a tap on a board edits that board in place (response type 7), refusals included: the renderer puts the
  explanation in the status line, so the channel gets no extra message;
- a game that starts is a new public message (type 4), and the board of the game it replaced is closed;
- the player's own things (rules, statistics, settings), a question, someone else's tap, a tap on an old game's
  board and every error are ephemeral replies that change nothing else; the leaderboard and a subscription are
  for the channel to see.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import discord
from discord import app_commands

from bot.adapters.discord.base import (
    PLATFORM,
    BotContext,
    Interaction,
    actor_of,
    bot_in_chat,
    guarded,
    in_time,
    read_by_others,
)
from bot.adapters.discord.executor import DiscordExecutor
from bot.adapters.discord.views import MENU_PREFIX
from bot.app.abilities import discord as discord_abilities
from bot.app.codec import PREFIX, BadPayload, decode
from bot.app.commands import ButtonCommand, Command, CompleteCard, Move, Surface, Unreadable
from bot.app.effects import Answer, CardChoices
from bot.i18n import match_locale
from bot.render.tableau import card_label


def surface_of(interaction: Interaction) -> Surface:
    """What the flow needs to know of Discord for this interaction: the player's client language, the server's
    (the daily posts speak it), whether they may change the channel's daily posts (Manage Server; a command's
    default permission is checked again here, as a server can change who sees a command), and whether the app is
    installed to the server rather than only to the player's account (a user app can answer a command anywhere
    but post nothing of its own)."""
    guild_locale = interaction.guild_locale
    clicked = interaction.message if interaction.type is discord.InteractionType.component else None
    return Surface(platform=PLATFORM, abilities=discord_abilities(read_by_others(interaction)),
                   admin=bool(interaction.permissions.manage_guild), installed=bot_in_chat(interaction),
                   platform_locale=str(interaction.locale),
                   chat_locale=match_locale(str(guild_locale) if guild_locale is not None else None),
                   buttons=shown_commands(clicked) if clicked is not None else None)


def shown_commands(message: discord.Message) -> tuple[ButtonCommand, ...]:
    """The commands the message's buttons and menu options carry now: a click must be about what the message
    shows (a client can send any ``custom_id`` against any message), else it edits nothing."""
    view = discord.ui.LayoutView.from_message(message, timeout=None) if message.flags.components_v2 \
        else discord.ui.View.from_message(message, timeout=None)
    payloads: list[str] = []
    for item in view.walk_children():
        if isinstance(item, discord.ui.Button) and item.custom_id is not None:
            payloads.append(item.custom_id)
        elif isinstance(item, discord.ui.Select):
            payloads.extend(option.value for option in item.options)
    commands = []
    for payload in payloads:
        try:
            commands.append(decode(payload))
        except BadPayload:
            continue
    return tuple(commands)


@guarded
async def serve(ctx: BotContext, interaction: Interaction, command: Command, *, ephemeral: bool = False) -> None:
    """``command`` from the interaction's user: through the one door, and the effects carried out. ``ephemeral``:
    should the answer be late, the "thinking" Discord shows meanwhile is private (the answer will be)."""
    effects = await in_time(ctx, interaction, ctx.flow.handle(actor_of(interaction), command,
                                                              surface_of(interaction)), ephemeral=ephemeral)
    await ctx.flow.record(await DiscordExecutor(ctx, interaction).run(effects))


def payload_of(interaction: Interaction) -> str | None:
    """What a click on one of the bot's components asks for, as a payload: a button's ``custom_id``, or the value
    of the option chosen in a menu (``""`` when there is not exactly one); None for any other interaction."""
    if interaction.type is not discord.InteractionType.component:
        return None
    data: dict[str, Any] = dict(interaction.data or {})
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str):
        return None
    if custom_id.startswith(MENU_PREFIX):
        values = data.get("values") or []
        return values[0] if len(values) == 1 and isinstance(values[0], str) else ""
    return custom_id if custom_id.startswith(f"{PREFIX}:") else None


async def on_component(ctx: BotContext, interaction: Interaction) -> None:
    """Any click on the bot's buttons (or a choice in its menus), read from its payload alone.

    Not through discord.py's component dispatch: that drops a click whose ``custom_id`` is not on the message the
    interaction carries, and Discord sends the message as it is now. A tap made before the player's client showed
    the previous tap's board carries the older version; it reaches the service, which applies it when it is still
    legal (a card) or says why not (a Draw from the older board)."""
    payload = payload_of(interaction)
    if payload is None:
        return
    try:
        command: Command = decode(payload)
    except BadPayload as error:
        command = Unreadable(str(error))
    if isinstance(command, Move) and interaction.message is not None:  # which board: a double tap is on one
        command = dataclasses.replace(command, board=str(interaction.message.id))
    await serve(ctx, interaction, command)


async def free_cards(ctx: BotContext, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for ``play``: the cards free to play now that start like what was typed (``k``, ``10``,
    ``7♠``), or all of them when none does."""
    effects = await ctx.flow.handle(actor_of(interaction), CompleteCard(typed), surface_of(interaction))
    cards = [card for effect in effects if isinstance(effect, Answer) and isinstance(effect.content, CardChoices)
             for card in effect.content.cards]
    return [app_commands.Choice(name=card_label(card), value=str(card)) for card in cards]
