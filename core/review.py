"""The exact post-game review: the score against the deal's best, whether and where the game was lost, the longest
chain of removals, and the best line from the position before the losing action.

Positions: ``P[0]`` is the start, ``P[i + 1]`` the position after ``actions[i]`` (undo included); ``P[i]`` is
*winnable* when some line from it wins (the exact solver decides). ``lost_at`` is the index of the last action
after which the game could no longer be won: the largest ``i`` such that ``P[i]`` is winnable, when ``P[0]`` is
winnable and the final position is not; None when the game was won, when the final position can still be won (a
game left off halfway), or when the start cannot be won. Then ``P[lost_at + 1]`` and every later position cannot
be won, and ``actions[lost_at]`` is a removal or a draw (undo leads back to an earlier, winnable position).

Only about log2(51) positions are solved, not one per action: the last winnable position lies on the final line
(the moves that stand at the end), since from the losing move on the play never undoes back past it, and
winnability only falls along a line (a position is winnable when a later one on its line is), so a binary search
over the final line finds it.

>>> from core.game import Game, Tap
>>> result = review(Game.from_code("TP1-E-AAAAAAB"), [Tap(21), Tap(19), Tap(18)])
>>> result.won, result.score, result.best_score, result.winnable_at_start, result.lost_at, result.longest_chain
(False, 497, 759, True, None, 3)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.cards import Card
from core.game import Action, Game, IllegalActionError, Reason, Status, Tap, Undo
from core.layout import PEAK_OF
from core.solver import Solution, solve

__all__ = ["PEAK_NAMES", "Review", "review"]

#: The peaks by number, as :data:`core.layout.PEAK_OF` gives them.
PEAK_NAMES = ("left", "middle", "right")


@dataclass(frozen=True)
class Review:
    """What :func:`review` found. The ``losing_*`` and ``best_line*`` fields are set only with ``lost_at``."""

    won: bool
    #: the score at the end
    score: int
    #: the best score the deal allowed from the start; None when the start cannot be won
    best_score: int | None
    winnable_at_start: bool
    #: the index in the actions of the last action after which the game could no longer be won (module docstring)
    lost_at: int | None
    #: the most removals in a row, with no draw or undo between them
    longest_chain: int
    #: ``actions[lost_at]``: a :class:`~core.game.Tap` or a :class:`~core.game.Draw`
    losing_action: Action | None = None
    #: the card that action put on the waste (the card removed, or the card drawn)
    losing_card: Card | None = None
    #: the peak of the removed card (0 left, 1 middle, 2 right); None for a draw
    losing_peak: int | None = None
    #: a line with the best score from the position just before the losing action
    best_line: tuple[Action, ...] | None = None
    #: the final score of ``best_line``
    best_line_score: int | None = None

    @property
    def losing_peak_name(self) -> str | None:
        return None if self.losing_peak is None else PEAK_NAMES[self.losing_peak]


def _exact(game: Game, *, best: bool = False) -> Solution:
    solution = solve(game, best=best)
    assert solution.winnable is not None  # no budget: the solver always answers
    return solution


def review(start: Game, actions: Sequence[Action]) -> Review:
    """Review ``actions`` played from ``start`` (usually a new game; it is not changed).

    Every action must be applied: a refused one raises :class:`~core.game.IllegalActionError`, and so does an
    undo that would go back past ``start``; an object that is not an action raises
    :class:`~core.errors.InvalidActionError`.
    """
    game = start.copy()
    standing: list[int] = []  # the indices in ``actions`` of the moves not undone
    chain = longest = 0
    for index, action in enumerate(actions):
        reason = game.check(action)
        if reason is None and isinstance(action, Undo) and not standing:
            reason = Reason.NOTHING_TO_UNDO
        if reason is not None:
            raise IllegalActionError(action, reason)
        game.apply(action)
        if isinstance(action, Undo):
            standing.pop()
        else:
            standing.append(index)
        chain = chain + 1 if isinstance(action, Tap) else 0
        longest = max(longest, chain)

    # the positions along the final line: line[j] after the first j moves that stand
    line = [start.copy()]
    for index in standing:
        following = line[-1].copy()
        following.apply(actions[index])
        line.append(following)

    at_start = _exact(start, best=True)
    won = game.status is Status.WON
    summary = Review(won, game.score, at_start.best_score, bool(at_start.winnable), None, longest)
    if won or not at_start.winnable or _exact(game).winnable:
        return summary
    low, high = 0, len(line) - 1  # line[low] can be won, line[high] cannot
    while high - low > 1:
        middle = (low + high) // 2
        if _exact(line[middle]).winnable:
            low = middle
        else:
            high = middle
    lost_at = standing[low]
    losing = actions[lost_at]
    before = line[low]
    best = at_start if low == 0 else _exact(before, best=True)
    return replace(
        summary,
        lost_at=lost_at,
        losing_action=losing,
        losing_card=line[low + 1].waste,
        losing_peak=PEAK_OF[losing.slot] if isinstance(losing, Tap) else None,
        best_line=best.line,
        best_line_score=best.best_score,
    )
