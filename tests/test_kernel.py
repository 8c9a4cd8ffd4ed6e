"""The native kernel against the pure solver, the reference: the same verdicts, best scores, lines, hints, action
verdicts and node counts (so the same node-budget cut-offs) on a fixed sample of deals and mid-game positions of
both rule sets (10,000 positions of both: tests/test_kernel_differential.py); and on 10,000 more positions
(5,000 random deals of each rule set, from their start or some moves in) the kernel's own answers checked against
each other and the rules: its best line replays to a win with its fewest draws, its quick verdict agrees, its node
count is where a node budget cuts it off. (Best scores follow from the fewest draws by core.solver.best_score_for, on both.)"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple, replace

import pytest

import core.solver
from bot.cli import main
from core.deal import Deal, Rules
from core.game import Game, Status
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, SLOT_COUNT, STOCK_SIZE
from core.solver import Solution, hint, solve, winnable_actions
from tests.test_solver import RULES, c_compiler, greedy_position, require_native


@pytest.fixture(autouse=True)
def _native_kernel() -> None:
    require_native()


def test_the_kernel_is_built_where_a_c_compiler_is() -> None:
    assert c_compiler() is not None or core.solver._native is None
    if core.solver._native is not None:
        assert core.solver.solver_description().startswith("native")


def test_tripeaks_solver_pure_makes_the_command_run_the_pure_solver(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(core.solver, "_native", core.solver._native)  # restored after the test
    monkeypatch.setattr(core.solver, "_WHY_PURE", core.solver._WHY_PURE)
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.endswith("solver: native (C kernel, core/_kernel.c)\n")
    monkeypatch.setenv("TRIPEAKS_SOLVER", "pure")
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.endswith("solver: pure Python (TRIPEAKS_SOLVER=pure)\n")
    assert core.solver._native is None


def answers(game: Game, node_budgets: tuple[int, ...]) -> list[object]:
    """Everything the solver says about a position but the time it took."""
    ranks = [int(card.rank) for card in game.deal.tableau]
    stock = [int(card.rank) for card in game.deal.stock]
    found: list[object] = [untimed(solve(game)), untimed(solve(game, best=True)), hint(game, time_budget=None)]
    for budget in node_budgets:
        found += [untimed(solve(game, node_budget=budget)), untimed(solve(game, best=True, node_budget=budget)),
                  winnable_actions(game.rules, ranks, stock, game.removed, game.drawn, int(game.waste.rank),
                                   node_budget=budget)]
    return found


def untimed(solution: Solution) -> tuple[object, ...]:
    return astuple(replace(solution, seconds=0.0))


def pure(game: Game, node_budgets: tuple[int, ...], monkeypatch: pytest.MonkeyPatch) -> list[object]:
    with monkeypatch.context() as patch:
        patch.setattr(core.solver, "_native", None)
        return answers(game, node_budgets)


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_the_kernel_returns_what_the_pure_solver_returns(rules: Rules, monkeypatch: pytest.MonkeyPatch) -> None:
    # 8 deals from their start (the pure solver's slowest: some 0.2 s each for all of this) and 80 positions
    # 16-26 moves in; budgets below, around and above what the searches take, so that some run out in the quick
    # search, some in the sweep and some not at all
    rng = random.Random(40)
    positions = [Game(Deal.from_number(number), rules) for number in range(8)]
    positions += [greedy_position(number, rules, rng) for number in range(100, 180)]
    compared = cut_off = 0
    for game in positions:
        if game.status is not Status.PLAYING:
            continue
        budgets = (700, 2_500, 12_000) if game.removed else (2_500, 30_000)
        native = answers(game, budgets)
        assert native == pure(game, budgets, monkeypatch), game.actions()
        compared += 1
        cut_off += sum(1 for answer in native if isinstance(answer, tuple) and answer[0] is None)
    assert compared >= 80 and cut_off >= 30  # the budgets did cut searches off


def random_position(rng: random.Random, wraps: bool) -> tuple[list[int], list[int], int, int, int]:
    """A random deal's ranks (28 tableau, 23 stock) and a position some random legal moves in, or its start:
    (ranks, stock, removed, drawn, waste). Mostly deep positions: from the start the kernel takes some 3 ms."""
    deck = [rank for rank in range(1, 14) for _ in range(4)]
    rng.shuffle(deck)
    ranks, stock, waste = deck[:SLOT_COUNT], deck[SLOT_COUNT:-1], deck[-1]
    fitting = {rank: [slot for slot in range(SLOT_COUNT) if fits(ranks[slot], rank, wraps)] for rank in range(1, 14)}
    removed = drawn = 0
    for _ in range(rng.choice((0, 14, 16, 18, 20, 22, 24, 26, 28, 30))):
        taps = [slot for slot in fitting[waste] if free(removed, slot)]
        if taps and (rng.random() < 0.8 or drawn == STOCK_SIZE):
            slot = rng.choice(taps)
            removed, waste = removed | 1 << slot, ranks[slot]
        elif drawn < STOCK_SIZE:
            drawn, waste = drawn + 1, stock[drawn]
    return ranks, stock, removed, drawn, waste


def free(removed: int, slot: int) -> bool:
    return not removed >> slot & 1 and removed & COVER_MASKS[slot] == COVER_MASKS[slot]


def fits(rank: int, waste: int, wraps: bool) -> bool:
    return abs(rank - waste) == 1 or (wraps and abs(rank - waste) == 12)


def replays_to_a_win(line: tuple[int, ...], ranks: list[int], stock: list[int], removed: int, drawn: int,
                     waste: int, wraps: bool) -> bool:
    """Whether the kernel's line (a slot per removal, -1 per draw) is legal move by move and clears the tableau."""
    for code in line:
        if code < 0:
            if drawn == STOCK_SIZE:
                return False
            drawn, waste = drawn + 1, stock[drawn]
        elif free(removed, code) and fits(ranks[code], waste, wraps):
            removed, waste = removed | 1 << code, ranks[code]
        else:
            return False
    return removed == ALL_SLOTS_MASK


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_on_5000_deals_the_kernels_lines_win_with_its_fewest_draws(rules: Rules) -> None:
    # Straight to the kernel, at the level of ranks: Game objects would cost more than the kernel's searches.
    kernel = core.solver._native
    assert kernel is not None
    rng = random.Random(40 + rules.wraps)
    won = lost = 0
    for number in range(5_000):
        ranks, stock, removed, drawn, waste = position = random_position(rng, rules.wraps)
        if removed == ALL_SLOTS_MASK:
            continue
        verdict, line, nodes = kernel.solve(rules.wraps, *position, True, None, None)
        if verdict:
            won += 1
            assert line is not None and replays_to_a_win(line, *position, rules.wraps), position
        else:
            lost += 1
            assert (verdict, line) == (False, None), position
        quick, quick_line, _ = kernel.solve(rules.wraps, *position, False, None, None)
        assert quick == verdict, position
        if quick:
            assert quick_line is not None and replays_to_a_win(quick_line, *position, rules.wraps), position
            assert quick_line.count(-1) >= line.count(-1), position  # the best line has the fewest draws
        if number % 10 == 0:  # a node budget cuts the search off exactly past the count it reports
            assert kernel.solve(rules.wraps, *position, True, nodes, None)[0] == verdict, position
            assert kernel.solve(rules.wraps, *position, True, nodes - 1, None)[0] is None, position
    assert won + lost >= 4_900 and min(won, lost) >= 100


def test_searches_in_threads_at_once_answer_as_one_at_a_time() -> None:
    # the kernel runs without the GIL and keeps one set of buffers between calls: threads must not share it
    games = [Game(Deal.from_number(number), rules) for number in range(20) for rules in RULES]
    alone = [untimed(solve(game, best=True)) for game in games]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda game: untimed(solve(game, best=True)), games))
    assert together == alone
