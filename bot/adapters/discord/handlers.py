"""What each slash command and each button does: platform event in, service call, renderer view out.

No game rules, no SQL and no texts of our own live here. A handler reads who acted and in which language, calls
the :class:`~bot.app.service.GameService`, gives the snapshot to the renderer and maps the view onto the interaction's
response:

- a tap on a game message edits that message in place (response type 7), refusals included: the renderer puts
  the explanation in the status line, so the channel gets no extra message;
- someone else's tap, and every error, is an ephemeral reply that changes nothing;
- a stale tap (an old message, a double tap) edits the message to the game as it stands;
- slash commands answer with a new message: the game publicly, rules, statistics and settings ephemerally.

Discord drops an interaction not answered within 3 seconds. The service answers in milliseconds (a hint in about
a second at most), but should it ever take longer than ``bot.defer_after`` seconds the handler acknowledges first
(a deferred update, or "thinking" for a command) and then edits the answer in, so nothing is ever lost.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Protocol, TypeVar

import discord
from discord import app_commands

from bot.adapters.discord.views import layout
from bot.app.codec import decode
from bot.app.commands import AskHint, GameCommand, Move, NewGame, PlayDaily, SettingChange
from bot.app.errors import BadPayload, BotError, CardNotInPlay, NoActiveGame, NotACard, StaleGame
from bot.app.model import GameSnapshot, PlayerKey, Settings
from bot.app.service import GameService
from bot.config import Config
from bot.i18n import SUPPORTED_LOCALES, resolve_locale
from bot.render.commands import command_names
from bot.render.game import refusal_text, render_game
from bot.render.replies import (
    DailyNotice,
    daily_notice,
    error_text,
    render_leaderboard,
    render_rules,
    render_settings,
    render_stats,
)
from bot.render.tableau import card_label
from bot.render.view import View
from core.cards import Card
from core.deal import Rules
from core.game import Reason

log = logging.getLogger(__name__)

PLATFORM = "discord"
#: The slash command group every command lives in (never translated).
GROUP = "tripeaks"
#: Autocomplete shows at most this many choices (Discord's limit).
AUTOCOMPLETE_MAX = 25

T = TypeVar("T")
Interaction = discord.Interaction[Any]


# --- who, in which language ---------------------------------------------------------------------------------------


class TriPeaksClient(Protocol):
    """What the handlers need of the bot (:mod:`bot.adapters.discord.client`)."""

    service: GameService
    config: Config
    defer_after: float


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


async def show_new(interaction: Interaction, view: View, *, ephemeral: bool = False) -> None:
    """Answer with a new message holding ``view``."""
    thinking = _deferred_thinking(interaction)
    if not interaction.response.is_done():
        await interaction.response.send_message(view=layout(view), ephemeral=ephemeral)
    elif thinking is not None and thinking == ephemeral:
        await interaction.edit_original_response(view=layout(view))
    else:
        await interaction.followup.send(view=layout(view), ephemeral=ephemeral)
        if thinking is not None:
            await interaction.delete_original_response()


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


def explain(error: Exception, locale: str) -> str:
    """The renderer's text for an error, naming ``/tripeaks new`` (as the player's client shows it) as the way to
    start a game."""
    return error_text(error, locale, f"/{GROUP} {command_names(locale)['new']}")


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


# --- game messages -----------------------------------------------------------------------------------------------


def game_view(interaction: Interaction, snapshot: GameSnapshot) -> View:
    settings = snapshot.settings
    return render_game(snapshot, locale_for(interaction, settings), settings)


async def _with_errors(interaction: Interaction, work: Coroutine[Any, Any, GameSnapshot], *,
                       refresh: bool) -> GameSnapshot | None:
    """Run a service call; answer its errors ephemerally (None). A stale game is refreshed when ``refresh``."""
    try:
        return await in_time(interaction, work)
    except StaleGame as stale:
        if refresh:
            return stale.current
        await show_error(interaction, explain(stale, await own_locale(interaction)))
    except BotError as error:
        await show_error(interaction, explain(error, await own_locale(interaction)))
    return None


@guarded
async def on_button(interaction: Interaction, custom_id: str) -> None:
    """A click on any of the bot's buttons, by its payload."""
    try:
        command = decode(custom_id)
    except BadPayload as error:
        await show_error(interaction, explain(error, await own_locale(interaction)))
        return
    if isinstance(command, Move | AskHint | NewGame):
        await on_game_button(interaction, command)
    elif isinstance(command, PlayDaily):
        await start_daily(interaction, command.day)
    else:
        await on_settings_button(interaction, command)


