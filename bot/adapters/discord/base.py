"""What every Discord handler shares: who acted and in which language, answering within Discord's 3 seconds, the
three ways an interaction is answered (the tapped message edited, a new message, a private line), and the boards
of games (sent, recorded with the service, edited or closed wherever they are).

No game rules, no SQL and no texts of our own live here: every text comes from the renderer.

Discord drops an interaction not answered within 3 seconds. The service answers in milliseconds (a hint in about
a second at most), but should it ever take longer than ``bot.defer_after`` seconds :func:`in_time` acknowledges
first (a deferred update, or "thinking" for a command) and the answer is edited in when it comes, so nothing is
ever lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

import discord

from bot.adapters.discord.views import layout
from bot.app.model import BoardRef, GameSnapshot, PlayerKey, Settings
from bot.app.service import GameService
from bot.config import Config
from bot.i18n import resolve_locale
from bot.render.commands import command_names
from bot.render.game import render_game
from bot.render.replies import error_text
from bot.render.view import View

log = logging.getLogger(__name__)

PLATFORM = "discord"
#: The slash command group every command lives in (never translated).
GROUP = "tripeaks"

T = TypeVar("T")
Interaction = discord.Interaction[Any]


# --- who, in which language ---------------------------------------------------------------------------------------


class TriPeaksClient(Protocol):
    """What the handlers need of the bot (:mod:`bot.adapters.discord.client`)."""

    service: GameService
    config: Config
    defer_after: float

    def get_channel(self, id: int, /) -> Any: ...

    def get_partial_messageable(self, id: int, *, guild_id: int | None = None,
                                type: discord.ChannelType | None = None) -> discord.PartialMessageable: ...


def bot_of(interaction: Interaction) -> TriPeaksClient:
    return interaction.client  # type: ignore[no-any-return]


def player_of(interaction: Interaction) -> tuple[PlayerKey, str]:
    """The player's key and the name other players see."""
    user = interaction.user
    return PlayerKey(PLATFORM, str(user.id)), user.display_name


def locale_for(interaction: Interaction, settings: Settings) -> str:
    """The player's chosen language, else their Discord client's, else English."""
    return resolve_locale(settings.language, str(interaction.locale))


async def own_locale(interaction: Interaction) -> str:
    """The language of the player who acted, reading their settings."""
    player, _ = player_of(interaction)
    return locale_for(interaction, await bot_of(interaction).service.get_settings(player))


def new_command(locale: str) -> str:
    """``/tripeaks new`` as the player's Discord client names it."""
    return f"/{GROUP} {command_names(locale)['new']}"


def explain(error: Exception, locale: str) -> str:
    """The renderer's text for an error, naming ``/tripeaks new`` (as the player's client shows it) as the way to
    start a game."""
    return error_text(error, locale, new_command(locale))


# --- answering within Discord's deadline --------------------------------------------------------------------------

_DEFERRED_EPHEMERAL = "tripeaks_deferred_ephemeral"


async def in_time(interaction: Interaction, work: Coroutine[Any, Any, T], *, ephemeral: bool = False) -> T:
    """Await ``work``; if it takes longer than the bot's ``defer_after``, acknowledge the interaction first (a
    deferred update for a button, "thinking" for a command, ephemeral when the answer will be) so Discord's
    3-second deadline is met whatever the service does."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=bot_of(interaction).defer_after)
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


async def show_update(interaction: Interaction, view: View) -> None:
    """Edit the message the clicked button is on."""
    if interaction.response.is_done():
        await interaction.edit_original_response(view=layout(view))
    else:
        await interaction.response.edit_message(view=layout(view))


async def show_new(interaction: Interaction, view: View, *, ephemeral: bool = False) -> int | None:
    """Answer with a new message holding ``view``; its id (None if Discord did not say)."""
    thinking = _deferred_thinking(interaction)
    if not interaction.response.is_done():
        sent = await interaction.response.send_message(view=layout(view), ephemeral=ephemeral)
        if sent.message_id is not None:
            return sent.message_id
        return (await interaction.original_response()).id
    if thinking is not None and thinking == ephemeral:
        return (await interaction.edit_original_response(view=layout(view))).id
    message = await interaction.followup.send(view=layout(view), ephemeral=ephemeral, wait=True)
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


def guarded(handler: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """Answer any error the handler did not expect with the renderer's "something went wrong", and log it."""

    async def run(interaction: Interaction, *args: Any, **kwargs: Any) -> None:
        try:
            await handler(interaction, *args, **kwargs)
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


