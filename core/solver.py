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
waste ranks and draw counts: about 20,000 masks for a fresh deal, a few tens of milliseconds, whether the deal can
be won or not (a deal that cannot be won is the worst case of a search: every reachable position has to be seen).
The sweep gives the fewest draws of a win exactly, hence the best score, a best line (followed back through the
masks), and for a lost position the most cards any line still removes.

A quick depth-first search runs first, bottom cards first and draws last, stopped after a few thousand positions:
it answers "winnable?" for most deals in a millisecond or two, and its line bounds the draws the sweep considers.
It skips positions that cannot lead to a win, by sound bounds only: a top or second-row card that no card can come
right before any more (no tableau card left that is neither above it nor below one of its covers, no stock card
still to come of a neighbouring rank, and not the waste now), and, without the King/Ace wrap, more cards of one
parity left than the cards of the other parity, the stock still to come and the waste can separate. (The same
bounds in the sweep cost more than the masks they remove.)

>>> from core.game import Game
>>> solution = solve(Game.from_code("TP1-E-AAAAAAB"), best=True)
>>> solution.winnable, solution.min_draws, solution.best_score, len(solution.line or ())
(True, 13, 759, 41)
>>> solve(Game.from_code("TP1-C-AAAAAAD")).winnable
True

The same searches run in a native kernel (core/_kernel.c, a C extension built by ``pip install``) when it was
built: step for step the same, so it returns the same verdicts, lines and node counts, some 20 times faster.
This module stays the reference and the fallback: a machine without a C compiler runs the pure one, and so does a
process that calls :func:`use_pure_solver` (the bot and the ``tripeaks`` command do for ``TRIPEAKS_SOLVER=pure``).
:func:`solver_description` says which runs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.deal import Rules
from core.game import DRAW, PEAK_BONUS, Action, Draw, Game, Status, Tap
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, COVERED_BY, COVERS, SLOT_COUNT, STOCK_SIZE

__all__ = ["Solution", "SolverHint", "best_score_for", "hint", "pure_solver_reason", "solve", "solver_description",
           "use_pure_solver", "winnable_actions"]

_INF = 99  # "never": more draws than the stock holds
_FREE = 15  # entry index of the free-cards mask (0-14 are waste ranks, 0 and 14 always _INF)
_LEAST = 16  # entry index of the fewest draws reaching the mask
_ENTRY_SIZE = 17
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