async def on_game_button(interaction: Interaction, command: GameCommand) -> None:
    """A card, Draw, Undo, Hint or New game: the message is edited in place to the result."""
    player, name = player_of(interaction)
    service = bot_of(interaction).service
    snapshot = await _with_errors(interaction, service.act(player, name, command), refresh=True)
    if snapshot is not None:
        await show_update(interaction, game_view(interaction, snapshot))


@guarded
async def new_game(interaction: Interaction, code: str | None = None, rules: str | None = None) -> None:
    """``/tripeaks new [code] [rules]``: a new game message in the channel."""
    player, name = player_of(interaction)
    service = bot_of(interaction).service
    snapshot = await _with_errors(interaction, service.new_game(
        player, name, code=code.strip() if code else None, rules=Rules(rules) if rules else None,
        chat_id=str(interaction.channel_id)), refresh=False)
    if snapshot is not None:
        await show_new(interaction, game_view(interaction, snapshot))


@guarded
async def start_daily(interaction: Interaction, day: dt.date | None = None) -> None:
    """``/tripeaks daily`` or Play under a daily post: that day's deal, as a new game message."""
    player, name = player_of(interaction)
    # counted on the server's daily leaderboard; a game in DMs is on none
    board = str(interaction.guild_id) if interaction.guild_id is not None else None
    snapshot = await _with_errors(interaction, bot_of(interaction).service.new_daily_game(
        player, name, day, chat_id=str(interaction.channel_id), board=board), refresh=False)
    if snapshot is not None:
        await show_new(interaction, game_view(interaction, snapshot))


@guarded
async def leaderboard(interaction: Interaction) -> None:
    """``/tripeaks leaderboard``: today's daily leaderboard of this server, for the channel to see."""
    locale = await own_locale(interaction)
    if interaction.guild_id is None:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_GROUP, locale))
        return
    day = bot_of(interaction).service.today()
    results = await in_time(interaction, bot_of(interaction).service.daily_leaderboard(
        PLATFORM, str(interaction.guild_id), day))
    await show_new(interaction, render_leaderboard(day, results, locale))


def channel_locale(interaction: Interaction, subscriber_locale: str) -> str:
    """The language of the daily posts to a channel: the server's (its community language), when the bot speaks
    it, else the subscriber's."""
    tag = str(interaction.guild_locale) if interaction.guild_locale is not None else ""
    if tag.replace("_", "-").split("-")[0].lower() in SUPPORTED_LOCALES:
        return resolve_locale(None, tag)
    return subscriber_locale


@guarded
async def subscribe(interaction: Interaction, on: bool = True) -> None:
    """``/tripeaks subscribe`` / ``unsubscribe``: the daily deal posted to this channel at the daily post time, or
    no longer. Needs Manage Server (the command's default permission, checked here again: a server can change
    who sees a command)."""
    locale = await own_locale(interaction)
    if interaction.guild_id is None or interaction.channel_id is None:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_GROUP, locale))
        return
    if not interaction.permissions.manage_guild:
        await show_error(interaction, daily_notice(DailyNotice.NEEDS_ADMIN, locale))
        return
    bot = bot_of(interaction)
    service = bot.service
    channel = str(interaction.channel_id)
    post_time = bot.config.daily_post_time
    if on:
        posts_locale = channel_locale(interaction, locale)
        new = await in_time(interaction, service.subscribe(
            PLATFORM, channel, board=str(interaction.guild_id), locale=posts_locale, by=str(interaction.user.id)))
        notice = DailyNotice.SUBSCRIBED if new else DailyNotice.ALREADY_SUBSCRIBED
        text = daily_notice(notice, posts_locale, post_time)
    else:
        removed = await in_time(interaction, service.unsubscribe(PLATFORM, channel))
        text = daily_notice(DailyNotice.UNSUBSCRIBED if removed else DailyNotice.NOT_SUBSCRIBED, locale)
    await show_new(interaction, View(header=text))


