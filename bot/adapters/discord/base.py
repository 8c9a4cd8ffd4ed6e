"""What every Discord handler shares: the bot's parts (:class:`BotContext`), who acted and in which language,
answering within Discord's 3 seconds, and the three ways an interaction is answered (the tapped message edited, a
new message, a private line).

No game rules, no SQL and no texts of our own live here: every text comes from the renderer.

Discord drops an interaction not answered within 3 seconds. The service answers in milliseconds (a hint in about
a second at most), but should it ever take longer than ``defer_after`` seconds :func:`in_time` acknowledges first
(a deferred update, or "thinking" for a command) and the answer is edited in when it comes, so nothing is ever
lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

import aiohttp
import discord

from bot.adapters.discord.rounds import DiscordRounds
from bot.adapters.discord.views import files_of, layout
from bot.app.commands import Actor
from bot.app.effects import (
    BoardRef,
    ChallengeAnswered,
    ChatGone,
    Pause,
    PlayerKey,
    Posted,
    Refused,
    Sent,
    Settings,
    Transient,
)
from bot.app.flow import Flow
from bot.config import Config
from bot.i18n import resolve_locale
from bot.render.commands import command_names
from bot.render.replies import error_text
from bot.render.view import View

log = logging.getLogger(__name__)

PLATFORM = "discord"
#: The slash command group every command lives in (never translated).
GROUP = "tripeaks"
#: The pause asked for after a rate limit discord.py gave up waiting out (it waits the others out itself), seconds.
RATE_LIMITED_PAUSE = 5.0

T = TypeVar("T")
Interaction = discord.Interaction[Any]


@dataclass(frozen=True)
class BotContext:
    """What the handlers work with: the application's one door (the flow), the configuration, the client (to reach
    channels and messages other than the interaction's) and how long a handler may take before it acknowledges."""

    flow: Flow
    config: Config
    client: discord.Client
    defer_after: float
    #: the live rounds' messages this process brings up to date
    rounds: DiscordRounds


# --- who, in which language ---------------------------------------------------------------------------------------


def player_of(interaction: Interaction) -> tuple[PlayerKey, str]:
    """The player's key and the name other players see."""
    user = interaction.user
    return PlayerKey(PLATFORM, str(user.id)), user.display_name


def actor_of(interaction: Interaction) -> Actor:
    """Who acted and where: a daily deal started in a server counts on that server's leaderboard; a group DM (where
    the app is installed to its players' own accounts) is a community of its own, as a Telegram group is."""
    player, name = player_of(interaction)
    community: str | None = None
    if interaction.guild_id is not None:
        community = str(interaction.guild_id)
    elif interaction.context.private_channel:
        community = str(interaction.channel_id)
    return Actor(player, name, str(interaction.channel_id), community)


def read_by_others(interaction: Interaction) -> bool:
    """Whether the interaction's chat is read by others than its player: a server's channel or a group DM (where a
    board carries its player's name, and a ranked game in play goes to its player alone), not the bot's DM."""
    return interaction.guild_id is not None or interaction.context.private_channel


def bot_in_chat(interaction: Interaction) -> bool:
    """Whether the bot is a member of the interaction's chat: its own DM, or a server the app is installed to, not
    only to the player's account. Where it is not (a group DM, which no bot joins; a server without the bot) it may
    only answer the interaction (its response and followups, through the interaction's token, for 15 minutes), never
    post or edit a channel's message itself. (A click in a server without the bot by a player who did not install the
    app counts as in the chat: Discord names the installer, and discord.py tells only whether it is the clicker.)"""
    if interaction.context.private_channel:
        return False
    return not (interaction.is_user_integration() and not interaction.is_guild_integration())


def locale_for(interaction: Interaction, settings: Settings) -> str:
    """The player's chosen language, else their Discord client's, else English."""
    return resolve_locale(settings.language, str(interaction.locale))


def told_locale(content: ChallengeAnswered, platform_locale: str | None) -> str:
    """The challenger's language: their choice, else the Discord client's they were last seen with, else
    ``platform_locale`` (the finisher's), else English."""
    return resolve_locale(content.shared.settings.language, content.seen_locale or platform_locale)


def new_command(locale: str) -> str:
    """``/tripeaks new`` as the player's Discord client names it."""
    return f"/{GROUP} {command_names(locale)['new']}"


def explain(error: Exception, locale: str) -> str:
    """The renderer's text for an error, naming ``/tripeaks new`` (as the player's client shows it) as the way to
    start a game."""
    return error_text(error, locale, new_command(locale))


def here(interaction: Interaction, message_id: int) -> BoardRef:
    """A message in the channel of the interaction, as the service records boards."""
    return BoardRef(str(interaction.channel_id), str(message_id))


# --- answering within Discord's deadline --------------------------------------------------------------------------

_DEFERRED_EPHEMERAL = "tripeaks_deferred_ephemeral"