def _ranks_of(game: Game) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The tableau's and the stock's ranks."""
    return tuple(int(card.rank) for card in game.deal.tableau), tuple(int(card.rank) for card in game.deal.stock)


def _action(code: int) -> Tap | Draw:
    """An action from the native kernel: a slot for a removal, -1 for a draw."""
    return DRAW if code < 0 else Tap(code)


def _actions(codes: Sequence[int]) -> tuple[Action, ...]:
    """A line from the native kernel."""
    return tuple(_action(code) for code in codes)


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
        self._fill(game.rules, *_ranks_of(game), game.removed, game.drawn, int(game.waste.rank))

    @classmethod
    def of_ranks(cls, rules: Rules, ranks: tuple[int, ...], stock: tuple[int, ...], removed: int, drawn: int,
                 waste: int) -> _Position:
        """A position from ranks alone: 28 tableau ranks, 23 stock ranks (those before ``drawn`` are never read)."""
        pos = cls.__new__(cls)
        pos._fill(rules, ranks, stock, removed, drawn, waste)
        return pos

    def _fill(self, rules: Rules, ranks: tuple[int, ...], stock: tuple[int, ...], removed: int, drawn: int,
              waste: int) -> None:
        self.wraps = rules.wraps
        self.ranks = ranks
        self.stock = stock
        self.removed = removed
        self.drawn = drawn
        self.waste = waste
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

    def after(self, action: Tap | Draw) -> _Position:
        """The position after a legal removal or draw (the same tables, another removed mask, draw count, waste)."""
        child = _Position.__new__(_Position)
        child.__dict__.update(self.__dict__)
        if isinstance(action, Tap):
            bit = 1 << action.slot
            child.removed = self.removed | bit
            child.waste = self.ranks[action.slot]
            free = self.free ^ bit
            for cover in COVERS[action.slot]:
                if child.removed & COVER_MASKS[cover] == COVER_MASKS[cover]:
                    free |= 1 << cover
            child.free = free
        else:
            child.drawn = self.drawn + 1
            child.waste = self.stock[self.drawn]
        return child

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
    """The quick search's bounds: for each card, the tableau cards that could come right before it, the last stock
    card that could, and the checked cards it could come right before; odd and even cards and stock counts."""

    def __init__(self, pos: _Position) -> None:
        upper = STOCK_SIZE
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


def _quick_win(pos: _Position, budget: _Budget, limit: int,
               known_failures: dict[int, int] | None = None) -> tuple[bool | None, list[Action]]:
    """A depth-first search for any win (bottom cards first, draws last), with the draw dominance and the sound
    bounds of :class:`_Tables`, stopped after ``limit`` positions.

    ``known_failures`` (``removed << 4 | waste`` to the fewest draws known to lose from there) can be shared by
    searches of positions of the same deal: every entry is a proof, also when a search stops early.

    Returns (True, line), (False, []) when it explored everything, or (None, []) when it stopped."""
    ranks, stock, adjacent_slots, adjacent = pos.ranks, pos.stock, pos.adjacent_slots, pos.adjacent
    uncover = tuple(tuple((1 << c, COVER_MASKS[c]) for c in COVERS[s]) for s in range(SLOT_COUNT))
    tables = _Tables(pos)
    last, orphans_after, parity_fails = tables.last, tables.orphans_after, tables.parity_fails
    parity = not pos.wraps
    failed: dict[int, int] = {} if known_failures is None else known_failures
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
        if known_failures is None:
            failed.clear()
    budget.spend(nodes)
    line.reverse()
    return won, line


Levels = list[dict[int, list[int]]]


def _sweep(pos: _Position, budget: _Budget, upper: int) -> Levels:
    """The fewest draws reaching every (mask, waste rank) from the position, drawing at most ``upper`` cards in all.

    ``levels[i]`` maps each mask reachable with ``i`` more removed cards than the position to its entry: entry[w]
    (w 1-13) is the fewest draws reaching the mask with a removed card of rank w on the waste (entry 0 and 14 stay
    _INF, the missing neighbours of Ace and King without the wrap), entry[_FREE] the free cards and entry[_LEAST] the
    fewest draws reaching the mask at all.
    """
    ranks, low, high = pos.ranks, pos.low, pos.high
    seeds = pos.next_seed(upper)
    info = []
    for slot in range(SLOT_COUNT):
        rank = ranks[slot]
        uncover = tuple((1 << c, COVER_MASKS[c]) for c in COVERS[slot])
        info.append((1 << slot, rank, low[rank], high[rank], seeds[rank], uncover))
    # the cards of a free mask, looked up 7 slots at a time (faster than picking bits one by one)
    first, second, third, fourth = (
        [tuple(info[7 * part + i] for i in range(7) if value >> i & 1) for value in range(128)] for part in range(4))

    root = [_INF] * _ENTRY_SIZE
    root[pos.waste] = pos.drawn
    root[_FREE] = pos.free
    root[_LEAST] = pos.drawn
    level: dict[int, list[int]] = {pos.removed: root}
    levels: Levels = [level]
    for _ in range(pos.removed.bit_count(), SLOT_COUNT):
        budget.spend(len(level))
        following: dict[int, list[int]] = {}
        get = following.get
        for mask, entry in level.items():
            least = entry[_LEAST]
            free = entry[_FREE]
            cards = first[free & 127] + second[free >> 7 & 127] + third[free >> 14 & 127] + fourth[free >> 21]
            for bit, rank, below, above, seed, uncover in cards:
                # the card can follow a removed card of a neighbouring rank, or the first fitting stock card drawn
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
                    child = [_INF] * _ENTRY_SIZE
                    child[rank] = value
                    child[_FREE] = freed
                    child[_LEAST] = value
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


def _search(pos: _Position, budget: _Budget, best: bool,
            known_failures: dict[int, int] | None = None) -> tuple[bool, list[Action], Levels | None]:
    """Whether the position can be won, a winning line (with the fewest draws when ``best``, or when the quick
    search did not find one), and the sweep's levels when it ran."""
    won, line = _quick_win(pos, budget, _QUICK_NODES if budget.node_budget is None
                           else min(_QUICK_NODES, budget.node_budget), known_failures)
    if won is False:
        return False, [], None
    if won and not best:
        return True, line, None
    upper = pos.drawn + line.count(DRAW) if won else STOCK_SIZE
    levels = _sweep(pos, budget, upper)
    final = levels[-1].get(ALL_SLOTS_MASK)
    if final is None:  # then upper is the whole stock: the levels hold every mask still reachable
        return False, [], levels
    draws = final[_LEAST]
    rank = next(w for w in range(1, 14) if final[w] == draws)
    return True, _line_to(pos, levels, ALL_SLOTS_MASK, rank, draws), levels


