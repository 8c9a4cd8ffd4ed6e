"""The plain reference solver: a memoised depth-first search over (removed cards, cards drawn, waste rank).

It has no pruning beyond remembering the positions already explored, so it is slow on hard deals but simple
enough to trust; the bench measures :mod:`core.solver` against it and the tests check that both agree.

>>> from core.game import Game
>>> baseline_solve(Game.from_code("TP1-E-AAAAAAB")).winnable
True
"""

from __future__ import annotations

import time

from core.game import DRAW, Action, Game, Tap
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, SLOT_COUNT, STOCK_SIZE
from core.solver import Solution, best_score_for

_UNWINNABLE = STOCK_SIZE + 1  # "further draws" of a position that cannot be won


class _BudgetExceeded(Exception):
    pass


def baseline_solve(game: Game, *, best: bool = False, node_budget: int | None = None) -> Solution:
    """Solve ``game``'s current position by plain memoised depth-first search.

    With ``best`` the search is exhaustive and also finds the fewest further draws; otherwise it stops at the
    first win. When ``node_budget`` positions have been expanded the answer is unknown (``winnable`` None).
    """
    started = time.perf_counter()
    ranks = [int(card.rank) for card in game.deal.tableau]
    stock = [int(card.rank) for card in game.deal.stock]
    wraps = game.rules.wraps

    def fits(a: int, b: int) -> bool:
        diff = abs(a - b)
        return diff == 1 or (wraps and diff == 12)

    def moves(removed: int, drawn: int, waste: int) -> list[tuple[Action, int, int, int]]:
        found: list[tuple[Action, int, int, int]] = []
        for slot in range(SLOT_COUNT):
            bit = 1 << slot
            if not removed & bit and removed & COVER_MASKS[slot] == COVER_MASKS[slot] and fits(ranks[slot], waste):
                found.append((Tap(slot), removed | bit, drawn, ranks[slot]))
        if drawn < STOCK_SIZE:
            found.append((DRAW, removed, drawn + 1, stock[drawn]))
        return found

    nodes = 0
    failed: set[tuple[int, int, int]] = set()
    further: dict[tuple[int, int, int], int] = {}

    def win_line(removed: int, drawn: int, waste: int) -> list[Action] | None:
        """A winning line from here (reversed), or None."""
        nonlocal nodes
        if removed == ALL_SLOTS_MASK:
            return []
        key = (removed, drawn, waste)
        if key in failed:
            return None
        nodes += 1
        if node_budget is not None and nodes > node_budget:
            raise _BudgetExceeded
        for action, *child in moves(removed, drawn, waste):
            line = win_line(*child)
            if line is not None:
                line.append(action)
                return line
        failed.add(key)
        return None

    def fewest_draws(removed: int, drawn: int, waste: int) -> int:
        """The fewest further draws any win from here needs, or _UNWINNABLE."""
        nonlocal nodes
        if removed == ALL_SLOTS_MASK:
            return 0
        key = (removed, drawn, waste)
        known = further.get(key)
        if known is not None:
            return known
        nodes += 1
        if node_budget is not None and nodes > node_budget:
            raise _BudgetExceeded
        result = _UNWINNABLE
        for action, *child in moves(removed, drawn, waste):
            result = min(result, fewest_draws(*child) + (action is DRAW))
        further[key] = result
        return result

    start = (game.removed, game.drawn, int(game.waste.rank))
    try:
        if not best:
            line = win_line(*start)
            if line is None:
                return Solution(False, None, None, None, nodes, time.perf_counter() - started)
            return Solution(True, tuple(reversed(line)), None, None, nodes, time.perf_counter() - started)
        draws = fewest_draws(*start)
        if draws >= _UNWINNABLE:
            return Solution(False, None, None, None, nodes, time.perf_counter() - started)
        best_line: list[Action] = []
        state = start
        while state[0] != ALL_SLOTS_MASK:
            target = fewest_draws(*state)
            for action, *child in moves(*state):
                if fewest_draws(*child) + (action is DRAW) == target:
                    best_line.append(action)
                    state = (child[0], child[1], child[2])
                    break
        seconds = time.perf_counter() - started
        return Solution(True, tuple(best_line), draws, best_score_for(game, draws), nodes, seconds)
    except _BudgetExceeded:
        return Solution(None, None, None, None, nodes, time.perf_counter() - started)
    finally:  # the nested functions refer to each other: free their tables now, not at the next collection
        failed.clear()
        further.clear()
