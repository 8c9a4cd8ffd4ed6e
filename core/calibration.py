"""The chance a hint shows: the advisor's raw share of winning samples, mapped to how often such positions are won.

:func:`core.advisor.advise` solves each sample as if its hidden cards were known, so the share of samples an
action can win (the *raw* chance) overstates what a player who cannot see them achieves: at the first move of an
Easy deal nearly every sample can be won, yet a player following every hint wins a little over half the deals.
The shown chance is the raw one mapped through a table fitted on recorded advisor games (``bench/advisor.py``
records them, ``bench/calibrate.py`` fits this map and writes :mod:`core.calibration_table`): for each rule set and
each *stage* of the game (the start, before any card is removed; then by how many cards are still unseen: face down
and in the stock), an isotonic (monotone non-decreasing) step function from the raw chance to the
observed share of those decisions after which the advisor went on to win (each step stands on at least
:data:`MIN_BLOCK` decisions). A raw chance of 0 is mapped too: no sample winning does not prove the game lost.

>>> table = fit([Decision(Rules.EASY, raw, 10, 8, won) for raw, won in
...              [(0.5, False), (0.5, True), (0.75, False), (0.9, True), (1.0, True), (1.0, False)]],
...             edges=(0,), min_block=1)
>>> table.steps[("easy", 1)]
((0.75, 0.3333), (1.0, 0.6667))
>>> table.chance(0.8, Rules.EASY, stock_left=10, face_down=8), table.chance(0.1, Rules.EASY, 10, 8)
(0.6667, 0.3333)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.deal import Rules

__all__ = ["Calibration", "Decision", "fit", "shipped"]

#: The fewest decisions a step of the map stands on.
MIN_BLOCK = 40
#: Digits kept in a fitted chance (the table is written out as text and must read back the same).
DIGITS = 4


@dataclass(frozen=True)
class Decision:
    """One advised decision: the rule set, the raw chance of the action chosen, the cards still hidden in the stock
    and face down, whether the advisor won the game from there, and whether it was taken at the start (no card
    removed yet)."""

    rules: Rules
    raw: float
    stock_left: int
    face_down: int
    won: bool
    start: bool = False

    @property
    def unseen(self) -> int:
        return self.stock_left + self.face_down


@dataclass(frozen=True)
class Calibration:
    """The fitted map. Stage 0 holds the decisions at the start (no card removed yet); ``edges``, the other stages'
    least numbers of unseen cards, high to low (the last is 0): stage ``i`` (from 1) holds the other decisions with
    at least ``edges[i - 1]`` unseen cards and fewer than ``edges[i - 2]``. ``steps``: for each (rule set value,
    stage) the steps ``(highest raw chance, shown chance)``, raw chance increasing.

    The start has a stage of its own because a game's first decision is not like the later ones with as many cards
    unseen (removing a bottom card turns nothing face up): those come from games already under way.
    """

    edges: tuple[int, ...]
    steps: dict[tuple[str, int], tuple[tuple[float, float], ...]]

    def stage(self, unseen: int, start: bool = False) -> int:
        if start:
            return 0
        return 1 + next(index for index, edge in enumerate(self.edges) if unseen >= edge)

    def chance(self, raw: float, rules: Rules, stock_left: int, face_down: int, *, start: bool = False) -> float:
        """The shown chance for a raw chance ``raw`` with ``stock_left`` cards in the stock and ``face_down`` face
        down, at the ``start`` or later (the raw chance itself where the table has no data)."""
        steps = self.steps.get((rules.value, self.stage(stock_left + face_down, start)))
        if not steps:
            return raw
        return next((shown for highest, shown in steps if raw <= highest), steps[-1][1])

    def is_monotone(self) -> bool:
        """Every stage's steps rise in raw chance and never fall in shown chance, within 0-1."""
        return all(all(0.0 <= shown <= 1.0 for _, shown in steps)
                   and all(a[0] < b[0] and a[1] <= b[1] for a, b in zip(steps, steps[1:], strict=False))
                   for steps in self.steps.values())


def _isotonic(points: list[tuple[float, bool]], min_block: int) -> tuple[tuple[float, float], ...]:
    """The least-squares non-decreasing step function through (raw, won) points (pool adjacent violators), on
    consecutive raw values pooled first into bins of at least ``min_block`` points (so that no step stands on a
    handful of games)."""
    by_raw: dict[float, list[int]] = {}
    for raw, won in points:
        count = by_raw.setdefault(raw, [0, 0])
        count[0] += won
        count[1] += 1
    bins: list[list[float]] = []  # [highest raw, wins, decisions]
    for raw in sorted(by_raw):
        wins, total = by_raw[raw]
        if bins and bins[-1][2] < min_block:
            bins[-1] = [raw, bins[-1][1] + wins, bins[-1][2] + total]
        else:
            bins.append([raw, wins, total])
    if len(bins) > 1 and bins[-1][2] < min_block:
        last = bins.pop()
        bins[-1] = [last[0], bins[-1][1] + last[1], bins[-1][2] + last[2]]
    blocks: list[list[float]] = []
    for block in bins:
        blocks.append(list(block))
        while len(blocks) > 1 and blocks[-2][1] / blocks[-2][2] >= blocks[-1][1] / blocks[-1][2]:
            last = blocks.pop()
            blocks[-1] = [last[0], blocks[-1][1] + last[1], blocks[-1][2] + last[2]]
    return tuple((highest, round(won / total, DIGITS)) for highest, won, total in blocks)


def fit(decisions: Iterable[Decision], edges: tuple[int, ...], min_block: int = MIN_BLOCK) -> Calibration:
    """The map fitted on ``decisions``: each rule set and stage (the start, then by ``edges``) on its own, steps of
    at least ``min_block`` decisions."""
    if not edges or edges[-1] != 0 or list(edges) != sorted(set(edges), reverse=True):
        raise ValueError(f"stage edges go from high to low and end at 0, not {edges}")
    shell = Calibration(edges, {})
    groups: dict[tuple[str, int], list[tuple[float, bool]]] = {}
    for decision in decisions:
        groups.setdefault((decision.rules.value, shell.stage(decision.unseen, decision.start)), []).append(
            (decision.raw, decision.won))
    return Calibration(edges, {key: _isotonic(points, min_block) for key, points in sorted(groups.items())})


def shipped() -> Calibration:
    """The map fitted by ``bench/calibrate.py`` and shipped in :mod:`core.calibration_table`."""
    from core.calibration_table import EDGES, STEPS

    return Calibration(EDGES, STEPS)
