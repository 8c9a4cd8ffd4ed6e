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

from discord import app_commands

from bot.adapters.discord.base import (
    PLATFORM,
    BotContext,
    Interaction,
    actor_of,
    guarded,
    in_time,
)
from bot.adapters.discord.executor import DiscordExecutor
from bot.app.codec import BadPayload, decode
from bot.app.commands import Command, CompleteCard, Surface, Unreadable
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
    return Surface(platform=PLATFORM, admin=bool(interaction.permissions.manage_guild),
                   installed=not (interaction.is_user_integration() and not interaction.is_guild_integration()),
                   platform_locale=str(interaction.locale),
                   chat_locale=match_locale(str(guild_locale) if guild_locale is not None else None))


@guarded
async def serve(ctx: BotContext, interaction: Interaction, command: Command, *, ephemeral: bool = False) -> None:
    """``command`` from the interaction's user: through the one door, and the effects carried out. ``ephemeral``:
    should the answer be late, the "thinking" Discord shows meanwhile is private (the answer will be)."""
    effects = await in_time(ctx, interaction, ctx.flow.handle(actor_of(interaction), command,
                                                              surface_of(interaction)), ephemeral=ephemeral)
    await ctx.flow.record(await DiscordExecutor(ctx, interaction).run(effects))


async def on_button(ctx: BotContext, interaction: Interaction, custom_id: str) -> None:
    """A click on any of the bot's buttons (or a choice in its menus), by its payload."""
    try:
        command: Command = decode(custom_id)
    except BadPayload as error:
        command = Unreadable(str(error))
    await serve(ctx, interaction, command)


async def free_cards(ctx: BotContext, interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for ``play``: the cards free to play now that start like what was typed (``k``, ``10``,
    ``7♠``), or all of them when none does."""
    effects = await ctx.flow.handle(actor_of(interaction), CompleteCard(typed), surface_of(interaction))
    cards = [card for effect in effects if isinstance(effect, Answer) and isinstance(effect.content, CardChoices)
             for card in effect.content.cards]
    return [app_commands.Choice(name=card_label(card), value=str(card)) for card in cards]