def _most_removed_line(pos: _Position, levels: Levels) -> list[Action]:
    """A line to a mask with the most cards removed, with the fewest draws among those (``levels`` from a sweep over
    the whole stock)."""
    mask, entry = min(levels[-1].items(), key=lambda item: (item[1][_LEAST], item[0]))
    draws = entry[_LEAST]
    rank = next(w for w in range(1, 14) if entry[w] == draws)
    return _line_to(pos, levels, mask, rank, draws)


def solve(game: Game, *, best: bool = False, node_budget: int | None = None,
          time_budget: float | None = None) -> Solution:
    """Solve ``game``'s current position (its removed cards, draws and waste card; undo plays no part).

    Without ``best`` the answer is whether the position can be won and a winning line; with ``best`` also the
    fewest further draws any win needs, a line with that many draws, and the best final score. When a budget runs
    out first, ``winnable`` is None: the answer is unknown, never "unwinnable".
    """
    budget = _Budget(node_budget, time_budget)
    if game.removed == ALL_SLOTS_MASK:
        return Solution(True, (), 0 if best else None, game.score if best else None, 0, budget.seconds)
    won: bool | None
    line: tuple[Action, ...] | None
    if _native is not None:
        codes: tuple[int, ...] | None
        won, codes, nodes = _native.solve(game.rules.wraps, *_ranks_of(game), game.removed, game.drawn,
                                          int(game.waste.rank), best, node_budget, time_budget)
        line = None if codes is None else _actions(codes)
    else:
        try:
            won, found, _ = _search(_Position(game), budget, best)
            line = tuple(found)
        except _OutOfBudget:
            won, line = None, None
        nodes = budget.nodes
    if won is None:
        return Solution(None, None, None, None, nodes, budget.seconds)
    if not won or line is None:
        return Solution(False, None, None, None, nodes, budget.seconds)
    if not best:
        return Solution(True, line, None, None, nodes, budget.seconds)
    draws = line.count(DRAW)
    return Solution(True, line, draws, best_score_for(game, draws), nodes, budget.seconds)


def hint(game: Game, *, time_budget: float | None = 5.0) -> SolverHint:
    """The next action of a best line (the highest final score); when the position cannot be won any more, the
    first action of a line that removes the most cards (``winnable`` False). ``action`` is None when the game is
    over or nothing can be removed any more; everything is None when the time budget runs out first."""
    if game.status is Status.WON:
        return SolverHint(None, True, game.score)
    if game.status is Status.BLOCKED:
        return SolverHint(None, False, None)
    won: bool | None
    line: tuple[Action, ...] | None
    if _native is not None:
        codes: tuple[int, ...] | None
        won, codes = _native.hint(game.rules.wraps, *_ranks_of(game), game.removed, game.drawn,
                                  int(game.waste.rank), None, time_budget)
        line = None if codes is None else _actions(codes)
    else:
        won, line = _pure_hint_line(game, time_budget)
    if won is None:
        return SolverHint(None, None, None)
    if won and line is not None:
        return SolverHint(line[0], True, best_score_for(game, line.count(DRAW)))
    if line is None:
        return SolverHint(None, False, None)
    return SolverHint(line[0] if any(isinstance(action, Tap) for action in line) else None, False, None)


def _pure_hint_line(game: Game, time_budget: float | None) -> tuple[bool | None, tuple[Action, ...] | None]:
    """Whether the position can be won (None when the time ran out first) and a best line, or for a lost position
    a line removing the most cards (None when the time ran out on it)."""
    budget = _Budget(None, time_budget)
    pos = _Position(game)
    try:
        won, line, levels = _search(pos, budget, best=True)
    except _OutOfBudget:
        return None, None
    if won:
        return True, tuple(line)
    try:
        return False, tuple(_most_removed_line(pos, levels if levels is not None else _sweep(pos, budget, STOCK_SIZE)))
    except _OutOfBudget:
        return False, None


#: Positions the quick search of each action examines in :func:`winnable_actions` before the sweep decides
#: (hard but winnable positions are common after an action; 10,000 finds most of their wins, in under 10 ms).
_ACTION_QUICK_NODES = 10_000
#: What :func:`winnable_actions` counts for setting up each search (its tables take about as long as 500
#: positions), so that a node budget bounds the time of many small searches too.
_SETUP_NODES = 500


@dataclass(frozen=True)
class ActionVerdicts:
    """What :func:`winnable_actions` found: for each legal action whether the position after it can be won (None
    when a budget ran out first), and the positions and masks examined."""

    verdicts: tuple[tuple[Tap | Draw, bool], ...] | None
    nodes: int


