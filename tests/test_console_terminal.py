"""The console game in a real (pseudo-)terminal: Ctrl-C and SIGTERM end it after any command, with exit status 130
or 143, no traceback and no process of ours left, solver workers included. The pipe-fed tests of test_shutdown.py
could not see the console stuck in a blocking read of the terminal until the next Enter."""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

from tests.processes import descendants, still_running
from tests.terminal import Terminal, seed_game

pytestmark = pytest.mark.timeout(180)

#: After each of these (a hint, a refused card, the rules, the statistics, a draw, a word that is no card).
COMMANDS = ["h", "2c", "rules", "stats", "d", "zz"]


#: Ctrl-C after each command; SIGTERM (the same wait) after a hint and a refused card.
CASES = [(command, "ctrl-c", 130) for command in COMMANDS] + [("h", "sigterm", 143), ("2c", "sigterm", 143)]


@pytest.mark.parametrize(("command", "stop", "status"), CASES)
def test_ctrl_c_and_sigterm_end_the_console_after_any_command(tmp_path: Path, command: str, stop: str,
                                                              status: int) -> None:
    seed_game(tmp_path, "ann", "TP1-E-AAAAAAB")
    terminal = Terminal(tmp_path, "console", "--user", "ann")
    try:
        terminal.ready()
        answer = terminal.type(command)  # the first line typed: the one after which the read blocked
        if command == "2c":
            assert "Must be one rank higher or lower" in answer, answer
        ours = descendants(terminal.process.pid)
        assert ours, "the solver workers run in processes of their own"
        if stop == "ctrl-c":
            terminal.ctrl_c()
        else:
            terminal.process.send_signal(signal.SIGTERM)
        assert terminal.wait() == status
    finally:
        terminal.close()
    screen = terminal.screen
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen, screen[-3000:]
    assert screen.rstrip().endswith("Goodbye! Your game is saved."), screen[-500:]
    assert still_running(ours, timeout=10) == {}


# --- the console fits its terminal ----------------------------------------------------------------------------------


def words(text: str) -> set[str]:
    return set(text.split())


@pytest.mark.parametrize(("columns", "lang"), [(80, "de"), (40, "de"), (40, "ja"), (60, "fr")])
def test_help_rules_and_buttons_fit_the_terminal(tmp_path: Path, columns: int, lang: str) -> None:
    """Help, rules and the board's choices at the terminal's width: no line wider (a terminal would break it
    anywhere: "abg/ebrochen"), words whole, each choice ``[key] label`` whole on one line."""
    from bot.app.model import Settings
    from bot.render.console import console_button, console_help, console_rows
    from bot.render.game import render_game
    from bot.render.replies import render_rules
    from bot.render.view import display_width
    from core.game import Game
    from tests.test_render import snapshot

    seed_game(tmp_path, "ann", "TP1-E-AAAAAAB")
    terminal = Terminal(tmp_path, "console", "--user", "ann", "--lang", lang, columns=columns)
    try:
        board = terminal.ready()
        rules = terminal.type("rules")
        shown_help = terminal.type("help")
        terminal.ctrl_c()
        terminal.wait()
    finally:
        terminal.close()
    saved, *lines = terminal.screen.splitlines()
    assert saved.startswith("Games are saved in ")  # a path, as long as it is (the terminal may break it)
    lines = [line for line in lines if not line.startswith("Play in your browser: http")]  # a link, likewise
    for line in lines:
        assert display_width(line) <= columns, line
    rules_view = render_rules(lang)
    expected = f"{rules_view.header}\n{rules_view.status}\n{console_help(lang, board=True)}"
    if lang == "ja":  # no spaces to break at: the same characters, in order, only the line breaks moved
        for paragraph in (rules_view.status or "").split("\n\n"):
            assert paragraph.replace(" ", "") in rules.replace("\n", "").replace(" ", ""), paragraph[:40]
    else:
        assert words(expected) <= words(rules) | words(shown_help), words(expected) - words(rules + shown_help)
    for row in console_rows(render_game(snapshot(Game.from_code("TP1-E-AAAAAAB")), lang, Settings())):
        for key, button in row:
            choice = console_button(key, button, False)
            assert any(choice in line for line in board.splitlines()), (choice, board[-800:])
