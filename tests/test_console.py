"""The console chat and `tripeaks run` as a newcomer meets them: real processes, scripted standard input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.deal import GameCode, Rules
from core.game import DRAW, Draw, Game, Status


def tripeaks(tmp_path: Path, *args: str, stdin: str = "", env: dict[str, str] | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the installed command in a clean folder with its own SQLite database."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
    full_env |= {"DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'games.db'}", "LOG_LEVEL": "WARNING"}
    full_env |= env or {}
    return subprocess.run([sys.executable, "-m", "bot.cli", *args], input=stdin, capture_output=True, text=True,
                          cwd=tmp_path, env=full_env, timeout=timeout, check=False)


def winning_script(code: GameCode) -> tuple[list[str], Game]:
    """The console lines that play a solver's winning line: card names for taps, d for draws."""
    from core.solver import solve

    game = Game.from_code(code)
    solution = solve(game)
    assert solution.winnable and solution.line is not None
    lines = []
    for action in solution.line:
        lines.append("d" if isinstance(action, Draw) else str(game.card_at(action.slot)))  # type: ignore[attr-defined]
        game.push(action)
    assert game.status is Status.WON
    return lines, game


def blocked_by_drawing() -> tuple[GameCode, Game]:
    """A deal that ends blocked when the player only draws."""
    for number in range(1000):
        game = Game.from_code(GameCode(Rules.CLASSIC, number))
        for _ in range(23):
            game.push(DRAW)
        if game.status is Status.BLOCKED:
            return GameCode(Rules.CLASSIC, number), game
    raise AssertionError("no such deal among the first 1000")


def test_a_scripted_game_played_to_a_win(tmp_path: Path) -> None:
    code = GameCode(Rules.EASY, 1)
    lines, won = winning_script(code)
    done = tripeaks(tmp_path, "console", "--user", "ann", stdin="\n".join([f"new {code}", *lines, ""]))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"{code}" in out
    assert "You won" in out and f"{won.score}" in out
    assert out.rstrip().endswith("Goodbye! Your game is saved.")
    assert "Traceback" not in done.stderr


def test_a_scripted_game_to_a_blocked_end_then_undo_after_a_restart(tmp_path: Path) -> None:
    code, blocked = blocked_by_drawing()
    done = tripeaks(tmp_path, "console", "--user", "bob", stdin=f"new {code}\n" + "d\n" * 23)
    assert done.returncode == 0, done.stderr
    assert "No more possible moves" in done.stdout
    # the game was saved: a new session opens on it, and undo works on a blocked game
    again = tripeaks(tmp_path, "console", "--user", "bob", stdin="u\n")
    assert again.returncode == 0, again.stderr
    first_screen = again.stdout.split("\n\n\n")[0]
    assert str(code) in first_screen and "No more possible moves" in first_screen
    assert "▒▒  1  [" in again.stdout  # after the undo, one card back in the stock (its count on the board)


def test_the_console_speaks_the_chosen_language(tmp_path: Path) -> None:
    done = tripeaks(tmp_path, "console", "--user", "olena", "--lang", "uk", stdin="rules\n")
    assert done.returncode == 0, done.stderr
    assert "Легкий" in done.stdout or "Легк" in done.stdout
    assert "Goodbye" not in done.stdout


def test_a_card_that_is_not_face_up_is_refused_without_revealing_anything(tmp_path: Path) -> None:
    code = GameCode(Rules.EASY, 1)
    hidden = Game.from_code(code).card_at(0)  # a top card, face down
    done = tripeaks(tmp_path, "console", "--user", "cat", stdin=f"new {code}\n{hidden}\nzz\n")
    assert done.returncode == 0, done.stderr
    after_the_deal = done.stdout.split(str(code))[-1]  # the console first opened on a random deal of its own
    assert "That card is not in play yet" in after_the_deal and hidden.symbol() not in after_the_deal
    assert "That is not a card: write one like 7h = 7♥ or QS = Q♠ (h ♥, d ♦, c ♣, s ♠)" in done.stdout


def test_run_without_tokens_starts_the_console_after_a_one_line_notice(tmp_path: Path) -> None:
    done = tripeaks(tmp_path, "run", stdin="quit\n")
    assert done.returncode == 0, done.stderr
    first, *rest = done.stdout.splitlines()
    assert "No DISCORD_TOKEN or TELEGRAM_TOKEN" in first
    assert "Score: 500" in "\n".join(rest)


@pytest.mark.parametrize(("env", "named"), [
    ({"DISCORD_TOKEN": "not-a-token"}, "DISCORD_TOKEN"),
    ({"TELEGRAM_TOKEN": "12345"}, "TELEGRAM_TOKEN"),
    ({"DATABASE_URL": "mysql://root@localhost/x"}, "DATABASE_URL"),
    ({"DAILY_POST_TIME": "25:99"}, "DAILY_POST_TIME"),
    ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
])
def test_a_configuration_error_is_one_line_and_exit_status_2(tmp_path: Path, env: dict[str, str],
                                                             named: str) -> None:
    done = tripeaks(tmp_path, "run", env=env)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and named in done.stderr and "Traceback" not in done.stderr


def test_a_malformed_token_never_shows_up_in_the_error(tmp_path: Path) -> None:
    secret = "123456:short-but-secret"
    done = tripeaks(tmp_path, "run", env={"TELEGRAM_TOKEN": secret})
    assert done.returncode == 2 and secret not in done.stderr + done.stdout


def test_an_unreachable_database_is_one_line_and_exit_status_2(tmp_path: Path) -> None:
    done = tripeaks(tmp_path, "console", env={"DATABASE_URL": "postgresql+asyncpg://nobody@127.0.0.1:9/none"},
                    timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "database" in done.stderr


def test_the_console_command_prints_the_tables_link(tmp_path: Path) -> None:
    """``tripeaks console`` serves the table in the browser too and prints its one-time link, as the console game
    started without tokens does (issue 54: it printed none)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = tripeaks(tmp_path, "console", "--user", "ann", stdin="quit\n", env={"WEB_PORT": str(port)})
    assert done.returncode == 0, done.stderr
    assert "Play in your browser: http://127.0.0.1:" in done.stdout and "/#token=" in done.stdout, done.stdout