def winnable_actions(rules: Rules, ranks: Sequence[int], stock: Sequence[int], removed: int, drawn: int,
                     waste: int, *, node_budget: int | None = None,
                     time_budget: float | None = None) -> ActionVerdicts:
    """For each legal removal or draw of a position given by ranks alone, whether the position after it can still
    be won: the fitting free cards in slot order, then the draw while the stock lasts (none when the tableau is
    cleared). ``verdicts`` is None when ``node_budget`` (positions and masks) or ``time_budget`` (seconds) runs
    out first.

    ``ranks`` are the 28 tableau ranks (1-13) in slot order, ``stock`` the 23 stock ranks, first drawn first: the
    ranks of removed slots and of the ``drawn`` cards already drawn are never read. One search of the position
    settles every action when it cannot be won; otherwise its winning line settles its first action, and each other
    action gets a search of its own, all sharing the positions already proved lost.

    >>> game = Game.from_code("TP1-E-AAAAAAB")
    >>> found = winnable_actions(game.rules, [int(c.rank) for c in game.deal.tableau],
    ...                          [int(c.rank) for c in game.deal.stock], game.removed, game.drawn,
    ...                          int(game.waste.rank))
    >>> [(str(action), won) for action, won in found.verdicts or ()]
    [('21', True), ('22', True), ('25', True), ('d', True)]
    """
    budget = _Budget(node_budget, time_budget)
    if len(ranks) != SLOT_COUNT or len(stock) != STOCK_SIZE or not 0 <= drawn <= STOCK_SIZE:
        raise ValueError("a position has 28 tableau ranks, 23 stock ranks and 0-23 cards drawn")
    if removed == ALL_SLOTS_MASK:
        return ActionVerdicts((), 0)
    if _native is not None:
        coded: tuple[tuple[int, bool], ...] | None
        coded, nodes = _native.winnable_actions(rules.wraps, tuple(ranks), tuple(stock), removed, drawn, waste,
                                                node_budget, time_budget)
        return ActionVerdicts(None if coded is None else tuple((_action(code), won) for code, won in coded),
                              nodes)
    pos = _Position.of_ranks(rules, tuple(ranks), tuple(stock), removed, drawn, waste)
    actions: list[Tap | Draw] = [Tap(s) for s in range(SLOT_COUNT)
                                 if pos.free >> s & 1 and pos.adjacent(pos.ranks[s], waste)]
    if drawn < STOCK_SIZE:
        actions.append(DRAW)
    failed: dict[int, int] = {}
    try:
        budget.spend(_SETUP_NODES)
        won, line, _ = _search(pos, budget, False, failed)
        if not won:
            return ActionVerdicts(tuple((action, False) for action in actions), budget.nodes)
        verdicts = []
        for action in actions:
            if action == line[0]:
                verdicts.append((action, True))
                continue
            child = pos.after(action)
            budget.spend(_SETUP_NODES)
            quick = _ACTION_QUICK_NODES if node_budget is None else min(_ACTION_QUICK_NODES, node_budget)
            found, _ = _quick_win(child, budget, quick, failed)
            if found is None:  # the sweep over the whole stock reaches every mask still reachable
                found = ALL_SLOTS_MASK in _sweep(child, budget, STOCK_SIZE)[-1]
            verdicts.append((action, found))
        return ActionVerdicts(tuple(verdicts), budget.nodes)
    except _OutOfBudget:
        return ActionVerdicts(None, budget.nodes)
    finally:
        failed.clear()


def _load_native() -> tuple[Any, str]:
    """The native kernel (core/_kernel.c, configured), or None and why not."""
    try:
        from core import _kernel
    except ImportError:
        return None, "the native kernel is not built"
    _kernel.configure(COVER_MASKS, COVERS, _NEVER_BEFORE, _QUICK_NODES, _ACTION_QUICK_NODES, _SETUP_NODES)
    return _kernel, ""


#: The native kernel's module when it runs, else None (then _WHY_PURE says why).
_native, _WHY_PURE = _load_native()


def use_pure_solver(reason: str) -> None:
    """Run the pure solver in this process from now on, even where the native kernel is built; ``reason`` is what
    :func:`solver_description` gives as why."""
    global _native, _WHY_PURE
    _native, _WHY_PURE = None, reason


def pure_solver_reason() -> str | None:
    """Why this process runs the pure solver, or None when it runs the native kernel."""
    return None if _native is not None else _WHY_PURE


def solver_description() -> str:
    """Which solver runs: the native kernel, or the pure one and why."""
    return "native (C kernel, core/_kernel.c)" if _native is not None else f"pure Python ({_WHY_PURE})"
