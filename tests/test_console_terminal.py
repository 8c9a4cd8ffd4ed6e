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
