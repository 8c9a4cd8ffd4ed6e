"""An exact solver: whether a position can still be won, a winning line, the fewest draws any win needs (and so
the best score still reachable), and a hint.

Only ranks matter, and a position is fully described by the removed cards (a 28-bit mask), the number of cards
drawn and the waste rank. With the same removed cards and waste rank, having drawn fewer cards is never worse (the
extra stock cards can be drawn and passed over), so what matters about a (mask, waste rank) pair is the fewest draws
that reach it.

The main engine is a sweep over the masks in order of their number of removed cards. A removal adds one card to
the mask, and a draw keeps the mask, so the fewest draws reaching every (mask, waste rank) can be computed in one
pass: for each mask ``m`` keep ``A[w]``, the fewest draws reaching ``m`` with the last removed card of rank ``w`` on
the waste, and ``L = min(A)``, the fewest draws reaching ``m`` at all. From ``m`` a free card ``x`` of rank ``r``
can follow a waste of rank ``r - 1`` or ``r + 1`` (``A[r - 1]``, ``A[r + 1]``), or the first stock card adjacent to
``r`` drawn from ``L`` on (drawing and passing over the others). Each mask is handled once, whatever its number of
waste ranks and draw counts, so even a deal that cannot be won (where every reachable position has to be seen) costs
a few tens of milliseconds. A quick depth-first search runs first: it answers "winnable?" for most deals in a
millisecond, and its line bounds the draws the sweep needs to consider.

Masks that can no longer lead to a win are skipped; the pruning is sound: a top or second-row card that has no
card left that could come right before it (a tableau card not above it, nor below one of its covers; a stock card
still to come; or the waste now), and, without the King/Ace wrap, too many cards of one parity for the cards of the
other parity left to go between them.

>>> from core.game import Game
>>> solution = solve(Game.from_code("TP1-E-AAAAAAB"), best=True)
>>> solution.winnable, solution.min_draws, solution.best_score, len(solution.line or ())
(True, 13, 759, 41)
>>> solve(Game.from_code("TP1-C-AAAAAAD")).winnable
True
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from core.game import DRAW, PEAK_BONUS, Action, Game, Status, Tap
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, COVERED_BY, COVERS, SLOT_COUNT, STOCK_SIZE

__all__ = ["Solution", "SolverHint", "best_score_for", "hint", "solve"]

_INF = 99  # "never": more draws than the stock holds
_FREE = 15  # entry index of the free-cards mask (0-14 are waste ranks, 0 and 14 always _INF)
_LEAST = 16  # entry index of the fewest draws reaching the mask
_ORPHANS = 17  # entry index of the checked cards that no tableau card left can come right before
_ENTRY_SIZE = 18
_QUICK_NODES = 2_000  # the first depth-first search stops after this many positions


@dataclass(frozen=True)
class Solution:
    """What the solver found about a position.

    ``winnable`` is None when the budget ran out first. ``line`` is a winning line from the position (the fewest
    draws when solved with ``best``); ``min_draws`` and ``best_score`` are set when solved with ``best`` and the
    position can be won. ``nodes`` counts the positions and masks examined.
    """

    winnable: bool | None
    line: tuple[Action, ...] | None
    min_draws: int | None
    best_score: int | None
    nodes: int
    seconds: float


@dataclass(frozen=True)
class SolverHint:
    """The next action of a best line, or when the game cannot be won any more (``winnable`` False) the first action
    of a line removing the most cards; ``action`` is None when the game is over or no action helps."""

    action: Action | None
    winnable: bool | None
    best_score: int | None


def best_score_for(game: Game, further_draws: int) -> int:
    """The final score of a win from ``game`` that draws ``further_draws`` more cards: one point off per card still
    to remove and per draw, and the bonus for every peak not yet cleared."""
    return game.score - game.cards_left - further_draws + PEAK_BONUS * (3 - game.peaks_cleared())


class _OutOfBudget(Exception):
    pass


class _Budget:
    """Counts examined positions; raises :class:`_OutOfBudget` past the node or time budget."""

    def __init__(self, node_budget: int | None, time_budget: float | None) -> None:
        self.started = time.perf_counter()
        self.nodes = 0
        self.node_budget = node_budget
        self.deadline = None if time_budget is None else self.started + time_budget

    def spend(self, count: int) -> None:
        self.nodes += count
        if self.node_budget is not None and self.nodes > self.node_budget:
            raise _OutOfBudget
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _OutOfBudget

    @property
    def seconds(self) -> float:
        return time.perf_counter() - self.started


def _closure(step: tuple[tuple[int, ...], ...], slot: int) -> int:
    seen = 0
    todo = list(step[slot])
    while todo:
        other = todo.pop()
        if not seen >> other & 1:
            seen |= 1 << other
            todo.extend(step[other])
    return seen


#: For each slot, the slots above it (removed after it) and below it (removed before it).
_ABOVE = tuple(_closure(COVERS, s) for s in range(SLOT_COUNT))
_BELOW = tuple(_closure(COVERED_BY, s) for s in range(SLOT_COUNT))
#: Cards that can never be removed right before a slot's card: those above it, and those below one of its covers
#: (a cover has to go between them).
_NEVER_BEFORE = tuple(_ABOVE[s] | (_BELOW[s] & ~COVER_MASKS[s]) for s in range(SLOT_COUNT))
#: The cards checked for a possible predecessor: tops and the second row, the last cards of their peaks.
_CHECKED = range(0, 9)


class _Position:
    """A position reduced to ranks, with the tables the searches use."""

    def __init__(self, game: Game) -> None:
        rules = game.rules
        self.wraps = rules.wraps
        self.ranks = tuple(int(card.rank) for card in game.deal.tableau)
        self.stock = tuple(int(card.rank) for card in game.deal.stock)
        self.removed = game.removed
        self.drawn = game.drawn
        self.waste = int(game.waste.rank)
        free = 0
        for slot in range(SLOT_COUNT):
            if not self.removed >> slot & 1 and self.removed & COVER_MASKS[slot] == COVER_MASKS[slot]:
                free |= 1 << slot
        self.free = free
        #: slots whose rank is adjacent to each rank 0-14
        self.adjacent_slots = [0] * 15
        for rank in range(1, 14):
            for slot, other in enumerate(self.ranks):
                if rules.adjacent(rank, other):
                    self.adjacent_slots[rank] |= 1 << slot
        self.low = [0] * 15  # the rank below (0: none)
        self.high = [0] * 15  # the rank above (14: none)
        for rank in range(1, 14):
            self.low[rank] = rank - 1 if rank > 1 else (13 if self.wraps else 0)
            self.high[rank] = rank + 1 if rank < 13 else (1 if self.wraps else 14)

    def adjacent(self, a: int, b: int) -> bool:
        diff = abs(a - b)
        return diff == 1 or (self.wraps and diff == 12)

    def next_seed(self, upper: int) -> list[list[int]]:
        """``table[r][k]``: the draw count right after drawing the first stock card adjacent to rank ``r`` at index
        ``k`` or later, drawing at most ``upper`` cards in all; _INF when there is none."""
        table = [[_INF] * (STOCK_SIZE + 1) for _ in range(15)]
        for rank in range(1, 14):
            found = _INF
            for index in range(STOCK_SIZE - 1, -1, -1):
                if index < upper and self.adjacent(self.stock[index], rank):
                    found = index + 1
                table[rank][index] = found
        return table


class _Tables:
    """Per-position tables the searches share: for each card, the tableau cards that could come right before it,
    the last stock card that could, and the checked cards each card could come right before."""

    def __init__(self, pos: _Position, upper: int) -> None:
        ranks = pos.ranks
        self.before = [pos.adjacent_slots[ranks[s]] & ~_NEVER_BEFORE[s] & ALL_SLOTS_MASK for s in range(SLOT_COUNT)]
        self.last = [max((k for k in range(upper) if pos.adjacent(pos.stock[k], ranks[s])), default=-1)
                     for s in range(SLOT_COUNT)]
        self.watchers = [0] * SLOT_COUNT
        for slot in _CHECKED:
            for other in range(SLOT_COUNT):
                if self.before[slot] >> other & 1:
                    self.watchers[other] |= 1 << slot
        self.orphans = sum(1 << s for s in _CHECKED if not pos.removed >> s & 1 and not self.before[s] & ~pos.removed)
        self.odd = sum(1 << s for s in range(SLOT_COUNT) if ranks[s] % 2)
        self.even = ALL_SLOTS_MASK & ~self.odd
        # even/odd stock cards among those drawn from index k on, up to the upper bound
        self.even_after = [sum(1 for j in range(k, upper) if pos.stock[j] % 2 == 0) for k in range(STOCK_SIZE + 1)]
        self.odd_after = [sum(1 for j in range(k, upper) if pos.stock[j] % 2) for k in range(STOCK_SIZE + 1)]

    def orphans_after(self, orphans: int, bit: int, after: int) -> int:
        """The checked cards left without a possible tableau predecessor once ``bit`` is removed too."""
        left = orphans & ~bit
        newly = self.watchers[bit.bit_length() - 1] & ~after & ~left
        while newly:
            card = newly & -newly
            newly ^= card
            if not self.before[card.bit_length() - 1] & ~after:
                left |= card
        return left

    def parity_fails(self, removed: int, least: int) -> bool:
        """Without the wrap each run alternates parities: an even seed (or the waste now) allows one more odd card
        than even ones, and the other way round."""
        excess = (self.odd & ~removed).bit_count() - (self.even & ~removed).bit_count()
        return excess > self.even_after[least] + 1 or -excess > self.odd_after[least] + 1


def _quick_win(pos: _Position, budget: _Budget, limit: int) -> tuple[bool | None, list[Action]]:
    """A depth-first search for any win (bottom cards first, draws last), with the draw dominance and the same
    pruning as the sweep, stopped after ``limit`` positions.

    Returns (True, line), (False, []) when it explored everything, or (None, []) when it stopped."""
    ranks, stock, adjacent_slots, adjacent = pos.ranks, pos.stock, pos.adjacent_slots, pos.adjacent
    uncover = tuple(tuple((1 << c, COVER_MASKS[c]) for c in COVERS[s]) for s in range(SLOT_COUNT))
    tables = _Tables(pos, STOCK_SIZE)
    last, orphans_after, parity_fails = tables.last, tables.orphans_after, tables.parity_fails
    parity = not pos.wraps
    failed: dict[int, int] = {}
    line: list[Action] = []
    nodes = 0

    class _Stop(Exception):
        pass

    def hopeless(removed: int, free: int, drawn: int, waste: int, orphans: int) -> bool:
        while orphans:
            bit = orphans & -orphans
            orphans ^= bit
            slot = bit.bit_length() - 1
            if last[slot] < drawn and not (free & bit and adjacent(waste, ranks[slot])):
                return True
        return parity and parity_fails(removed, drawn)

    def search(removed: int, free: int, drawn: int, waste: int, orphans: int) -> bool:
        nonlocal nodes
        key = removed << 4 | waste
        known = failed.get(key)
        if known is not None and known <= drawn:
            return False
        nodes += 1
        if nodes > limit:
            raise _Stop
        if not hopeless(removed, free, drawn, waste, orphans):
            candidates = free & adjacent_slots[waste]
            while candidates:
                slot = candidates.bit_length() - 1
                bit = 1 << slot
                candidates ^= bit
                after = removed | bit
                if after == ALL_SLOTS_MASK:
                    line.append(Tap(slot))
                    return True
                freed = free ^ bit
                for cover_bit, cover_mask in uncover[slot]:
                    if after & cover_mask == cover_mask:
                        freed |= cover_bit
                if search(after, freed, drawn, ranks[slot], orphans_after(orphans, bit, after)):
                    line.append(Tap(slot))
                    return True
            if drawn < STOCK_SIZE and search(removed, free, drawn + 1, stock[drawn], orphans):
                line.append(DRAW)
                return True
        failed[key] = drawn
        return False

    try:
        won = search(pos.removed, pos.free, pos.drawn, pos.waste, tables.orphans)
    except _Stop:
        budget.spend(nodes)
        return None, []
    finally:  # ``search`` refers to itself: free its table now, not at the next garbage collection
        failed.clear()
    budget.spend(nodes)
    line.reverse()
    return won, line


Levels = list[dict[int, list[int]]]


def _sweep(pos: _Position, budget: _Budget, *, upper: int, prune: bool) -> Levels:
    """The fewest draws reaching every (mask, waste rank) from the position, drawing at most ``upper`` cards.

    ``levels[i]`` maps each mask with ``i`` more removed cards than the position to its entry: entry[w] (w 1-13) is
    the fewest draws reaching the mask with a removed card of rank w on the waste, entry[_FREE] the free cards,
    entry[_LEAST] the fewest draws reaching the mask, and entry[_ORPHANS] the checked cards left that no tableau
    card left can come right before. With ``prune``, masks that cannot lead to a win are dropped.
    """
    ranks, low, high = pos.ranks, pos.low, pos.high
    seeds = pos.next_seed(upper)
    tables = _Tables(pos, upper)
    before, parity_fails = tables.before, tables.parity_fails
    checked = [(tables.last[s], low[ranks[s]], high[ranks[s]]) for s in range(SLOT_COUNT)]
    info = []
    for slot in range(SLOT_COUNT):
        rank = ranks[slot]
        uncover = tuple((1 << c, COVER_MASKS[c]) for c in COVERS[slot])
        info.append((1 << slot, rank, low[rank], high[rank], seeds[rank], uncover, tables.watchers[slot]))
    # the cards of a free mask, looked up 7 slots at a time (faster than picking bits one by one)
    chunks = [[tuple(info[7 * part + i] for i in range(7) if value >> i & 1) for value in range(128)]
              for part in range(4)]
    first, second, third, fourth = chunks
    parity = prune and not pos.wraps

    root = [_INF] * _ENTRY_SIZE
    root[pos.waste] = pos.drawn
    root[_FREE] = pos.free
    root[_LEAST] = pos.drawn
    root[_ORPHANS] = tables.orphans
    level: dict[int, list[int]] = {pos.removed: root}
    levels: Levels = [level]
    for _ in range(pos.removed.bit_count(), SLOT_COUNT):
        budget.spend(len(level))
        following: dict[int, list[int]] = {}
        get = following.get
        for mask, entry in level.items():
            least = entry[_LEAST]
            free = entry[_FREE]
            orphans = entry[_ORPHANS]
            if prune:
                dead = False
                todo = orphans
                while todo:
                    bit = todo & -todo
                    todo ^= bit
                    last_seed, below, above = checked[bit.bit_length() - 1]
                    # no tableau card left can come right before it, nor a stock card still to come: only the
                    # waste now can, if the card is free
                    if last_seed < least and not (free & bit and (entry[below] < _INF or entry[above] < _INF)):
                        dead = True
                        break
                if dead:
                    continue
                if parity and parity_fails(mask, least):
                    continue
            cards = first[free & 127] + second[free >> 7 & 127] + third[free >> 14 & 127] + fourth[free >> 21]
            for bit, rank, below, above, seed, uncover, watching in cards:
                value = entry[below]
                other = entry[above]
                if other < value:
                    value = other
                other = seed[least]
                if other < value:
                    value = other
                if value > upper:
                    continue
                after = mask | bit
                child = get(after)
                if child is None:
                    freed = free ^ bit
                    for cover_bit, cover_mask in uncover:
                        if after & cover_mask == cover_mask:
                            freed |= cover_bit
                    left = orphans & ~bit
                    newly = watching & ~after & ~left
                    while newly:  # checked cards that had this one as their last possible tableau predecessor
                        card = newly & -newly
                        newly ^= card
                        if not before[card.bit_length() - 1] & ~after:
                            left |= card
                    child = [_INF] * _ENTRY_SIZE
                    child[rank] = value
                    child[_FREE] = freed
                    child[_LEAST] = value
                    child[_ORPHANS] = left
                    following[after] = child
                elif value < child[rank]:
                    child[rank] = value
                    if value < child[_LEAST]:
                        child[_LEAST] = value
        if not following:
            break
        level = following
        levels.append(level)
    return levels


def _line_to(pos: _Position, levels: Levels, mask: int, rank: int, draws: int) -> list[Action]:
    """A line from the position to ``mask`` with a removed card of rank ``rank`` on the waste after ``draws`` draws
    (a value the sweep recorded), or to the position itself when ``mask`` is the position's."""
    seeds = pos.next_seed(STOCK_SIZE)
    reversed_line: list[Action] = []
    depth = mask.bit_count() - pos.removed.bit_count()
    while depth > 0:
        parents = levels[depth - 1]
        for slot in range(SLOT_COUNT):
            bit = 1 << slot
            if not mask & bit or pos.ranks[slot] != rank:
                continue
            parent = parents.get(mask ^ bit)
            if parent is None or not parent[_FREE] & bit:
                continue
            below, above = pos.low[rank], pos.high[rank]
            least = parent[_LEAST]
            if parent[below] == draws or parent[above] == draws:
                reversed_line.append(Tap(slot))
                rank = below if parent[below] == draws else above
            elif seeds[rank][least] == draws:
                reversed_line.append(Tap(slot))
                reversed_line.extend([DRAW] * (draws - least))
                draws = least
                rank = next(w for w in range(1, 14) if parent[w] == least)
            else:
                continue
            mask ^= bit
            depth -= 1
            break
        else:  # pragma: no cover - the sweep's values always have a parent
            raise AssertionError("no parent found while rebuilding a line")
    return list(reversed(reversed_line))


