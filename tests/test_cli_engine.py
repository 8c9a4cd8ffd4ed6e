"""`tripeaks deal` and `tripeaks play`, as a person at a terminal uses them."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bot.cli import main
from tests.test_core_rules import GOLDEN


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_deal_json_prints_the_full_layout(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "tp1-n-aaaaaab", "--json")
    data = json.loads(out)
    assert status == 0
    assert data["code"] == "TP1-E-AAAAAAB" and data["rules"] == "easy"
    assert " ".join([*data["tableau"], data["waste"], *data["stock"]]) == GOLDEN["TP1-E-AAAAAAB"]


def test_play_json_reports_each_action_and_the_position(capsys: pytest.CaptureFixture[str]) -> None:
    # TP1-E-AAAAAAB: waste QC; bottom row 2C AD 6S KC KH TH TS JS TD 8S (slots 18-27)
    status, out, _ = run(capsys, "play", "TP1-E-AAAAAAB", "21", "21", "0", "18", "d", "u", "u", "--json")
    data = json.loads(out)
    assert status == 0
    assert [(e["action"], e["ok"], e["reason"]) for e in data["log"]] == [
        ("21", True, None), ("21", False, "removed"), ("0", False, "blocked"), ("18", False, "not_adjacent"),
        ("d", True, None), ("u", True, None), ("u", True, None)]
    assert data["score"] == 500 and data["moves"] == 2 and data["waste"] == "QC" and data["stock_left"] == 23
    assert data["status"] == "playing"
    assert data["tableau"][21] == {"card": "KC", "face_up": True, "removed": False}
    assert data["tableau"][0] == {"card": "7D", "face_up": False, "removed": False}


def test_play_text_shows_slots_to_type(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "play", "TP1-E-AAAAAAB", "21")
    assert status == 0
    assert "score 499" in out and "21:" not in out and " 22:KH" in out and "waste KC" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["deal", "TP1-E-AAAA"], "not a game code"),
    (["play", "TP1-E-AAAAAAB", "28"], "not an action: '28'"),
    (["play", "TP1-E-AAAAAAB", "x"], "not an action"),
    (["deal"], "the following arguments are required: code"),
    (["shuffle"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_status_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                  message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("tripeaks: ")


def test_the_installed_command_runs() -> None:
    done = subprocess.run([sys.executable, "-m", "bot.cli", "deal", "TP1-C-AAAAAAD", "--json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["rules"] == "classic"
    bad = subprocess.run([sys.executable, "-m", "bot.cli", "play", "nonsense"], capture_output=True, text=True,
                         check=False)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
