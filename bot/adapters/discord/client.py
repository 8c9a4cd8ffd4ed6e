"""The Discord bot: a discord.py client over the application's one door.

:func:`build_bot` makes the client; ``setup_hook`` (run once per login, before any event) sets the command
translator and syncs the ``/tripeaks`` group (with the Activity's Entry Point command when the Activity is set up).
Clicks on the bot's buttons and menus reach ``on_interaction``, which reads each from its ``custom_id`` alone: on
messages sent before a restart too, and on a message redrawn since the player saw it; the Entry Point command is
answered there too, by launching the Activity.

Intents: only ``guilds`` (not privileged), for the channel cache. Commands and buttons arrive as interactions,
which need no intent at all, and the bot never reads message content.
"""

from __future__ import annotations

import logging
from typing import Any

import aiohttp
import discord
from discord.ext import commands

from bot.adapters.discord.activity import TriPeaksTree, is_entry_point, launch, sync_commands
from bot.adapters.discord.base import BotContext
from bot.adapters.discord.commands import OwnerCommands, TriPeaksCommands
from bot.adapters.discord.interactions import on_component
from bot.adapters.discord.rounds import DiscordRounds
from bot.adapters.discord.translator import CatalogueTranslator
from bot.app.flow import Flow
from bot.config import Config, TokenRejected, Unreachable

log = logging.getLogger(__name__)

# The bot plays no voice: discord.py's two warnings that its voice libraries are missing (PyNaCl, davey), at every
# start, would only worry whoever reads the log.
discord.VoiceClient.warn_nacl = False
discord.VoiceClient.warn_dave = False

#: Answer (or acknowledge) an interaction after at most this many seconds; Discord's deadline is 3.
DEFER_AFTER = 2.0


def intents() -> discord.Intents:
    """The gateway intents the bot asks for: none privileged."""
    wanted = discord.Intents.none()
    wanted.guilds = True
    return wanted


class _TriPeaks:
    """What both client classes add to discord.py's bot: the handlers' :class:`BotContext`, made once the client
    exists."""

    ctx: BotContext

    async def setup_hook(self: Any) -> None:
        await self.tree.set_translator(CatalogueTranslator())
        self.tree.add_command(TriPeaksCommands(self.ctx))
        self.tree.add_command(OwnerCommands(self.ctx))
        synced = await sync_commands(self.tree, self.ctx.config)
        log.info("synced %d application command(s)", synced)

    async def close(self: Any) -> None:
        await self.ctx.rounds.stop()
        await super().close()  # type: ignore[misc]  # discord.py's, after this mixin

    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Every interaction, after discord.py's own dispatch (which has nothing registered for the bot's buttons):
        the Activity's Entry Point command (:mod:`~bot.adapters.discord.activity`), or a click on one of the bot's
        buttons or menus (:func:`~bot.adapters.discord.interactions.on_component`)."""
        if is_entry_point(interaction):
            await launch(interaction)
            return
        await on_component(self.ctx, interaction)


def _context(client: discord.Client, flow: Flow, config: Config, defer_after: float) -> BotContext:
    return BotContext(flow, config, client, defer_after, DiscordRounds(flow, client))


def _options(config: Config) -> dict[str, Any]:
    return {
        "command_prefix": commands.when_mentioned,
        "help_command": None,
        "intents": intents(),
        "allowed_mentions": discord.AllowedMentions.none(),
        "tree_cls": TriPeaksTree,
    }


class TriPeaksBot(_TriPeaks, commands.Bot):
    """One gateway connection: the usual case."""

    def __init__(self, flow: Flow, config: Config, *, defer_after: float = DEFER_AFTER) -> None:
        super().__init__(**_options(config))
        self.ctx = _context(self, flow, config, defer_after)


class ShardedTriPeaksBot(_TriPeaks, commands.AutoShardedBot):
    """Several gateway connections (``DISCORD_SHARD_COUNT``, optionally ``DISCORD_SHARD_IDS``) in one process."""

    def __init__(self, flow: Flow, config: Config, *, defer_after: float = DEFER_AFTER) -> None:
        options = _options(config)
        if config.discord_shard_ids is not None:
            options["shard_ids"] = list(config.discord_shard_ids)
        super().__init__(shard_count=config.discord_shard_count, **options)
        self.ctx = _context(self, flow, config, defer_after)


AnyBot = TriPeaksBot | ShardedTriPeaksBot


async def log_in(bot: AnyBot, token: str) -> None:
    """Log in (then ``setup_hook``), before ``bot.connect()`` runs the gateway: Discord's refusal of the token is the
    one line an operator needs (:class:`TokenRejected`); a Discord that cannot be reached is
    :class:`Unreachable`, and ``log_in`` can be called again. (Once connected, discord.py reconnects by
    itself.)"""
    try:
        await bot.login(token)
    except discord.LoginFailure:
        raise TokenRejected("DISCORD_TOKEN was rejected by Discord") from None
    except (OSError, aiohttp.ClientError, TimeoutError, discord.DiscordServerError) as error:
        if bot.user is not None:  # logged in, and setup_hook failed: not a login to try again
            raise
        # the failed login's HTTP session (and its connector) is closed; the next login makes new ones
        await bot.http.close()
        bot.http.connector = discord.utils.MISSING
        raise Unreachable(f"Discord cannot be reached ({error or type(error).__name__})") from None


def build_bot(flow: Flow, config: Config, *, defer_after: float = DEFER_AFTER) -> AnyBot:
    """The bot for ``config`` over the application's one door, ``flow``: sharded when ``DISCORD_SHARD_COUNT`` is set.
    Start it with :func:`log_in`, then ``await bot.connect()``."""
    if config.discord_shard_count is not None:
        return ShardedTriPeaksBot(flow, config, defer_after=defer_after)
    return TriPeaksBot(flow, config, defer_after=defer_after)

