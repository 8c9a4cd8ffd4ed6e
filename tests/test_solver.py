"""The solver: its verdicts and best scores agree with the plain baseline, its lines win, its hints are best moves.

Every test here runs twice: on the native kernel and on the pure solver (tests/test_kernel.py compares the two
directly)."""

from __future__ import annotations

import functools
import random
import shlex
import shutil
import sysconfig

import pytest

import core.solver
from core.deal import Deal, GameCode, Rules
from core.game import DRAW, Action, Game, Status, Tap
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, SLOT_COUNT, STOCK_SIZE
from core.solver import Solution, SolverHint, best_score_for, hint, solve
from core.solver_baseline import baseline_solve
from tests.core_helpers import cyclic_win_deal, make_deal, zigzag_win_deal

RULES = [Rules.EASY, Rules.CLASSIC]


@pytest.fixture(autouse=True, params=["native", "pure"])
def solver_kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Runs the test on the native kernel, then on the pure solver."""
    kind: str = request.param
    if kind == "pure":
        monkeypatch.setattr(core.solver, "_native", None)
    else:
        require_native()
    return kind


def require_native() -> None:
    """Fails when the kernel should have been built and was not; skips only where it cannot be (no C compiler:
    tests/test_kernel.py checks that the kernel is built where there is one)."""
    if core.solver._native is None:
        if not c_compiler():
            pytest.skip(f"the solver here is {core.solver.solver_description()}")
        pytest.fail(f"a C compiler is present and the native kernel is not built: {core.solver.solver_description()}")


def c_compiler() -> str | None:
    """The C compiler Python builds extensions with, when it is installed."""
    command = shlex.split(sysconfig.get_config_var("CC") or "cc")
    return shutil.which(command[0]) if command else None

# A top King whose every possible predecessor (the four Queens and, with the wrap, the Aces) lies below its
# covers, so it can never be removed: lost under both rule sets.
LOST = make_deal({0: "KC", 9: "QC", 10: "QD", 18: "QH", 19: "QS", 11: "AC", 20: "AD", 21: "AH"}, "AS")
# The same King with only the Queens below it: only an Ace can come right before it, so the deal can be won under
# Easy rules (King and Ace adjacent) and not under Classic.
WRAP_ONLY = make_deal({0: "KC", 9: "QC", 10: "QD", 18: "QH", 19: "QS"}, "5H")
#: deal 36 cannot be won under Easy rules; proving it takes a full search.
HARD_UNWINNABLE = GameCode(Rules.EASY, 36)


def replay(game: Game, line: tuple[Action, ...] | list[Action]) -> Game:
    """The game after ``line``; every action must be legal."""
    after = game.copy()
    for action in line:
        after.push(action)
    return after


def greedy_position(number: int, rules: Rules, rng: random.Random) -> Game:
    """A position some 16 to 26 actions into deal ``number``, played by a player who mostly taps a fitting card."""
    game = Game(Deal.from_number(number), rules)
    for _ in range(rng.randint(16, 26)):
        taps = [a for a in game.legal_actions() if isinstance(a, Tap)]
        if taps and rng.random() < 0.85:
            game.apply(rng.choice(taps))
        elif game.check(DRAW) is None:
            game.apply(DRAW)
    return game


def most_removable(game: Game) -> int:
    """Independent check for hints: the most tableau cards any line from ``game`` removes in all (memoised
    depth-first search; with the same removed cards and waste rank, fewer draws is never worse)."""
    ranks = [int(c.rank) for c in game.deal.tableau]
    stock = [int(c.rank) for c in game.deal.stock]
    seen: dict[tuple[int, int], int] = {}
    most = game.removed.bit_count()

    def visit(removed: int, drawn: int, waste: int) -> None:
        nonlocal most
        if seen.get((removed, waste), STOCK_SIZE + 1) <= drawn:
            return
        seen[(removed, waste)] = drawn
        most = max(most, removed.bit_count())
        for slot in range(SLOT_COUNT):
            if (not removed >> slot & 1 and removed & COVER_MASKS[slot] == COVER_MASKS[slot]
                    and game.rules.adjacent(ranks[slot], waste)):
                visit(removed | 1 << slot, drawn, ranks[slot])
        if drawn < STOCK_SIZE:
            visit(removed, drawn + 1, stock[drawn])

    visit(game.removed, game.drawn, int(game.waste.rank))
    return most


def assert_wins(game: Game, solution: Solution) -> None:
    assert solution.winnable and solution.line is not None
    won = replay(game, solution.line)
    assert won.status is Status.WON
    if solution.best_score is not None:
        assert won.score == solution.best_score
        assert sum(1 for a in solution.line if a == DRAW) == solution.min_draws


@functools.cache
def baseline_answers(rules: Rules) -> list[tuple[int, Game, Solution]]:
    """The baseline's answers on positions 16-26 actions into deals 0-99 that are still being played (the same for
    the native and the pure solver's run of the test below: the baseline takes most of its time)."""
    rng = random.Random(2024)
    games = [(number, greedy_position(number, rules, rng)) for number in range(100)]
    return [(number, game, baseline_solve(game, best=True, node_budget=400_000))
            for number, game in games if game.status is Status.PLAYING]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_verdicts_and_best_scores_agree_with_the_baseline(rules: Rules) -> None:
    # Positions 16-26 actions into 100 deals, where the exhaustive baseline takes tens of milliseconds (from the
    # start of a deal it takes about a second; bench/solver.py compares 1,000 deals from the start, by hand). 100
    # deals hold both verdicts under both rule sets (Classic: 20 winnable), at half the time of the 200 once here.
    compared = won = 0
    disagreements = []
    for number, game, reference in baseline_answers(rules):
        assert reference.winnable is not None, f"baseline too slow on deal {number}"
        found = solve(game, best=True)
        quick = solve(game)
        compared += 1
        won += bool(reference.winnable)
        if (found.winnable, found.min_draws, found.best_score, quick.winnable) != (
                reference.winnable, reference.min_draws, reference.best_score, reference.winnable):
            disagreements.append((number, game.actions(), reference, found, quick))
        if found.winnable:
            assert_wins(game, found)
            assert_wins(game, quick)
        else:
            assert found.line is None and quick.line is None
    assert disagreements == []
    assert compared >= 90 and 10 <= won <= compared - 10  # both verdicts well represented


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_lines_from_the_start_of_deals_win_with_the_best_score(rules: Rules) -> None:
    for number in range(20):
        game = Game(Deal.from_number(number), rules)
        best = solve(game, best=True)
        quick = solve(game)
        assert best.winnable == quick.winnable is not None
        if best.winnable:
            assert_wins(game, best)
            assert_wins(game, quick)
            assert best.min_draws is not None and best.best_score == 772 - best.min_draws
            assert sum(1 for a in quick.line or () if a == DRAW) >= (best.min_draws or 0)
        else:
            assert (best.line, best.min_draws, best.best_score) == (None, None, None)


