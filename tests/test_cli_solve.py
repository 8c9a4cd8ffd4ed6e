"""`tripeaks solve` and `tripeaks hint`, as a person at a terminal uses them."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from core.deal import Deal, Rules
from core.game import Action, Game, Status
from core.solver import solve
from tests.test_solver import LOST, WRAP_ONLY


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    status, out, err = run(capsys, *argv, "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def replayed(game: Game, words: object) -> Game:
    assert isinstance(words, list)
    for word in words:
        game.push(Action.parse(word))
    return game


def test_solve_a_code_prints_a_winning_line(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "solve", "tp1-e-aaaaaab")
    assert set(data) == {"code", "rules", "winnable", "line", "min_draws", "best_score", "nodes", "seconds"}
    assert (data["code"], data["rules"], data["winnable"]) == ("TP1-E-AAAAAAB", "easy", True)
    assert (data["min_draws"], data["best_score"]) == (None, None)
    assert isinstance(data["nodes"], int) and isinstance(data["seconds"], float)
    assert replayed(Game.from_code("TP1-E-AAAAAAB"), data["line"]).status is Status.WON


def test_solve_best_after_actions_scores_the_line(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "solve", "TP1-C-AAAAAAD", "--after", "d", "d", "--best")
    game = replayed(Game.from_code("TP1-C-AAAAAAD"), ["d", "d"])
    expected = solve(game, best=True)
    assert (data["winnable"], data["min_draws"], data["best_score"]) == (True, expected.min_draws,
                                                                         expected.best_score)
    won = replayed(game, data["line"])
    assert won.status is Status.WON and won.score == data["best_score"]


def test_solve_a_typed_in_layout_under_each_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    cards = str(WRAP_ONLY)
    easy = run_json(capsys, "solve", "--layout", cards, "--rules", "easy", "--best")
    classic = run_json(capsys, "solve", "--layout", cards, "--rules", "classic")
    assert (easy["code"], easy["rules"], easy["winnable"]) == (None, "easy", True)
    assert replayed(Game(WRAP_ONLY, Rules.EASY), easy["line"]).score == easy["best_score"]
    assert (classic["rules"], classic["winnable"], classic["line"], classic["best_score"]) == (
        "classic", False, None, None)


def test_solve_text_says_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "solve", "--layout", str(LOST), "--rules", "classic")
    assert status == 0 and "cannot be won" in out and "line" not in out


@pytest.mark.parametrize(("argv", "message"), [
    (["solve", "--layout", " ".join(str(LOST).split()[:51])], "a layout has 52 cards, got 51"),
    (["solve", "--layout", str(LOST).replace("KS", "KC")], "cards appear twice: KC"),
    (["solve", "--layout", str(LOST).replace("KS", "KX")], "not a card: 'KX'"),
    (["solve"], "give a game code or --layout"),
    (["solve", "TP1-E-AAAAAAB", "--layout", str(LOST)], "not both"),
    (["solve", "TP1-E-AAAAAAB", "--rules", "classic"], "a game code names its rules"),
    (["solve", "TP1-E-AAAAAAB", "--after", "0"], "action 0 refused: blocked"),
    (["solve", "TP1-E-AAAAAAB", "--rules", "hard"], "invalid choice"),
    (["hint", "TP1-E-AAAAAAB", "29"], "not an action: '29'"),
    (["hint", "TP1-X-AAAAAAB"], "not a game code"),
])
def test_bad_input_is_one_line_and_exit_status_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                  message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("tripeaks: ")


def test_hint_gives_the_next_action_of_a_best_line(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "hint", "TP1-E-AAAAAAB", "25")
    game = replayed(Game.from_code("TP1-E-AAAAAAB"), ["25"])
    best = solve(game, best=True).best_score
    assert set(data) == {"action", "winnable", "best_score"}
    assert data["winnable"] is True and data["best_score"] == best
    assert solve(replayed(game, [data["action"]]), best=True).best_score == best


def test_hint_when_the_deal_cannot_be_won(capsys: pytest.CaptureFixture[str]) -> None:
    code = "TP1-E-AAAAABK"  # deal 36
    assert Game.from_code(code).deal == Deal.from_number(36)
    data = run_json(capsys, "hint", code)
    assert data["winnable"] is False and data["best_score"] is None
    assert isinstance(data["action"], str) and Game.from_code(code).apply(Action.parse(data["action"])).ok
    status, out, _ = run(capsys, "hint", code)
    assert status == 0 and "cannot be won any more" in out