@guarded
async def resume(interaction: Interaction) -> None:
    """``/tripeaks resume``: the game in progress, as a new message (older messages of it refresh on a tap)."""
    player, _ = player_of(interaction)
    snapshot = await in_time(interaction, bot_of(interaction).service.current_game(player))
    if snapshot is None:
        await show_error(interaction, explain(NoActiveGame(), await own_locale(interaction)))
        return
    await show_new(interaction, game_view(interaction, snapshot))


@guarded
async def play(interaction: Interaction, card: str) -> None:
    """``/tripeaks play <card>``, for keyboard users: the same as tapping that card's button. Applied, it answers
    with the game as it now stands, in a new message; refused, privately, with the game view (its status line
    explains why when explanations are on). Text that is no card also gets the game privately: its buttons name
    the cards free to play, and work there too."""
    player, name = player_of(interaction)
    service = bot_of(interaction).service
    try:
        snapshot = await in_time(interaction, service.play_card(player, name, card))
    except NotACard:
        current = await service.current_game(player)
        if current is not None:
            await show_new(interaction, game_view(interaction, current), ephemeral=True)
        return
    except CardNotInPlay:
        # not on the table face up (face down, in the stock or on the waste): tapping it could only be refused
        await show_error(interaction, refusal_text(Reason.BLOCKED, await own_locale(interaction)))
        return
    except BotError as error:
        await show_error(interaction, explain(error, await own_locale(interaction)))
        return
    refused = snapshot.outcome is not None and not snapshot.outcome.ok
    await show_new(interaction, game_view(interaction, snapshot), ephemeral=refused)


async def free_cards(interaction: Interaction, typed: str) -> list[app_commands.Choice[str]]:
    """Autocomplete for ``play``: the cards free to play now that start like what was typed (``k``, ``10``,
    ``7♠``), or all of them when none does."""
    player, _ = player_of(interaction)
    snapshot = await bot_of(interaction).service.current_game(player)
    if snapshot is None:
        return []
    game = snapshot.game
    cards = [game.card_at(slot) for slot in game.playable_slots()]
    wanted = typed.strip().upper().replace("\ufe0f", "").replace("\ufe0e", "")

    def matches(card: Card) -> bool:
        return str(card).startswith(wanted.replace("10", "T")) or card.symbol().upper().startswith(wanted)

    shown = [card for card in cards if matches(card)] or cards
    return [app_commands.Choice(name=card_label(c), value=str(c)) for c in shown[:AUTOCOMPLETE_MAX]]


# --- other replies ----------------------------------------------------------------------------------------------


@guarded
async def rules(interaction: Interaction) -> None:
    """``/tripeaks rules``: how to play, only to the player who asked."""
    await show_new(interaction, render_rules(await own_locale(interaction)), ephemeral=True)


@guarded
async def stats(interaction: Interaction) -> None:
    """``/tripeaks stats``: the player's statistics, only to them."""
    player, _ = player_of(interaction)
    service = bot_of(interaction).service
    settings = await service.get_settings(player)
    result = await in_time(interaction, service.stats(player), ephemeral=True)
    await show_new(interaction, render_stats(result, locale_for(interaction, settings)), ephemeral=True)


@guarded
async def settings(interaction: Interaction) -> None:
    """``/tripeaks settings``: the settings message with its buttons, only to the player."""
    player, _ = player_of(interaction)
    current = await in_time(interaction, bot_of(interaction).service.get_settings(player), ephemeral=True)
    await show_new(interaction, render_settings(current, locale_for(interaction, current)), ephemeral=True)


async def on_settings_button(interaction: Interaction, change: SettingChange) -> None:
    """A choice on the settings message: stored, then the message is redrawn (in the new language, if that was
    the choice)."""
    player, name = player_of(interaction)
    updated = await in_time(interaction, bot_of(interaction).service.change_setting(player, name, change))
    await show_update(interaction, render_settings(updated, locale_for(interaction, updated)))


__all__ = [
    "free_cards",
    "leaderboard",
    "subscribe",
    "new_game",
    "on_button",
    "play",
    "resume",
    "rules",
    "settings",
    "start_daily",
    "stats",
]
