"""Taps on a board's buttons: a card, Draw, Undo, Hint, New game; a finished game's Share, Review and Replay.

What each tap leaves behind:

- a card, Draw, Undo, Hint: the tapped board edited in place (response type 7), refusals included (the renderer's
  status line says why); a card tapped on an older board of the game applies when it is legal now, so two quick
  taps both count; Draw, Undo and Hint from an older board (a double tap) only refresh it to the game as it stands;
- a tap on the board of a game that is no longer the player's latest (abandoned, replaced): a private note pointing
  at the live board, and the tapped message left as it is;
- New game on the board of a game in progress with moves: the question first, privately (a double click asks
  twice, and never counts as Yes); otherwise the new game as a new message, the old board closed;
- Replay: the same deal as a new message; Share: the result line as a public message, with the command that deals
  the same cards; Review: the solver's account, privately;
- someone else's board: a private "this is alice's game", nothing changed.
"""

from __future__ import annotations

from bot.adapters.discord.base import (
    GROUP,
    Interaction,
    bot_of,
    explain,
    game_view,
    here,
    in_time,
    jump_url,
    locale_for,
    own_locale,
    player_of,
    present,
    show_error,
    show_new,
    show_update,
)
from bot.adapters.discord.games import ask_first
from bot.app.commands import AskHint, GameCommand, Move, NewGame, Replay, Review, Share
from bot.app.errors import BotError, ConfirmAbandon, NotCurrentGame, NotYourGame, StaleGame
from bot.app.model import GameSnapshot
from bot.render.endings import render_review, render_share


async def on_game_button(interaction: Interaction, command: GameCommand) -> None:
    """Any button of a board, answered as the module says; errors privately."""
    try:
        match command:
            case Move() | AskHint():
                await move(interaction, command)
            case NewGame():
                await new_game_tapped(interaction, command)
            case Replay():
                await replay(interaction, command)
            case Review():
                await review(interaction, command)
            case Share():
                await share(interaction, command)
    except StaleGame as stale:
        # an old board of the same game, or a double tap: nothing changed; show the game as it stands
        await show_update(interaction, game_view(interaction, stale.current))
    except NotCurrentGame as error:
        await show_error(interaction, not_current(interaction, error, await own_locale(interaction)))
    except BotError as error:
        await show_error(interaction, explain(error, await own_locale(interaction)))


def not_current(interaction: Interaction, error: NotCurrentGame, locale: str) -> str:
    """The renderer's note on a tap on an old board, and a link to the live board when there is one."""
    text = explain(error, locale)
    current = error.current
    if current is not None and current.board is not None and not current.game.is_over:
        link = jump_url(interaction, current.board)
        if link is not None:
            text += "\n" + link
    return text


async def move(interaction: Interaction, command: Move | AskHint) -> None:
    """A card, Draw, Undo or Hint: the tapped board edited to the result; it is the live board from now on."""
    player, name = player_of(interaction)
    service = bot_of(interaction).service
    snapshot = await in_time(interaction, service.act(player, name, command))
    await show_update(interaction, game_view(interaction, snapshot))
    message = interaction.message
    if message is not None and not message.flags.ephemeral and snapshot.board != here(interaction, message.id):
        # the player plays on another board of the game (after /tripeaks resume, say): /tripeaks play edits this one
        await service.show_board(snapshot.game_id, here(interaction, message.id))


async def new_game_tapped(interaction: Interaction, command: NewGame) -> None:
    """New game on a board: the service decides (the question first when the game has moves; a note for an old
    board), and the new game is posted as a new message."""
    await _start_from_board(interaction, command)


async def replay(interaction: Interaction, command: Replay) -> None:
    """Replay on a finished board: the same deal as a new message; the finished board keeps its result."""
    await _start_from_board(interaction, command)


async def _start_from_board(interaction: Interaction, command: NewGame | Replay) -> None:
    player, name = player_of(interaction)
    try:
        snapshot = await in_time(interaction, bot_of(interaction).service.act(player, name, command, ask=True))
    except ConfirmAbandon as error:
        assert error.request is not None  # the service names what it would start
        await ask_first(interaction, error.current, error.request)
        return
    await present(interaction, snapshot)


async def _finished(interaction: Interaction, command: Review | Share) -> GameSnapshot:
    """The finished game a Review or Share button names, which must be the player's own."""
    player, name = player_of(interaction)
    snapshot = await in_time(interaction, bot_of(interaction).service.act(player, name, command))
    if snapshot.owner != player:
        raise NotYourGame(snapshot.owner_name)
    return snapshot


async def review(interaction: Interaction, command: Review) -> None:
    """Review: the exact solver's account of the game, only to the player."""
    snapshot = await _finished(interaction, command)
    found = await in_time(interaction, bot_of(interaction).service.review(command.game_id))
    await show_new(interaction, render_review(snapshot, found, locale_for(interaction, snapshot.settings)),
                   ephemeral=True)


async def share(interaction: Interaction, command: Share) -> None:
    """Share: the spoiler-free result as a public message, with the command that deals the same cards by its
    canonical name (the readers' Discord clients may speak other languages than the sharer's)."""
    snapshot = await _finished(interaction, command)
    locale = locale_for(interaction, snapshot.settings)
    replay_command = f"/{GROUP} new code:{snapshot.game.code}"
    await show_new(interaction, render_share(snapshot, locale, replay=replay_command))
