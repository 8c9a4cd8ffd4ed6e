"""The native kernel against the pure solver on 10,000 positions (issue 40): 5,000 random deals of each rule set,
one in ten from its start and the others 14-30 random moves in, each solved for the best score by both. They must
give the same verdict, the same fewest draws (so the same best score), the same node count, and the kernel's line
must replay move by move to a win with that many draws; one position in 25 is solved again under a node budget one
short of the count, which both must give up on. The pure solver takes some 7 ms a position, so the positions are
split into chunks that the test workers share (`make test` runs this module; `make check` leaves it out)."""

from __future__ import annotations

import random

import pytest

import core.solver
from core.deal import Rules
from core.game import DRAW
from core.layout import ALL_SLOTS_MASK
from core.solver import _Budget, _OutOfBudget, _Position, _search
from tests.test_kernel import random_position, replays_to_a_win
from tests.test_solver import RULES, require_native

#: Positions of each rule set, and how many chunks they are cut into.
POSITIONS = 5_000
CHUNKS = 5


def pure_best(rules: Rules, ranks: list[int], stock: list[int], removed: int, drawn: int, waste: int,
              node_budget: int | None = None) -> tuple[bool | None, int | None, int]:
    """The pure solver's verdict, fewest further draws and node count (verdict None: out of budget)."""
    budget = _Budget(node_budget, None)
    try:
        won, line, _ = _search(_Position.of_ranks(rules, tuple(ranks), tuple(stock), removed, drawn, waste), budget,
                               True)
    except _OutOfBudget:
        return None, None, budget.nodes
    return won, line.count(DRAW) if won else None, budget.nodes


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.value)
def test_the_kernel_and_the_pure_solver_agree_on_10000_positions(rules: Rules, chunk: int) -> None:
    require_native()
    kernel = core.solver._native
    assert kernel is not None
    rng = random.Random(400 + rules.wraps)
    size = POSITIONS // CHUNKS
    positions = [random_position(rng, rules.wraps) for _ in range(POSITIONS)][chunk * size:(chunk + 1) * size]
    compared = won = 0
    for number, position in enumerate(positions):
        ranks, stock, removed, drawn, waste = position
        if removed == ALL_SLOTS_MASK:
            continue
        verdict, line, nodes = kernel.solve(rules.wraps, ranks, stock, removed, drawn, waste, True, None, None)
        assert pure_best(rules, *position) == (verdict, None if line is None else line.count(-1), nodes), position
        if verdict:
            won += 1
            assert line is not None and replays_to_a_win(line, *position, rules.wraps), position
        if number % 25 == 0 and nodes > 1:  # one node short of the count: both give up
            assert kernel.solve(rules.wraps, ranks, stock, removed, drawn, waste, True, nodes - 1, None)[0] is None
            assert pure_best(rules, *position, node_budget=nodes - 1)[0] is None, position
        compared += 1
    assert compared >= size - 10 and 0 < won < compared