def _best(pos: _Position, budget: _Budget, upper: int) -> tuple[int, list[Action]] | None:
    """The fewest draws any win needs (at most ``upper``) and such a line, or None when there is no such win."""
    levels = _sweep(pos, budget, upper=upper, prune=True)
    final = levels[-1].get(ALL_SLOTS_MASK)
    if final is None:
        return None
    draws = final[_LEAST]
    rank = next(w for w in range(1, 14) if final[w] == draws)
    return draws, _line_to(pos, levels, ALL_SLOTS_MASK, rank, draws)


def _most_removed(pos: _Position, budget: _Budget) -> list[Action]:
    """A line removing the most cards that can still be removed (the fewest draws among those)."""
    levels = _sweep(pos, budget, upper=STOCK_SIZE, prune=False)
    deepest = levels[-1]
    mask, entry = min(deepest.items(), key=lambda item: (item[1][_LEAST], item[0]))
    draws = entry[_LEAST]
    rank = next(w for w in range(1, 14) if entry[w] == draws)
    return _line_to(pos, levels, mask, rank, draws)


def _won_already(game: Game) -> bool:
    return game.removed == ALL_SLOTS_MASK


def solve(game: Game, *, best: bool = False, node_budget: int | None = None,
          time_budget: float | None = None) -> Solution:
    """Solve ``game``'s current position (its removed cards, draws and waste card; undo plays no part).

    Without ``best`` the answer is whether the position can be won and a winning line; with ``best`` also the
    fewest further draws any win needs, a line with that many draws, and the best final score. When a budget runs
    out first, ``winnable`` is None: the answer is unknown, never "unwinnable".
    """
    budget = _Budget(node_budget, time_budget)
    if _won_already(game):
        return Solution(True, (), 0 if best else None, game.score if best else None, 0, budget.seconds)
    pos = _Position(game)
    try:
        won, line = _quick_win(pos, budget, _QUICK_NODES if node_budget is None else min(_QUICK_NODES, node_budget))
        if won is False:
            return Solution(False, None, None, None, budget.nodes, budget.seconds)
        if won and not best:
            return Solution(True, tuple(line), None, None, budget.nodes, budget.seconds)
        upper = sum(1 for action in line if action is DRAW) + pos.drawn if won else STOCK_SIZE
        found = _best(pos, budget, upper)
    except _OutOfBudget:
        return Solution(None, None, None, None, budget.nodes, budget.seconds)
    if found is None:
        return Solution(False, None, None, None, budget.nodes, budget.seconds)
    draws, best_line = found
    if not best:
        return Solution(True, tuple(best_line), None, None, budget.nodes, budget.seconds)
    further = draws - pos.drawn
    return Solution(True, tuple(best_line), further, best_score_for(game, further), budget.nodes, budget.seconds)


def hint(game: Game, *, time_budget: float | None = 5.0) -> SolverHint:
    """The next action of a best line (the highest final score); when the position cannot be won any more, the
    first action of a line that removes the most cards (``winnable`` False). ``action`` is None when the game is
    over or nothing can be removed any more; everything is None when the time budget runs out first."""
    if game.status is Status.WON:
        return SolverHint(None, True, game.score)
    if game.status is Status.BLOCKED:
        return SolverHint(None, False, None)
    solution = solve(game, best=True, time_budget=time_budget)
    if solution.winnable:
        first = solution.line[0] if solution.line else None
        return SolverHint(first, True, solution.best_score)
    if solution.winnable is None:
        return SolverHint(None, None, None)
    budget = _Budget(None, time_budget)
    try:
        line = _most_removed(_Position(game), budget)
    except _OutOfBudget:
        return SolverHint(None, False, None)
    removals = [action for action in line if isinstance(action, Tap)]
    return SolverHint(line[0] if removals else None, False, None)

