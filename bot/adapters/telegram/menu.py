"""The bot's commands as Telegram's command menu lists them, with the renderer's localised descriptions."""

from __future__ import annotations

from bot.render.commands import TELEGRAM_DESCRIPTIONS, command_description

#: The bot's commands, in menu order, each with the key of its description in
#: :data:`bot.render.commands.TELEGRAM_DESCRIPTIONS`; a command whose description the renderer does not have (yet)
#: works but stays out of the menu.
COMMANDS: tuple[tuple[str, str], ...] = (
    ("tripeaks", "new"),
    ("daily", "daily"),
    ("resume", "resume"),
    ("play", "play"),
    ("rules", "rules"),
    ("stats", "stats"),
    ("settings", "settings"),
    ("winnable", "winnable"),
    ("leaderboard", "leaderboard"),
    ("subscribe", "subscribe"),
    ("unsubscribe", "unsubscribe"),
    ("help", "help"),
    ("start", "start"),
)


def menu_commands(locale: str) -> list[tuple[str, str]]:
    """The command menu in ``locale``: (command, description) for every command the renderer describes."""
    return [(name, command_description(key, locale, "telegram")) for name, key in COMMANDS
            if key in TELEGRAM_DESCRIPTIONS]