async def in_time(ctx: BotContext, interaction: Interaction, work: Coroutine[Any, Any, T], *,
                  ephemeral: bool = False) -> T:
    """Await ``work``; if it takes longer than ``ctx.defer_after``, acknowledge the interaction first (a deferred
    update for a button, "thinking" for a command, ephemeral when the answer will be) so Discord's 3-second
    deadline is met whatever the service does."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=ctx.defer_after)
    if not done and not interaction.response.is_done():
        if interaction.type is discord.InteractionType.component:
            await interaction.response.defer()
        else:
            await interaction.response.defer(thinking=True, ephemeral=ephemeral)
            interaction.extras[_DEFERRED_EPHEMERAL] = ephemeral
    return await task


def _deferred_thinking(interaction: Interaction) -> bool | None:
    """None unless the interaction was deferred with "thinking"; then whether that was ephemeral."""
    value = interaction.extras.get(_DEFERRED_EPHEMERAL)
    return value if isinstance(value, bool) else None


async def quiet(interaction: Interaction) -> None:
    """Acknowledge ``interaction`` with nothing to show (a button whose first tap already did it): a click is
    deferred as an update, which changes nothing; a "thinking" left by a slow answer is removed."""
    if not interaction.response.is_done():
        await interaction.response.defer()
    elif _deferred_thinking(interaction) is not None:
        await interaction.delete_original_response()


async def show_update(interaction: Interaction, view: View) -> None:
    """Edit the message the clicked button is on (its picture replaced, or taken away for a view without one)."""
    files = await files_of(view)
    if interaction.response.is_done():
        await interaction.edit_original_response(view=layout(view), attachments=files)
    else:
        await interaction.response.edit_message(view=layout(view), attachments=files)


async def show_new(interaction: Interaction, view: View, *, ephemeral: bool = False) -> int | None:
    """Answer with a new message holding ``view``; its id (None if Discord did not say)."""
    thinking = _deferred_thinking(interaction)
    files = await files_of(view)
    attached: dict[str, Any] = {"files": files} if files else {}
    if not interaction.response.is_done():
        sent = await interaction.response.send_message(view=layout(view), ephemeral=ephemeral, **attached)
        if sent.message_id is not None:
            return sent.message_id
        return (await interaction.original_response()).id
    if thinking is not None and thinking == ephemeral:
        return (await interaction.edit_original_response(view=layout(view), attachments=files)).id
    message = await interaction.followup.send(view=layout(view), ephemeral=ephemeral, wait=True, **attached)
    if thinking is not None:
        await interaction.delete_original_response()
    return message.id


async def show_error(interaction: Interaction, text: str) -> None:
    """An ephemeral line only the acting player sees; nothing else changes."""
    thinking = _deferred_thinking(interaction)
    if not interaction.response.is_done():
        await interaction.response.send_message(text, ephemeral=True)
    elif thinking is True:
        await interaction.edit_original_response(content=text)
    else:
        await interaction.followup.send(text, ephemeral=True)
        if thinking is False:
            await interaction.delete_original_response()


Handler = Callable[..., Awaitable[None]]


def guarded(handler: Handler) -> Handler:
    """Answer any error the handler did not expect with the renderer's "something went wrong", and log it."""

    async def run(ctx: BotContext, interaction: Interaction, *args: Any, **kwargs: Any) -> None:
        try:
            await handler(ctx, interaction, *args, **kwargs)
        except Exception as error:
            log.exception("the Discord handler %s failed", handler.__name__)
            try:
                locale = resolve_locale(None, str(interaction.locale))
                await show_error(interaction, explain(error, locale))
            except discord.DiscordException:
                log.exception("could not report the failure to the player")

    run.__name__ = handler.__name__
    run.__doc__ = handler.__doc__
    return run


async def post_once(client: discord.Client, chat_id: str, view: View) -> Posted:
    """A new message in the channel ``chat_id`` that no command asked for (the daily post), tried once, and what
    became of it: a channel gone or closed to the bot :class:`~bot.app.effects.ChatGone`; a rate limit discord.py
    gave up waiting out a :class:`~bot.app.effects.Pause`; a 5xx (discord.py already tried again) or the network
    :class:`~bot.app.effects.Transient`; any other refusal :class:`~bot.app.effects.Refused` (about the message)."""
    await client.wait_until_ready()
    try:
        channel: Any = client.get_channel(int(chat_id)) or await client.fetch_channel(int(chat_id))
        if not isinstance(channel, discord.abc.Messageable):
            return ChatGone(f"channel {chat_id} takes no messages")
        message = await channel.send(view=layout(view))
    except (discord.NotFound, discord.Forbidden) as error:
        return ChatGone(str(error))
    except discord.HTTPException as error:
        if error.status == 429:
            return Pause(RATE_LIMITED_PAUSE)
        return Transient(str(error)) if error.status >= 500 else Refused(str(error))
    except (TimeoutError, OSError, aiohttp.ClientError) as error:
        return Transient(str(error) or type(error).__name__)
    return Sent(str(message.id))


async def tell(client: discord.Client, chat_id: str, view: View, key: str | None = None) -> None:
    """A new message in the channel ``chat_id``, not the one acted in (a challenger's): best effort, a channel out of
    reach is logged. ``key``: its nonce, enforced (discord.py sends ``enforce_nonce`` with any nonce), so Discord
    posts a message sent again with the same key within a few minutes once; without one discord.py makes one up.
    Discord failing (a 5xx after discord.py's own tries) is raised where there is a key: the outbox tries again, and
    the key keeps it to one message."""
    channel = client.get_partial_messageable(int(chat_id))
    try:
        files = await files_of(view)
        if key is None:
            await channel.send(view=layout(view), files=files)
        else:
            await channel.send(view=layout(view), files=files, nonce=key)
    except (discord.HTTPException, ValueError) as error:
        if key is not None and isinstance(error, discord.HTTPException) and error.status >= 500:
            raise
        log.info("could not tell channel %s: %s", chat_id, error)