def test_best_score_counts_cards_left_draws_and_peaks_not_yet_cleared() -> None:
    game = Game(cyclic_win_deal(), Rules.EASY)
    assert best_score_for(game, 0) == 500 - 28 + 300
    solution = solve(game, best=True)
    assert (solution.winnable, solution.min_draws, solution.best_score) == (True, 0, 772)
    # once a peak is cleared its 100 are in the score, and the best final score is still 772
    assert solution.line is not None
    cut = next(i for i in range(1, 28) if replay(game, solution.line[:i]).peaks_cleared() == 1)
    middle = replay(game, solution.line[:cut])
    assert middle.score == 500 - cut + 100
    again = solve(middle, best=True)
    assert (again.best_score, again.min_draws) == (772, 0)
    assert_wins(middle, again)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_a_hand_built_deal_won_without_a_draw(rules: Rules) -> None:
    game = Game(zigzag_win_deal(), rules)
    solution = solve(game, best=True)
    assert (solution.winnable, solution.min_draws, solution.best_score) == (True, 0, 772)
    assert_wins(game, solution)
    # one move from the end, the only move is the last card
    assert solution.line is not None
    last = replay(game, solution.line[:-1])
    assert solve(last, best=True).line == solution.line[-1:]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_a_hand_built_deal_that_is_lost_from_the_start(rules: Rules) -> None:
    game = Game(LOST, rules)
    for solution in (solve(game), solve(game, best=True)):
        assert (solution.winnable, solution.line, solution.min_draws, solution.best_score) == (False, None, None, None)


def test_a_deal_won_only_with_the_king_ace_wrap() -> None:
    easy, classic = Game(WRAP_ONLY, Rules.EASY), Game(WRAP_ONLY, Rules.CLASSIC)
    assert solve(classic).winnable is False and solve(classic, best=True).winnable is False
    solution = solve(easy, best=True)
    assert_wins(easy, solution)
    assert solution.line is not None
    before_king = replay(easy, solution.line[:solution.line.index(Tap(0))])
    assert before_king.waste.rank == 1  # the King followed an Ace


def test_a_won_game_needs_nothing_more() -> None:
    game = Game(zigzag_win_deal(), Rules.CLASSIC)
    line = solve(game).line
    assert line is not None
    won = replay(game, line)
    assert won.removed == ALL_SLOTS_MASK
    solution = solve(won, best=True)
    assert (solution.winnable, solution.line, solution.min_draws, solution.best_score) == (True, (), 0, won.score)
    assert hint(won) == SolverHint(None, True, won.score)


def test_budgets_give_unknown_never_unwinnable() -> None:
    game = Game.from_code(HARD_UNWINNABLE)
    assert solve(game).winnable is False
    assert solve(game, node_budget=500).winnable is None
    assert solve(game, best=True, node_budget=3_000).winnable is None
    assert solve(game, time_budget=0.0).winnable is None
    assert hint(game, time_budget=0.0).winnable is None


@pytest.mark.parametrize("number", [1, 2, 5])
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_a_hint_keeps_the_best_score_reachable(rules: Rules, number: int) -> None:
    game = Game(Deal.from_number(number), rules)
    best = solve(game, best=True)
    if not best.winnable:
        pytest.fail(f"deal {number} was chosen as winnable under {rules.value} rules")
    for _ in range(6):  # a few hints in a row, each followed
        advice = hint(game)
        assert advice.winnable is True and advice.best_score == best.best_score
        assert advice.action is not None and game.apply(advice.action).ok
        assert solve(game, best=True).best_score == best.best_score


def test_a_hint_in_a_lost_game_removes_the_most_cards() -> None:
    game = Game(LOST, Rules.CLASSIC)
    rng = random.Random(5)
    for _ in range(10):
        taps = [a for a in game.legal_actions() if isinstance(a, Tap)]
        game.apply(rng.choice(taps) if taps else DRAW)
    most = most_removable(game)
    assert most > game.removed.bit_count()
    advice = hint(game)
    assert advice.winnable is False and advice.best_score is None
    assert advice.action is not None and game.apply(advice.action).ok
    assert most_removable(game) == most


def test_a_hint_when_the_game_is_blocked_is_nothing() -> None:
    game = Game(LOST, Rules.CLASSIC)
    while game.status is Status.PLAYING:
        taps = [a for a in game.legal_actions() if isinstance(a, Tap)]
        assert game.apply(DRAW if game.check(DRAW) is None else taps[0]).ok
    assert game.status is Status.BLOCKED
    assert hint(game) == SolverHint(None, False, None)

