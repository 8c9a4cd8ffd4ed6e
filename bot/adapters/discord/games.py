"""Starting games and the commands about the game in progress: ``/tripeaks new``, ``resume`` and ``play``, the
welcome's Play and Daily, and Yes or No under "abandon your game in progress?".

Every start asks the service with ``ask=True`` (:func:`launch`). When it would abandon a game in progress with
moves the service raises :class:`~bot.app.errors.ConfirmAbandon`, and the player gets the renderer's question as an
ephemeral reply (Yes: :class:`~bot.app.commands.ConfirmStart`, No: :class:`~bot.app.commands.KeepPlaying`). Once a
game starts, its board is a new public message in the channel, recorded with ``service.show_board``, and the board
of the game it replaced is redrawn as no longer the latest (:func:`~bot.adapters.discord.base.present`).
"""

from __future__ import annotations

from discord import app_commands

from bot.adapters.discord.base import (
    Interaction,
    bot_of,
    edit_board,
    explain,
    game_view,
    guarded,
    here,
    in_time,
    locale_for,
    own_locale,
    player_of,
    present,
    show_error,
    show_new,
    show_update,
)
from bot.adapters.discord.views import layout
from bot.app.commands import ConfirmStart, DealByCode, KeepPlaying, RandomDeal, StartRequest
from bot.app.errors import BotError, ConfirmAbandon, NoActiveGame
from bot.app.model import GameSnapshot
from bot.render.game import play_ack
from bot.render.lifecycle import render_confirm_start, render_kept
from bot.render.tableau import card_label
from core.cards import Card
from core.deal import Rules

#: Autocomplete shows at most this many choices (Discord's limit).
AUTOCOMPLETE_MAX = 25


# --- the one way a game starts ------------------------------------------------------------------------------------


async def launch(interaction: Interaction, request: StartRequest | ConfirmStart) -> GameSnapshot | None:
    """Start ``request`` for the player who acted: the new board as a new public message, or, when that would
    abandon their game in progress, the question first (None). A daily deal started in a server counts on that
    server's leaderboard; one in DMs on none."""
    player, name = player_of(interaction)
    community = str(interaction.guild_id) if interaction.guild_id is not None else None
    try:
        snapshot = await in_time(interaction, bot_of(interaction).service.start(
            player, name, request, chat_id=str(interaction.channel_id), community=community, ask=True))
    except ConfirmAbandon as error:
        assert not isinstance(request, ConfirmStart)  # a confirmed start is never asked again
        await ask_first(interaction, error.current, request)
        return None
    except BotError as error:
        await show_error(interaction, explain(error, await own_locale(interaction)))
        return None
    await present(interaction, snapshot)
    return snapshot


async def ask_first(interaction: Interaction, current: GameSnapshot, request: StartRequest) -> None:
    """"Abandon your game in progress?", only to the player: it names the game, and says so when its board is in
    another channel."""
    elsewhere = current.board is not None and current.board.chat_id != str(interaction.channel_id)
    view = render_confirm_start(current, request, locale_for(interaction, current.settings), elsewhere=elsewhere)
    await show_new(interaction, view, ephemeral=True)


async def confirm(interaction: Interaction, command: ConfirmStart) -> None:
    """Yes under the question: the game starts as a new public message (a second Yes finds the game already
    abandoned and gets a private note)."""
    await launch(interaction, command)


async def keep(interaction: Interaction, command: KeepPlaying) -> None:
    """No under the question: the question becomes "your game goes on"."""
    await show_update(interaction, render_kept(await own_locale(interaction)))


# --- commands -----------------------------------------------------------------------------------------------------


@guarded
async def new_game(interaction: Interaction, code: str | None = None, rules: str | None = None,
                   winnable: bool | None = None) -> None:
    """``/tripeaks new [code] [rules] [winnable]``: a new game message in the channel (the question first when a
    game with moves would be abandoned)."""
    request: StartRequest
    if code and code.strip():
        request = DealByCode(code.strip())
    else:
        request = RandomDeal(Rules(rules) if rules else None, winnable)
    await launch(interaction, request)


@guarded
async def resume(interaction: Interaction) -> None:
    """``/tripeaks resume``: the game in progress, as a new message that becomes its live board."""
    player, _ = player_of(interaction)
    service = bot_of(interaction).service
    snapshot = await in_time(interaction, service.current_game(player))
    if snapshot is None:
        await show_error(interaction, explain(NoActiveGame(), await own_locale(interaction)))
        return
    message_id = await show_new(interaction, game_view(interaction, snapshot))
    if message_id is not None:
        await service.show_board(snapshot.game_id, here(interaction, message_id))


@guarded
async def play(interaction: Interaction, card: str) -> None:
    """``/tripeaks play <card>``, for keyboard users: the same as tapping that card's button. The live board is
    edited in place and the command gets a short private acknowledgement (the card played, or why not); words
    that name no card and cards not in play get the renderer's explanation. Should the live board be out of reach,
    the board is posted anew and becomes the live one."""
    player, name = player_of(interaction)
    service = bot_of(interaction).service
    try:
        snapshot = await in_time(interaction, service.play_card(player, name, card), ephemeral=True)
    except BotError as error:  # NoActiveGame, NotACard, CardNotInPlay, Busy...
        await show_error(interaction, explain(error, await own_locale(interaction)))
        return
    await show_error(interaction, play_ack(snapshot, locale_for(interaction, snapshot.settings)))
    if snapshot.outcome is not None and not snapshot.outcome.ok:
        return  # refused: nothing changed on the board
    board = snapshot.board
    if board is not None and await edit_board(interaction, board, game_view(interaction, snapshot,
                                                                           chat_id=board.chat_id)):
        return
    message = await interaction.followup.send(view=layout(game_view(interaction, snapshot)), wait=True)
    await service.show_board(snapshot.game_id, here(interaction, message.id))


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