# --- boards -------------------------------------------------------------------------------------------------------


def in_server(interaction: Interaction, chat_id: str | None = None) -> bool:
    """Whether a board in ``chat_id`` (default: where the interaction happened) is in a server channel, where the
    board carries the player's name, rather than a DM."""
    if chat_id is None or chat_id == str(interaction.channel_id):
        return interaction.guild_id is not None
    channel = bot_of(interaction).get_channel(int(chat_id))
    return getattr(channel, "guild", None) is not None if channel is not None else interaction.guild_id is not None


def game_view(interaction: Interaction, snapshot: GameSnapshot, *, chat_id: str | None = None,
              latest: bool = True) -> View:
    """The board of ``snapshot`` in the acting player's language, named in servers."""
    settings = snapshot.settings
    return render_game(snapshot, locale_for(interaction, settings), settings,
                       owner_label=in_server(interaction, chat_id), latest=latest)


def here(interaction: Interaction, message_id: int) -> BoardRef:
    """A message in the channel of the interaction, as the service records boards."""
    return BoardRef(str(interaction.channel_id), str(message_id))


def jump_url(interaction: Interaction, board: BoardRef) -> str | None:
    """The link Discord shows as a jump to the message ``board``; None when its server cannot be told."""
    if board.chat_id == str(interaction.channel_id):
        guild: int | None = interaction.guild_id
    else:
        channel = bot_of(interaction).get_channel(int(board.chat_id))
        if channel is None:
            return None
        guild = channel.guild.id if getattr(channel, "guild", None) is not None else None
    return f"https://discord.com/channels/{guild or '@me'}/{board.chat_id}/{board.message_id}"


async def edit_board(interaction: Interaction, board: BoardRef, view: View) -> bool:
    """Edit the bot's message ``board`` (wherever it is) to ``view`` with the bot's token; False when Discord
    refuses (the message is gone, the channel out of reach), which is logged and otherwise ignored."""
    channel = bot_of(interaction).get_partial_messageable(int(board.chat_id))
    try:
        await channel.get_partial_message(int(board.message_id)).edit(view=layout(view))
    except (discord.HTTPException, ValueError) as error:
        log.info("could not edit the board %s/%s: %s", board.chat_id, board.message_id, error)
        return False
    return True


async def close_board(interaction: Interaction, replaced: GameSnapshot | None, *,
                      keep: BoardRef | None = None) -> None:
    """The board of the game a new one replaced, redrawn as no longer the latest (an abandoned game: no buttons; a
    finished one: Share and Review only), where it is known and Discord lets the bot edit it."""
    if replaced is None or replaced.board is None or replaced.board == keep:
        return
    board = replaced.board
    await edit_board(interaction, board, game_view(interaction, replaced, chat_id=board.chat_id, latest=False))


async def present(interaction: Interaction, snapshot: GameSnapshot) -> None:
    """A game just started (or resumed) as a new public message in the channel: the service is told it is the live
    board, and the replaced game's board is closed."""
    message_id = await show_new(interaction, game_view(interaction, snapshot))
    shown = here(interaction, message_id) if message_id is not None else None
    if shown is not None:
        await bot_of(interaction).service.show_board(snapshot.game_id, shown)
    await close_board(interaction, snapshot.replaced, keep=shown)
