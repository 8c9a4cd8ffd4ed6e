"""The post-game review: where a game was lost agrees with solving after every action, and `tripeaks review`."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

import pytest

from bot.cli import main
from core.deal import Deal, Rules
from core.game import DRAW, UNDO, Action, Draw, Game, IllegalActionError, Reason, Status, Tap, Undo
from core.layout import PEAK_OF
from core.review import review
from core.solver import solve
from tests.test_solver import LOST, WRAP_ONLY

# TP1-E-AAAAAAB played by always tapping the first fitting card, else drawing, until blocked (lost at action 25)
GREEDY = ("21 19 18 d d d 20 10 d 11 d d 22 d d d 9 23 25 24 14 26 d d d 3 16 4 0 27 d 13 12 17 5 d d d 15 7 d d 8 "
          "d 6 d 2 d d d").split()


def parse(words: Sequence[str]) -> list[Action]:
    return [Action.parse(word) for word in words]


def random_line(game: Game, rng: random.Random, undo_rate: float) -> list[Action]:
    """A player who mostly taps a fitting card, sometimes draws, and now and then undoes, until the game ends."""
    game = game.copy()
    actions: list[Action] = []
    while game.status is Status.PLAYING:
        taps = [a for a in game.legal_actions() if isinstance(a, Tap)]
        if game.undo_depth and rng.random() < undo_rate:
            action: Action = UNDO
        elif taps and (rng.random() < 0.85 or game.check(DRAW) is not None):
            action = rng.choice(taps)
        else:
            action = DRAW
        game.push(action)
        actions.append(action)
    return actions


def lost_at_by_brute_force(start: Game, actions: Sequence[Action]) -> int | None:
    """The last position that can be won, when the start can and the end cannot: solve the position after every
    action, from the end back to the first one that can be won (every action counts, an undone one too; no bisection
    as :func:`core.review.review` does)."""
    positions = [start.copy()]
    for action in actions:
        positions.append(positions[-1].copy())
        positions[-1].push(action)
    if not solve(positions[0]).winnable or solve(positions[-1]).winnable:
        return None
    return next(i for i in range(len(positions) - 1, -1, -1) if solve(positions[i]).winnable)


def replayed(start: Game, actions: Sequence[Action]) -> Game:
    game = start.copy()
    for action in actions:
        game.push(action)
    return game


@pytest.mark.parametrize("rules", [Rules.EASY, Rules.CLASSIC])
@pytest.mark.parametrize("undo_rate", [0.0, 0.15])
def test_lost_at_agrees_with_solving_after_every_action(rules: Rules, undo_rate: float) -> None:
    rng = random.Random(f"{rules.value}-{undo_rate}")
    lost = 0
    for number in range(6):
        start = Game(Deal.from_number(100 + number), rules)
        actions = random_line(start, rng, undo_rate)
        result = review(start, actions)
        assert result.lost_at == lost_at_by_brute_force(start, actions)
        end = replayed(start, actions)
        assert (result.won, result.score) == (end.status is Status.WON, end.score)
        assert result.winnable_at_start == solve(start).winnable
        if result.lost_at is not None:
            lost += 1
            before = replayed(start, actions[:result.lost_at])
            assert result.losing_action == actions[result.lost_at]
            assert not isinstance(result.losing_action, Undo)
            assert result.best_line is not None and result.best_line_score is not None
            assert replayed(before, result.best_line).status is Status.WON
            assert replayed(before, result.best_line).score == result.best_line_score
            assert result.best_score is not None and result.best_line_score <= result.best_score
    assert lost >= 3  # the sample does hold lost winnable deals


def test_a_lost_game_names_the_losing_card_its_peak_and_the_best_line() -> None:
    start = Game.from_code("TP1-E-AAAAAAB")
    actions = parse(GREEDY)
    result = review(start, actions)
    assert result.lost_at == lost_at_by_brute_force(start, actions) == 25
    assert result.losing_action == Tap(3)
    assert result.losing_card == start.card_at(3)
    assert result.losing_peak == PEAK_OF[3] == 0 and result.losing_peak_name == "left"
    assert (result.won, result.winnable_at_start, result.best_score) == (False, True, 759)
    assert result.best_line == solve(replayed(start, actions[:25]), best=True).line


def test_lost_at_is_the_last_losing_move_when_undo_came_back() -> None:
    start = Game.from_code("TP1-E-AAAAAAB")
    lost = parse(GREEDY)
    standing = [a for a in lost if not isinstance(a, Undo)]
    back = [UNDO] * (len(standing) - 25)  # back to the position before the losing move: winnable again
    assert review(start, lost + back).lost_at is None
    again = lost + back + [Tap(3)]
    assert review(start, again).lost_at == len(again) - 1 == lost_at_by_brute_force(start, again)


@pytest.mark.parametrize("code", ["TP1-E-AAAAAAB", "TP1-C-AAAAAAD"])
def test_following_a_best_line_wins_with_the_best_score(code: str) -> None:
    start = Game.from_code(code)
    line = solve(start, best=True).line
    assert line is not None
    result = review(start, line)
    assert result.won and result.winnable_at_start and result.lost_at is None
    assert result.score == result.best_score == solve(start, best=True).best_score
    assert result.losing_action is None and result.best_line is None


@pytest.mark.parametrize(("deal", "rules"), [(LOST, Rules.EASY), (LOST, Rules.CLASSIC), (WRAP_ONLY, Rules.CLASSIC)])
def test_a_deal_that_cannot_be_won_has_no_losing_move(deal: Deal, rules: Rules) -> None:
    start = Game(deal, rules)
    actions = random_line(start, random.Random(1), 0.0)
    result = review(start, actions)
    assert not result.winnable_at_start and result.best_score is None
    assert result.lost_at is None and not result.won


def test_longest_chain_counts_removals_with_no_draw_or_undo_between() -> None:
    start = Game.from_code("TP1-E-AAAAAAB")  # waste QC; slot 21 KC, 19 AD, 18 2C
    assert review(start, parse("21 19 18 d".split())).longest_chain == 3
    assert review(start, parse("21 19 u 19 18".split())).longest_chain == 2
    assert review(start, parse(GREEDY)).longest_chain == 6  # 9 23 25 24 14 26
    assert review(start, [DRAW, DRAW]).longest_chain == 0


def test_refused_actions_raise_the_engine_error() -> None:
    start = Game.from_code("TP1-E-AAAAAAB")
    with pytest.raises(IllegalActionError) as refused:
        review(start, parse("21 21".split()))
    assert refused.value.reason is Reason.REMOVED
    after_draw = replayed(start, [DRAW])
    with pytest.raises(IllegalActionError) as refused:  # undo never goes back past the start of the review
        review(after_draw, [UNDO])
    assert refused.value.reason is Reason.NOTHING_TO_UNDO
    assert after_draw.stock_left == 22 and isinstance(after_draw.actions()[0], Draw)  # the start is left alone


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_review_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "review", "tp1-e-aaaaaab", *GREEDY, "--json")
    assert status == 0 and err == ""
    expected = review(Game.from_code("TP1-E-AAAAAAB"), parse(GREEDY))
    assert json.loads(out) == {"won": False, "score": expected.score, "best_score": 759, "winnable_at_start": True,
                               "lost_at": 25, "longest_chain": 6}


def test_cli_review_text_names_the_losing_move(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "review", "TP1-E-AAAAAAB", *GREEDY)
    assert status == 0
    assert "best possible 759" in out and "lost by action 25 (slot 3" in out and "left peak" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["review", "TP1-E-AAAAAAB", "21", "21"], "action 21 refused: removed"),
    (["review", "TP1-E-AAAAAAB", "u"], "refused: nothing_to_undo"),
    (["review", "TP1-E-AAAAAAB", "28"], "not an action: '28'"),
    (["review", "TP1-E-AAAA", "21"], "not a game code"),
])
def test_cli_review_bad_input_is_one_line_and_exit_status_2(capsys: pytest.CaptureFixture[str], argv: list[str],
                                                             message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err
