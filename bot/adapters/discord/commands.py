"""The ``/tripeaks`` slash command group: ``new [code] [rules] [winnable]``, ``daily``, ``resume``, ``play <card>``,
``rules``, ``stats``, ``settings`` and (with PUBLIC_URL) ``board`` (the Activity, where it is set up).

Each command is read into a typed command (:mod:`bot.app.commands`) and served through the application's one door
(:func:`bot.adapters.discord.interactions.serve`), with the bot's parts
(:class:`~bot.adapters.discord.base.BotContext`). Names, descriptions and choice names are
:class:`~discord.app_commands.locale_str` values that :mod:`bot.adapters.discord.translator` looks up in the bot's
catalogues when the tree is synced: descriptions are the renderer's texts
(:data:`bot.render.commands.COMMAND_DESCRIPTIONS`), command and option names are the msgids ``new``, ``code``... in
the message context ``command``.

``/tripeaks-owner stats | notice <text> | block <account> | unblock <account>`` is the deployment owner's
(OWNER_IDS; :class:`OwnerCommands`): a command of its own, so that Discord hides it from a server's members who are
not its administrators (default permissions hold for a whole top-level command); anyone else is refused by the flow.

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

from bot.adapters.discord.activity import activity_enabled, launch
from bot.adapters.discord.base import GROUP, BotContext
from bot.adapters.discord.interactions import free_cards, serve
from bot.app.commands import (
    Begin,
    DailyDeal,
    DealByCode,
    OpenBoard,
    OwnerBlock,
    OwnerNotice,
    OwnerStats,
    PlayCard,
    RandomDeal,
    Resume,
    ShowLeaderboard,
    ShowRules,
    ShowSettings,
    ShowStats,
    StartRequest,
    StartRound,
    Subscribe,
)
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
        if ctx.config.public_url is None:  # no board in the browser to open
            self.remove_command("board")

    @app_commands.command(name=name("new"), description=describe("new"))
    @app_commands.rename(code=name("code"), rules=name("rules"), winnable=name("winnable"))
    @app_commands.describe(**_described("code", "rules", "winnable"))
    @app_commands.choices(rules=_RULE_CHOICES)
    async def new(self, interaction: Interaction, code: str | None = None,
                  rules: app_commands.Choice[str] | None = None, winnable: bool | None = None) -> None:
        """A new game message in the channel (the question first when a game with moves would be abandoned)."""
        request: StartRequest
        if code and code.strip():
            request = DealByCode(code.strip())
        else:
            request = RandomDeal(Rules(rules.value) if rules else None, winnable)
        await serve(self.ctx, interaction, Begin(request))

    @app_commands.command(name=name("round"), description=describe("round"))
    @app_commands.rename(minutes=name("minutes"), rules=name("rules"), code=name("code"))
    @app_commands.describe(**_described("minutes", "rules", "code"))
    @app_commands.choices(rules=_RULE_CHOICES)
    async def round(self, interaction: Interaction, minutes: app_commands.Range[int, 1, 60] = 5,
                    rules: app_commands.Choice[str] | None = None, code: str | None = None) -> None:
        """A live round in the channel: its message, with Join (a server's channel, or a group DM where the app is
        installed to the player's account)."""
        await serve(self.ctx, interaction, StartRound(minutes, Rules(rules.value) if rules else None,
                                                      code.strip() if code and code.strip() else None))

    @app_commands.command(name=name("daily"), description=describe("daily"))
    async def daily(self, interaction: Interaction) -> None:
        """Today's deal as a new game message; while the attempt is open, starting it again shows it again."""
        await serve(self.ctx, interaction, Begin(DailyDeal()))

    @app_commands.command(name=name("leaderboard"), description=describe("leaderboard"))
    async def leaderboard(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, ShowLeaderboard())

    # Discord applies default permissions to a whole top-level command, not to one subcommand, so Manage Server is
    # checked by the handler.
    @app_commands.command(name=name("subscribe"), description=describe("subscribe"))
    async def subscribe(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, Subscribe(True))

    @app_commands.command(name=name("unsubscribe"), description=describe("unsubscribe"))
    async def unsubscribe(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, Subscribe(False))

    @app_commands.command(name=name("resume"), description=describe("resume"))
    async def resume(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, Resume())

    @app_commands.command(name=name("play"), description=describe("play"))
    @app_commands.rename(card=name("card"))
    @app_commands.describe(card=describe_option("card"))
    async def play(self, interaction: Interaction, card: app_commands.Range[str, 1, 8]) -> None:
        """For keyboard users: the same as tapping that card's button; a short private acknowledgement, and the live
        board edited in place."""
        await serve(self.ctx, interaction, PlayCard(card), ephemeral=True)

    @play.autocomplete("card")
    async def play_card(self, interaction: Interaction, current: str) -> list[app_commands.Choice[str]]:
        return await free_cards(self.ctx, interaction, current)

    @app_commands.command(name=name("rules"), description=describe("rules"))
    async def rules(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, ShowRules(), ephemeral=True)

    @app_commands.command(name=name("stats"), description=describe("stats"))
    async def stats(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, ShowStats(), ephemeral=True)

    @app_commands.command(name=name("settings"), description=describe("settings"))
    async def settings(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, ShowSettings(), ephemeral=True)

    @app_commands.command(name=name("board"), description=describe("board"))
    async def board(self, interaction: Interaction) -> None:
        """The table inside Discord where the Activity is set up; elsewhere the player's own link to the board in the
        browser, privately (PUBLIC_URL set)."""
        if activity_enabled(self.ctx.config):
            await launch(interaction)
            return
        await serve(self.ctx, interaction, OpenBoard(), ephemeral=True)


#: What ``/tripeaks-owner notice`` takes to clear the notice.
NOTICE_OFF = "off"


@app_commands.allowed_contexts(guilds=True, dms=True, private_channels=True)
@app_commands.allowed_installs(guilds=True, users=True)
@app_commands.default_permissions(administrator=True)
class OwnerCommands(app_commands.Group):
    """``/tripeaks-owner``: the deployment owner's commands, answered privately; refused to anyone else."""

    def __init__(self, ctx: BotContext) -> None:
        super().__init__(name=f"{GROUP}-owner", description=describe("owner"))
        self.ctx = ctx

    @app_commands.command(name="stats", description=describe("owner-stats"))
    async def stats(self, interaction: Interaction) -> None:
        await serve(self.ctx, interaction, OwnerStats(), ephemeral=True)

    @app_commands.command(name="notice", description=describe("owner-notice"))
    @app_commands.describe(text=describe_option("notice"))
    async def notice(self, interaction: Interaction, text: app_commands.Range[str, 1, 200]) -> None:
        off = text.strip().lower() == NOTICE_OFF
        await serve(self.ctx, interaction, OwnerNotice(None if off else text), ephemeral=True)

    @app_commands.command(name="block", description=describe("owner-block"))
    @app_commands.describe(account=describe_option("account"))
    async def block(self, interaction: Interaction, account: app_commands.Range[str, 1, 100]) -> None:
        await serve(self.ctx, interaction, OwnerBlock(account, True), ephemeral=True)

    @app_commands.command(name="unblock", description=describe("owner-unblock"))
    @app_commands.describe(account=describe_option("account"))
    async def unblock(self, interaction: Interaction, account: app_commands.Range[str, 1, 100]) -> None:
        await serve(self.ctx, interaction, OwnerBlock(account, False), ephemeral=True)
