"""The console after another screen: Enter, ``resume`` or ``board`` (or the player's language's word for resume)
shows the game again; text is wrapped by words at a width, Japanese between characters; and on a terminal the
console's log goes to a file, never into the game."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from bot import logs
from bot.adapters.console import ConsoleChat
from bot.app.assembly import App
from bot.config import Config
from bot.render.console import wrap_text
from bot.render.replies import render_rules
from bot.render.view import display_width


@pytest.fixture
def backend() -> str:
    """The console runs on SQLite: these tests need no other database."""
    return "sqlite"


async def chat_on(service: App, lang: str = "en", width: int | None = None) -> tuple[ConsoleChat, io.StringIO]:
    out = io.StringIO()
    chat = ConsoleChat(service.flow, user_id="ann", name="ann", platform_locale=lang, out=out, width=width)
    chat.settings = await service.players.get_settings(chat.player)
    await chat._show_game(await service.starts.new_game(chat.player, "ann"))
    return chat, out


async def typed(chat: ConsoleChat, out: io.StringIO, line: str) -> str:
    out.seek(0)
    out.truncate()
    assert await chat.handle(line)
    return out.getvalue()


@pytest.mark.parametrize(("lang", "word"), [("en", "resume"), ("en", "board"), ("en", ""), ("de", "fortsetzen"),
                                            ("ja", "再開"), ("uk", "продовжити"), ("de", "")])
@pytest.mark.parametrize("screen", ["rules", "stats", "help"])
async def test_after_rules_or_stats_a_key_shows_the_game_again(service: App, lang: str, word: str,
                                                               screen: str) -> None:
    chat, out = await chat_on(service, lang)
    other = await typed(chat, out, screen)
    assert "[d]" not in other
    assert "Enter" in other  # it says how to get back
    again = await typed(chat, out, word)
    assert "[d]" in again and "[h]" in again, again  # the board, with its choices
    assert "That is not a card" not in again


async def test_enter_after_the_board_prints_nothing_again(service: App) -> None:
    chat, out = await chat_on(service)
    assert await typed(chat, out, "") == ""


async def test_the_question_stays_open_on_enter(service: App) -> None:
    chat, out = await chat_on(service)
    await typed(chat, out, "d")
    asked = await typed(chat, out, "new")
    assert "[y]" in asked
    assert await typed(chat, out, "") == ""
    assert "Moves: 0" in await typed(chat, out, "y")


@pytest.mark.parametrize("width", [40, 80])
async def test_the_rules_in_german_wrap_between_words(service: App, width: int) -> None:
    chat, out = await chat_on(service, "de", width=width)
    rules = await typed(chat, out, "rules")
    view = render_rules("de")
    assert set((view.status or "").split()) <= set(rules.split())
    assert all(display_width(line) <= width for line in rules.splitlines())


@pytest.mark.parametrize("width", [30, 40, 80])
def test_japanese_wraps_between_characters_never_before_closing_punctuation(width: int) -> None:
    for paragraph in (render_rules("ja").status or "").split("\n\n"):
        wrapped = wrap_text(paragraph, width)
        assert wrapped.replace("\n", "") == paragraph.replace("\n", "")
        lines = wrapped.split("\n")
        assert all(display_width(line) <= width for line in lines), lines
        assert not any(line[:1] in "、。）」" for line in lines[1:]), lines


def test_a_word_is_never_cut_unless_wider_than_the_line() -> None:
    text = "Ende: Du gewinnst, sobald alle 28 Karten der Gipfel weg sind; sonst abgebrochen."
    for width in range(12, 60):
        wrapped = wrap_text(text, width)
        assert wrapped.split() == text.split(), (width, wrapped)


def test_on_a_terminal_the_console_logs_to_a_file_not_into_the_game(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    """A slow solver's warning (logged while the player waits for a hint) never prints between the lines of the
    game: on a terminal the console's log is a file."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    screen = Terminal()
    logs.configure_logging(Config(), screen, console=True)
    try:
        logging.getLogger("bot.app.solver_pool").warning("the solver took longer than %.2f s", 1.05)
    finally:
        for handler in root.handlers:
            handler.close()
    assert screen.getvalue() == ""
    assert logs.console_log_path() == tmp_path / "tripeaks" / "console.log"
    assert "WARNING bot.app.solver_pool: the solver took longer than 1.05 s" in logs.console_log_path().read_text()


def test_off_a_terminal_the_console_logs_to_stderr(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    stream = io.StringIO()
    logs.configure_logging(Config(), stream, console=True)
    logging.getLogger("bot.app.solver_pool").warning("the solver took longer than %.2f s", 1.05)
    assert "the solver took longer than 1.05 s" in stream.getvalue()
    assert not (tmp_path / "tripeaks").exists()
