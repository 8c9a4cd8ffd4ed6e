"""The bot's commands as Telegram's command menu lists them, with the renderer's localised descriptions; where the
table's button opens the table (:func:`table_button_url`)."""

from __future__ import annotations

from typing import Protocol

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
    ("round", "round"),
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


class TableSettings(Protocol):
    table_url: str | None
    mini_app: str | None


def table_button_url(tg: TableSettings, bot_username: str, group: bool) -> str | None:
    """Where the button under a game opens the table: the page itself in a private chat (a ``web_app`` button), the
    Mini App's direct link in a group (``web_app`` buttons work only in private chats); None without PUBLIC_URL, or
    in a group without the Mini App's short name (TELEGRAM_MINI_APP).

    >>> class Tg: table_url, mini_app = "https://t.example", "table"
    >>> table_button_url(Tg, "tripeaks_bot", False), table_button_url(Tg, "tripeaks_bot", True)
    ('https://t.example/', 'https://t.me/tripeaks_bot/table?startapp=play')
    """
    if tg.table_url is None:
        return None
    if not group:
        return f"{tg.table_url}/"
    return f"https://t.me/{bot_username}/{tg.mini_app}?startapp=play" if tg.mini_app else None
