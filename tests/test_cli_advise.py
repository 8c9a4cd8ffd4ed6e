"""`tripeaks advise`: the fair hint at a terminal, its JSON, and its one-line refusals."""

from __future__ import annotations

import pytest

from core.advisor import VisiblePosition, advise
from core.deal import Deal, Rules
from core.game import Action, Game
from tests.core_helpers import winning_line
from tests.test_cli_solve import run, run_json
from tests.test_solver import WRAP_ONLY


def test_advise_after_actions_prints_the_advisors_choice(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "advise", "tp1-e-aaaaaab", "--after", "21", "d", "--samples", "6", "--seed", "3")
    game = Game.from_code("TP1-E-AAAAAAB")
    for word in ("21", "d"):
        game.push(Action.parse(word))
    expected = advise(VisiblePosition.of(game), samples=6, seed=3)
    assert data == {"action": str(expected.action), "win_chance": expected.win_chance,
                    "raw_chance": expected.raw_chance, "samples": expected.samples_used}
    assert game.check(Action.parse(str(data["action"]))) is None  # an action `tripeaks play` takes


def test_advise_a_typed_in_layout_under_its_rule_set(capsys: pytest.CaptureFixture[str]) -> None:
    cards = str(WRAP_ONLY)
    for rules in Rules:
        data = run_json(capsys, "advise", "--layout", cards, "--rules", rules.value, "--samples", "4")
        expected = advise(VisiblePosition.of(Game(Deal.parse(cards), rules)), samples=4)
        assert (data["action"], data["win_chance"]) == (str(expected.action), expected.win_chance)


def test_advise_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "advise", "TP1-C-AAAAAAD", "--samples", "4")
    expected = advise(VisiblePosition.of(Game.from_code("TP1-C-AAAAAAD")), samples=4)
    assert status == 0 and err == ""
    assert expected.win_chance is not None and expected.raw_chance is not None
    assert out == (f"{expected.action}  (about {expected.win_chance:.0%} to win; wins in {expected.raw_chance:.0%} "
                   f"of {expected.samples_used} arrangements of the unseen cards)\n")


@pytest.mark.parametrize("argv", [
    ["advise", "TP1-E-AAAAAAB", "--after", "3"],  # a face-down card: refused
    ["advise", "TP1-E-AAAAAAB", "--after", "x"],
    ["advise", "TP1-X-AAAAAAB"],
    ["advise", "--layout", "AS 2S 3S"],
    ["advise"],
    ["advise", "TP1-E-AAAAAAB", "--samples", "0"],
    ["advise", "TP1-E-AAAAAAB", "--after", *[str(a) for a in winning_line("TP1-E-AAAAAAB")]],  # won already
])
def test_bad_input_or_a_finished_game_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str],
                                                               argv: list[str]) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.startswith("tripeaks: ") and err.count("\n") == 1


def test_advise_out_of_time_gives_no_chance(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "advise", "TP1-E-AAAAAAB", "--time-budget", "0.00001")
    assert data == {"action": None, "win_chance": None, "raw_chance": None, "samples": 0}
    status, out, err = run(capsys, "advise", "TP1-E-AAAAAAB", "--time-budget", "0.00001")
    assert status == 0 and err == "" and out == "no advice: no arrangement of the unseen cards was solved in time\n"
