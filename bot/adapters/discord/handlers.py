"""What each slash command and each button does: the entry points :mod:`bot.adapters.discord.commands` and the
client call, and the one dispatcher of button payloads.

The work is split by responsibility:

- :mod:`~bot.adapters.discord.base`: who acted, their language, answering within Discord's deadline, boards;
- :mod:`~bot.adapters.discord.games`: starting games (and the question before one with moves is abandoned),
  ``resume``, ``play`` by name;
- :mod:`~bot.adapters.discord.taps`: the buttons of a board, finished ones included;
- :mod:`~bot.adapters.discord.daily`: the daily deal, the leaderboard and the daily posts;
- :mod:`~bot.adapters.discord.info`: rules, statistics and settings.

How each interaction is answered:

- a tap on a board edits that board in place (response type 7), refusals included: the renderer puts the
  explanation in the status line, so the channel gets no extra message;
- a game that starts is a new public message (type 4), and the board of the game it replaced is closed;
- a question, someone else's tap, a tap on an old game's board and every error is an ephemeral reply that changes
  nothing else.
"""

from __future__ import annotations

from bot.adapters.discord.base import GROUP, Interaction, explain, guarded, own_locale, show_error
from bot.adapters.discord.daily import leaderboard, start_daily, subscribe
from bot.adapters.discord.games import confirm, free_cards, keep, launch, new_game, play, resume
from bot.adapters.discord.info import on_settings_button, rules, settings, stats
from bot.adapters.discord.taps import on_game_button
from bot.app.codec import decode
from bot.app.commands import (
    AskHint,
    Begin,
    ConfirmStart,
    KeepPlaying,
    Move,
    NewGame,
    PlayDaily,
    Replay,
    Review,
    Share,
    ShowRules,
)
from bot.app.errors import BadPayload


@guarded
async def on_button(interaction: Interaction, custom_id: str) -> None:
    """A click on any of the bot's buttons, by its payload."""
    try:
        command = decode(custom_id)
    except BadPayload as error:
        await show_error(interaction, explain(error, await own_locale(interaction)))
        return
    match command:
        case Move() | AskHint() | NewGame() | Replay() | Review() | Share():
            await on_game_button(interaction, command)
        case ConfirmStart():
            await confirm(interaction, command)
        case KeepPlaying():
            await keep(interaction, command)
        case Begin(request):
            await launch(interaction, request)
        case ShowRules():
            await rules(interaction)
        case PlayDaily(day):
            await start_daily(interaction, day)
        case _:
            await on_settings_button(interaction, command)


__all__ = [
    "GROUP",
    "free_cards",
    "leaderboard",
    "new_game",
    "on_button",
    "play",
    "resume",
    "rules",
    "settings",
    "start_daily",
    "stats",
    "subscribe",
]
