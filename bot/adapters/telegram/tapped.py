"""What a message shows, read from the commands its buttons carry as Telegram hands it over with a tap: every
command (for the flow to check that a tap is about it), the game and version of a board, and whether it shows the
settings or a review in place of a board."""

from __future__ import annotations

import contextlib

from telegram import Message

from bot.app.codec import BadPayload, decode
from bot.app.commands import AskHint, BackToBoard, ButtonCommand, Move, NewGame


def buttons_of(message: Message | None) -> tuple[ButtonCommand, ...] | None:
    """The commands the buttons of the tapped message carry now (a payload that cannot be read is left out); None
    when Telegram no longer hands the message over. A modified client can send any callback data: the flow checks
    that a tap is about what this message shows."""
    if message is None or message.reply_markup is None:
        return None if message is None else ()
    found: list[ButtonCommand] = []
    for row in message.reply_markup.inline_keyboard:
        for button in row:
            if isinstance(button.callback_data, str):
                with contextlib.suppress(BadPayload):
                    found.append(decode(button.callback_data))
    return tuple(found)


def shown_game(message: Message) -> tuple[int, int] | None:
    """The game and version a board's buttons carry; None for a message that is no board of a game in progress."""
    for command in buttons_of(message) or ():
        if isinstance(command, Move | AskHint | NewGame):
            return command.game_id, command.version
    return None


def in_place_of_board(message: Message) -> bool:
    """Whether the message shows the settings or a review in place of its board (it has Back to the board)."""
    return any(isinstance(command, BackToBoard) for command in buttons_of(message) or ())
