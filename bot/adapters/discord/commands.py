"""The ``/tripeaks`` slash command group: ``new [code] [rules] [winnable]``, ``daily``, ``resume``, ``play <card>``,
``rules``, ``stats`` and ``settings``.

Each command only hands the interaction to its handler (:mod:`bot.adapters.discord.games`, ``daily``, ``info``),
with the bot's parts (:class:`~bot.adapters.discord.base.BotContext`). Names, descriptions and choice names are
:class:`~discord.app_commands.locale_str` values that :mod:`bot.adapters.discord.translator` looks up in the bot's
catalogues when the tree is synced: descriptions are the renderer's texts
(:data:`bot.render.commands.COMMAND_DESCRIPTIONS`), command and option names are the msgids ``new``, ``code``... in
the message context ``command``.

The commands work in servers, in the bot's DMs and in group DMs, installed to a server or to a player's own account
(a user app: ``/tripeaks`` then works wherever the player is, also where the bot is no member; what such an install
cannot do, posting the daily deal to a channel, is refused with a line), and need no privileged intent: everything
arrives as an interaction.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str

from bot.adapters.discord import daily as daily_shared
from bot.adapters.discord import games, info
from bot.adapters.discord.base import GROUP, BotContext
from bot.render import commands as render
from core.deal import Rules

Interaction = discord.Interaction[Any]


def name(text: str) -> locale_str:
    """A command or option name, translated through the ``command`` context."""
    return locale_str(text, kind="name")


def describe(key: str) -> locale_str:
    """The renderer's description of a command (:data:`bot.render.commands.COMMAND_DESCRIPTIONS`), translated as it
    is."""
    return locale_str(render.COMMAND_DESCRIPTIONS[key], kind="text")


def describe_option(key: str) -> locale_str:
    """The renderer's description of an option (:data:`bot.render.commands.OPTION_DESCRIPTIONS`)."""
    return locale_str(render.OPTION_DESCRIPTIONS[key], kind="text")


def _described(*options: str) -> dict[str, locale_str]:
    """The descriptions of ``options`` the renderer has; an option it does not describe (yet) gets discord.py's
    placeholder rather than a text of the adapter's own."""
    return {option: describe_option(option) for option in options if option in render.OPTION_DESCRIPTIONS}


_RULE_CHOICES = [app_commands.Choice(name=locale_str(render.rules_name(rules, "en"), kind="rules",
                                                     rules=rules.value), value=rules.value) for rules in Rules]


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
@app_commands.allowed_installs(guilds=True, users=True)
class TriPeaksCommands(app_commands.Group):
    """``/tripeaks``: every command of the bot in one group, so it takes one line in the command picker."""

    def __init__(self, ctx: BotContext) -> None:
        super().__init__(name=name(GROUP), description=describe(GROUP))
        self.ctx = ctx

    @app_commands.command(name=name("new"), description=describe("new"))
    @app_commands.rename(code=name("code"), rules=name("rules"), winnable=name("winnable"))
    @app_commands.describe(**_described("code", "rules", "winnable"))
    @app_commands.choices(rules=_RULE_CHOICES)
    async def new(self, interaction: Interaction, code: str | None = None,
                  rules: app_commands.Choice[str] | None = None, winnable: bool | None = None) -> None:
        await games.new_game(self.ctx, interaction, code, rules.value if rules else None, winnable)

    @app_commands.command(name=name("daily"), description=describe("daily"))
    async def daily(self, interaction: Interaction) -> None:
        await games.start_daily(self.ctx, interaction)

    @app_commands.command(name=name("leaderboard"), description=describe("leaderboard"))
    async def leaderboard(self, interaction: Interaction) -> None:
        await daily_shared.leaderboard(self.ctx, interaction)

    # Discord applies default permissions to a whole top-level command, not to one subcommand, so Manage Server is
    # checked by the handler.
    @app_commands.command(name=name("subscribe"), description=describe("subscribe"))
    async def subscribe(self, interaction: Interaction) -> None:
        await daily_shared.subscribe(self.ctx, interaction, on=True)

    @app_commands.command(name=name("unsubscribe"), description=describe("unsubscribe"))
    async def unsubscribe(self, interaction: Interaction) -> None:
        await daily_shared.subscribe(self.ctx, interaction, on=False)

    @app_commands.command(name=name("resume"), description=describe("resume"))
    async def resume(self, interaction: Interaction) -> None:
        await games.resume(self.ctx, interaction)

    @app_commands.command(name=name("play"), description=describe("play"))
    @app_commands.rename(card=name("card"))
    @app_commands.describe(card=describe_option("card"))
    async def play(self, interaction: Interaction, card: app_commands.Range[str, 1, 8]) -> None:
        await games.play(self.ctx, interaction, card)

    @play.autocomplete("card")
    async def play_card(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await games.free_cards(self.ctx, interaction, current)

    @app_commands.command(name=name("rules"), description=describe("rules"))
    async def rules(self, interaction: Interaction) -> None:
        await info.rules(self.ctx, interaction)

    @app_commands.command(name=name("stats"), description=describe("stats"))
    async def stats(self, interaction: Interaction) -> None:
        await info.stats(self.ctx, interaction)

    @app_commands.command(name=name("settings"), description=describe("settings"))
    async def settings(self, interaction: Interaction) -> None:
        await info.settings(self.ctx, interaction)
