"""`tripeaks show`: the game message as each platform's adapter sends it, for screenshots and checks; and the
console's colours, only where they belong."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.model import BoardStyle, GameSnapshot, Hint, PlayerKey, Settings
from bot.cli import main
from bot.render.console import colour_tableau, console_text
from bot.render.game import render_game
from bot.render.platforms import telegram_rows
from core.game import Game, Tap


def show(*args: str) -> subprocess.CompletedProcess[str]:
    """``tripeaks show ARGS`` run by the command's ``main`` in this process (as tests/test_cli_engine.py runs the
    others): its exit status and what it printed. :func:`show_process` starts the command itself."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["show", *args])
    return subprocess.CompletedProcess(["tripeaks", "show", *args], status, out.getvalue(), err.getvalue())


def show_process(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "TELEGRAM_", "DATABASE_"))}
    return subprocess.run([sys.executable, "-m", "bot.cli", "show", *args], capture_output=True, text=True,
                          env=env, timeout=60, check=False)


def test_telegram_message_as_sent() -> None:
    from bot.adapters.telegram.keyboard import caption_text, keyboard, message_text

    done = show_process("TP1-E-AAAAAAB", "21", "--lang", "ja", "--platform", "telegram", "--board", "text",
                        "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    game = Game.from_code("TP1-E-AAAAAAB")
    game.apply(Tap(21))
    text_board = Settings(board=BoardStyle.TEXT)
    view = render_game(GameSnapshot(0, 1, PlayerKey("telegram", "0"), "", game), "ja", text_board)
    assert shown["text"] == message_text(view)
    assert shown["tableau"] == (view.tableau or "").split("\n")
    # the picture board (the default): a photo, the header and status its caption
    pictured = json.loads(show("TP1-E-AAAAAAB", "21", "--lang", "ja", "--platform", "telegram", "--json").stdout)
    picture_view = render_game(GameSnapshot(0, 1, PlayerKey("telegram", "0"), "", game), "ja", Settings())
    assert pictured["text"] == caption_text(picture_view) and pictured["tableau"] == []
    assert pictured["buttons"] == json.loads(done.stdout)["buttons"]
    markup = keyboard(view)
    assert markup is not None
    assert shown["buttons"] == [[{"label": b.text, "style": b.style} for b in row] for row in markup.inline_keyboard]
    assert any(b["style"] == "success" for row in shown["buttons"] for b in row)  # A♦ fits the K♣


def test_a_refused_action_is_shown_refused_and_a_malformed_one_is_exit_2() -> None:
    done = show("TP1-E-AAAAAAB", "18", "--platform", "discord", "--json")  # 2♣ on the Q♣
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert shown["notice"] == "2♣\ufe0e was not played. Must be one rank higher or lower"  # the card named (issue 27)
    # the refusal under the buttons, where it does not push them down
    assert shown["under_buttons"] == f"> {shown['notice']}" and shown["text"].startswith("### TP1-E-AAAAAAB")
    assert "```" not in shown["text"] and shown["tableau"] == []  # the picture is the board: no code block
    text = json.loads(show("TP1-E-AAAAAAB", "18", "--platform", "discord", "--board", "text", "--json").stdout)
    assert "```" in text["text"] and text["tableau"] and text["under_buttons"] == f"> {shown['notice']}"
    assert all(len(row) <= 5 and all(b["style"] in ("primary", "secondary", "success", "danger") for b in row)
               for row in shown["buttons"])
    bad = show("TP1-E-AAAAAAB", "zz", "--json")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
    assert show("TP1-E-AAAAAAB", "--lang", "xx", "--json").returncode == 2


def test_console_keys_in_show() -> None:
    done = show("TP1-E-AAAAAAB", "--platform", "console", "--json")
    shown = json.loads(done.stdout)
    labels = [b["label"] for row in shown["buttons"] for b in row]
    assert "[kc] K♣*" in labels and "[10h] 10♥" in labels and "[d] Draw" in labels
    assert "\x1b[" not in done.stdout


def test_console_colours_red_suits_and_fitting_cards() -> None:
    view = render_game(GameSnapshot(0, 0, PlayerKey("console", "0"), "", Game.from_code("TP1-E-AAAAAAB")), "en",
                       Settings())
    coloured = console_text(view, colour=True)
    assert "\x1b[1;32mK♧\x1b[0m" in coloured and "\x1b[1;32mX♡" not in coloured  # fits: green, outlined
    hinted = render_game(GameSnapshot(0, 0, PlayerKey("console", "0"), "", Game.from_code("TP1-E-AAAAAAB"),
                                      hint=Hint(Tap(21), True, 700)), "en", Settings())
    assert "\x1b[1;36m>K♧\x1b[0m" in console_text(hinted, colour=True)  # hinted: blue, its arrow kept
    assert "\x1b[31mA♦\x1b[0m" in coloured  # a red suit in red
    assert "\x1b[" not in console_text(view, colour=False)
    assert colour_tableau(" 2♣ ") == " 2♣ "  # a black card that does not fit: as it is
    assert len(telegram_rows(view)) == 3  # two rows of card places, then the controls on one


@pytest.mark.parametrize(("env", "tty", "colour"), [({}, True, True), ({"NO_COLOR": "1"}, True, False),
                                                    ({}, False, False), ({"TERM": "dumb"}, True, False)])
def test_the_console_colours_only_a_terminal_without_no_color(monkeypatch: pytest.MonkeyPatch, env: dict[str, str],
                                                               tty: bool, colour: bool) -> None:
    from bot.config import terminal_colour

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for key, value in env.items():
        monkeypatch.setenv(key, value)

    class Out(io.StringIO):
        def isatty(self) -> bool:
            return tty

    assert terminal_colour(Out()) is colour


def test_show_writes_the_picture_the_platform_would_get(tmp_path: Path) -> None:
    from bot.render.picture import draw_table
    from bot.render.table import seen_table, table_alt

    image = tmp_path / "board.png"
    done = show("TP1-E-AAAAAAB", "22", "--platform", "discord", "--lang", "de", "--image", str(image), "--json")
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    game = Game.from_code("TP1-E-AAAAAAB")
    game.push(Tap(22))
    png = image.read_bytes()
    assert png == draw_table(seen_table(game))
    assert shown["board"] == "picture"
    assert shown["image"] == {"width": 720, "height": 353, "bytes": len(png), "alt": table_alt(seen_table(game), "de")}
    assert shown["image"]["alt"].startswith("Offene Karten: 2♣, A♦ (passt)")
    four = show("TP1-E-AAAAAAB", "--four-colour", "--image", str(tmp_path / "four.png"), "--json")
    assert four.returncode == 0 and (tmp_path / "four.png").read_bytes() != draw_table(seen_table(Game.from_code(
        "TP1-E-AAAAAAB")))


def test_show_a_typed_in_layout_after_some_actions() -> None:
    layout = " ".join(str(card) for card in Game.from_code("TP1-C-AAAAAAD").deal.cards())
    by_layout = json.loads(show("--layout", layout, "--rules", "classic", "--after", "d", "d", "--json").stdout)
    by_code = json.loads(show("TP1-C-AAAAAAD", "d", "d", "--json").stdout)
    assert by_layout["image"]["alt"] == by_code["image"]["alt"] and "Stock: 21." in by_code["image"]["alt"]
    assert by_layout["tableau"] == by_code["tableau"]


def test_show_without_a_picture(tmp_path: Path) -> None:
    text = json.loads(show("TP1-E-AAAAAAB", "--board", "text", "--json").stdout)
    assert text["board"] == "text" and "image" not in text
    console = json.loads(show("TP1-E-AAAAAAB", "--platform", "console", "--json").stdout)
    assert console["board"] == "text" and "image" not in console  # the console is always text
    refused = show("TP1-E-AAAAAAB", "--board", "text", "--image", str(tmp_path / "x.png"), "--json")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "--image" in refused.stderr
    assert not (tmp_path / "x.png").exists()
    both = show("TP1-E-AAAAAAB", "--layout", "AC", "--json")
    assert both.returncode == 2 and "not both" in both.stderr
    unwritable = show("TP1-E-AAAAAAB", "--image", str(tmp_path / "no" / "such" / "dir.png"), "--json")
    assert unwritable.returncode == 2 and "cannot write" in unwritable.stderr
