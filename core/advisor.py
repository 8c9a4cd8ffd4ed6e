"""A hint that plays fair: the advice of a player who sees only what is face up.

The exact solver (:mod:`core.solver`) knows every face-down card and the order of the stock. The advisor knows only
a :class:`VisiblePosition`: the face-up cards, which slots are empty or face down, the cards already out of play,
the waste card and how many cards the stock holds. The cards not seen yet (:attr:`VisiblePosition.unseen`) lie in
the face-down slots and the stock in an order the player cannot know, every order being equally likely.

:func:`advise` deals those unseen cards at random into the face-down slots and the stock many times (a *sample*
each), solves every sample exactly, and for every legal first action counts the samples in which the position after
it can still be won. The same samples serve every action (common random numbers), so the comparison is not blurred
by luck. A close call (the best action loses in some samples and the runner-up trails it by at most an eighth of
them) gets a second look: as many samples again, the stream of samples going on. It chooses the action that wins
in the most samples (ties: a removal that turns a card face up, then any removal before the draw, then the lower
slot: a card turned up is seen, and later choices are made knowing it), except that it draws while a card fits
only when the draw wins in more samples than the best removal by a margin (one sample in 16, at least one): each
sample is solved knowing which card the draw brings, which a player does not. ``raw_chance`` is the chosen action's
share of the samples. When the unseen cards can only be arranged in a few ways (no more than ``samples`` orders of
their ranks), every arrangement is solved once.

The raw share is optimistic: each sample is solved as if its hidden cards were known from the next move on, while
the player will still be guessing. ``win_chance``, the chance a hint shows, is the raw share mapped through the
calibration table (:mod:`core.calibration`), fitted on games played by following the advisor: when it says about
70%, such positions are won about 70% of the time by a player who follows the hints. Where nothing is hidden (one
arrangement), or no arrangement at all can be won, the raw share is the truth and shown as it is.

Randomness comes from the project's own SplitMix64 (:func:`core.deal.splitmix64`), seeded by ``seed`` and
independent of hash order and of the Python version, so an answer depends on the visible position and the seed
only, as long as the time budget does not cut the sampling short (then ``samples_used < samples``).

>>> from core.game import Game
>>> game = Game.from_code("TP1-E-AAAAAAB")
>>> position = VisiblePosition.of(game)
>>> position.stock_left, len(position.face_down_slots()), len(position.unseen())
(23, 18, 41)
>>> advice = advise(position, samples=12)
>>> str(advice.action), advice.samples_used, round(advice.raw_chance, 3), advice.win_chance < advice.raw_chance
('21', 18, 0.944, True)
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace

from core.calibration import Calibration, shipped
from core.cards import FULL_DECK, Card
from core.deal import Rules, _uniform_below, splitmix64
from core.errors import GameOverError, InvalidLayoutError
from core.game import DRAW, Draw, Game, Status, Tap
from core.layout import ALL_SLOTS_MASK, COVER_MASKS, SLOT_COUNT, STOCK_SIZE, turned_up
from core.solver import winnable_actions

__all__ = ["DEFAULT_NODE_BUDGET", "DEFAULT_SAMPLES", "Advice", "SlotState", "VisiblePosition", "advise",
           "shown_chance"]

#: Samples per answer (a close call gets as many again; bench/advisor.py measures the time and the win rates).
DEFAULT_SAMPLES = 64
#: Positions and masks the solver may examine for one answer, over all samples: with the native kernel (some 8
#: million a second) a hint costs up to about 40 ms of one core at p99, under the 50 ms aimed at (bench/advisor.py
#: measures it; docs/benchmarks.md); the pure solver (370,000 to 600,000 a second) needs up to some 0.85 s,
#: where the bot's time budget for a hint may cut it first. It cuts the sampling short in a fifth of the decisions
#: of Easy deals and 29% of Classic ones; unlike a time budget it gives the same answer on every machine. It was
#: 240,000 before the kernel: 320,000 won more deals and gave a steadier chance on the deals it was chosen on
#: (200000-200199 of each rule set; issue 40).
DEFAULT_NODE_BUDGET = 320_000
#: The calibration map of the shown chance (:mod:`core.calibration`).
_SHIPPED = shipped()
#: The rank written where the solver never reads one: removed slots and the cards already drawn.
_FILLER = 1


class SlotState(enum.Enum):
    """What a player sees in a slot that shows no card."""

    REMOVED = "removed"
    FACE_DOWN = "face_down"


@dataclass(frozen=True)
class VisiblePosition:
    """A position as the player sees it. It holds no face-down card and no stock card, by construction.

    ``slots`` has one entry a slot (0-27): the face-up :class:`~core.cards.Card`, :attr:`SlotState.REMOVED` or
    :attr:`SlotState.FACE_DOWN`. ``out_of_play`` are the cards the player has seen leave play, in deck order: the
    removed peak cards, the first waste card and every card drawn (the waste card among them).
    """

    rules: Rules
    slots: tuple[Card | SlotState, ...]
    waste: Card
    stock_left: int
    out_of_play: tuple[Card, ...]

    def __post_init__(self) -> None:
        if len(self.slots) != SLOT_COUNT:
            raise InvalidLayoutError(f"a visible position has {SLOT_COUNT} slots, got {len(self.slots)}")
        if not 0 <= self.stock_left <= STOCK_SIZE:
            raise InvalidLayoutError(f"the stock holds 0-{STOCK_SIZE} cards, not {self.stock_left}")
        removed = self.removed_mask
        for slot, seen in enumerate(self.slots):
            if seen is SlotState.REMOVED:
                continue
            face_up = removed & COVER_MASKS[slot] == COVER_MASKS[slot]
            if face_up != isinstance(seen, Card):
                raise InvalidLayoutError(f"slot {slot} is {'face up' if face_up else 'face down'}: "
                                         f"{'a card' if face_up else 'no card'} goes there")
        shown = [card for card in self.slots if isinstance(card, Card)] + list(self.out_of_play)
        if len(set(shown)) != len(shown):
            raise InvalidLayoutError("a card is seen twice")
        if self.waste not in self.out_of_play:
            raise InvalidLayoutError("the waste card is out of play")
        if len(self.out_of_play) != 1 + removed.bit_count() + STOCK_SIZE - self.stock_left:
            raise InvalidLayoutError("out of play are the first waste card, the removed cards and the drawn ones")

    @classmethod
    def of(cls, game: Game) -> VisiblePosition:
        """What the player of ``game`` sees; undo history and score play no part.

        >>> from core.game import Game, Tap
        >>> game = Game.from_code("TP1-E-AAAAAAB")
        >>> _ = game.push(Tap(22))
        >>> seen = VisiblePosition.of(game)
        >>> seen.slots[22], seen.slots[13], str(seen.waste), [str(c) for c in seen.out_of_play]
        (<SlotState.REMOVED: 'removed'>, <SlotState.FACE_DOWN: 'face_down'>, 'KH', ['QC', 'KH'])
        """
        slots: list[Card | SlotState] = []
        for slot in range(SLOT_COUNT):
            if game.is_removed(slot):
                slots.append(SlotState.REMOVED)
            elif game.is_face_up(slot):
                slots.append(game.card_at(slot))
            else:
                slots.append(SlotState.FACE_DOWN)
        # every card that left play is on the waste pile: the first waste card, the draws and the removals
        gone = tuple(sorted(set(game.pile), key=lambda card: card.index))
        return cls(game.rules, tuple(slots), game.waste, game.stock_left, gone)

    @property
    def removed_mask(self) -> int:
        """Bit ``s`` set when slot ``s`` is empty."""
        return sum(1 << slot for slot, seen in enumerate(self.slots) if seen is SlotState.REMOVED)

    def face_down_slots(self) -> tuple[int, ...]:
        return tuple(slot for slot, seen in enumerate(self.slots) if seen is SlotState.FACE_DOWN)

    def unseen(self) -> tuple[Card, ...]:
        """The cards the player has not seen, in deck order: those in the face-down slots and in the stock."""
        shown = {card for card in self.slots if isinstance(card, Card)} | set(self.out_of_play)
        return tuple(card for card in FULL_DECK if card not in shown)

    @property
    def status(self) -> Status:
        """Won, blocked (the stock is empty and no free card fits the waste card) or still playing."""
        if self.removed_mask == ALL_SLOTS_MASK:
            return Status.WON
        if self.stock_left == 0 and not self.legal_taps():
            return Status.BLOCKED
        return Status.PLAYING

    def legal_taps(self) -> tuple[Tap, ...]:
        """The free cards that fit the waste card, in slot order."""
        waste = int(self.waste.rank)
        return tuple(Tap(slot) for slot, seen in enumerate(self.slots)
                     if isinstance(seen, Card) and self.rules.adjacent(int(seen.rank), waste))

    def legal_actions(self) -> tuple[Tap | Draw, ...]:
        """The fitting removals in slot order, then the draw while the stock lasts."""
        return self.legal_taps() + ((DRAW,) if self.stock_left else ())


@dataclass(frozen=True)
class Advice:
    """What :func:`advise` recommends.

    ``raw_chance`` is the share of the samples in which the position after ``action`` can be won (0 to 1), and
    ``win_chance`` the chance to show: the raw share calibrated (:func:`shown_chance`). ``wins`` counts the
    winning samples for every legal action, in the order of :meth:`VisiblePosition.legal_actions`.
    ``exact`` is True when every possible arrangement of the unseen cards' ranks was solved, once each.
    When the time budget ran out before one sample was solved there is no advice: ``action`` and ``win_chance``
    are None and ``samples_used`` is 0 (a hint then says it found nothing in time, never that the game is lost).
    """

    action: Tap | Draw | None
    win_chance: float | None
    samples_used: int
    wins: tuple[tuple[Tap | Draw, int], ...]
    exact: bool
    raw_chance: float | None = None

    @property
    def certain(self) -> bool:
        """Whether the raw chance is no estimate but the truth: every arrangement of the unseen cards was solved,
        and there is only one, or none of them wins."""
        return self.exact and (self.samples_used == 1 or self.raw_chance == 0.0)

    def chance(self, action: Tap | Draw) -> float:
        """The share of the samples ``action`` can still win (0.0 for an action that is not legal)."""
        if not self.samples_used:
            return 0.0
        return next((count for candidate, count in self.wins if candidate == action), 0) / self.samples_used


def _arrangements(ranks: list[int]) -> int:
    """How many distinct orders a multiset of ranks has."""
    count = math.factorial(len(ranks))
    for rank in set(ranks):
        count //= math.factorial(ranks.count(rank))
    return count


def _distinct_orders(ranks: list[int]) -> Iterator[tuple[int, ...]]:
    """Every distinct order of ``ranks``, in lexicographic order (the next-permutation algorithm)."""
    order = sorted(ranks)
    while True:
        yield tuple(order)
        i = len(order) - 2
        while i >= 0 and order[i] >= order[i + 1]:
            i -= 1
        if i < 0:
            return
        j = len(order) - 1
        while order[j] <= order[i]:
            j -= 1
        order[i], order[j] = order[j], order[i]
        order[i + 1:] = reversed(order[i + 1:])


def _random_orders(ranks: list[int], count: int, seed: int) -> Iterator[tuple[int, ...]]:
    """``count`` uniformly random orders of ``ranks`` (Fisher-Yates driven by SplitMix64 from ``seed``)."""
    source = splitmix64(seed)
    for _ in range(count):
        order = list(ranks)
        for i in range(len(order) - 1, 0, -1):
            j = _uniform_below(i + 1, source)
            order[i], order[j] = order[j], order[i]
        yield tuple(order)


def _close(wins: list[int], used: int) -> bool:
    """Whether the best action loses in some samples and the runner-up, winning in some, trails it by at most an
    eighth of them: a close call, which gets a second look (as many samples again)."""
    if len(wins) < 2:
        return False
    first, second = sorted(wins, reverse=True)[:2]
    return second > 0 and first < used and (first - second) * 8 <= used


def _draw_margin(used: int) -> int:
    """How many samples more than the best removal the draw must win in before it is chosen while a card fits: one in
    16 of those ``used``, at least one. The samples see the card the draw brings; a player does not, and a draw
    preferred by a hair was measured to lose games (bench/advisor.py, docs/benchmarks.md).

    >>> _draw_margin(17), _draw_margin(64), _draw_margin(128)
    (1, 4, 8)
    """
    return max(1, used // 16)


def _reveals(action: Tap | Draw, removed: int) -> bool:
    """Whether ``action`` removes a card and so turns a face-down card face up."""
    return isinstance(action, Tap) and bool(turned_up(action.slot, removed))


def advise(position: VisiblePosition, *, samples: int = DEFAULT_SAMPLES, seed: int = 0,
           node_budget: int | None = DEFAULT_NODE_BUDGET, time_budget: float | None = None,
           second_look: bool = True, prefer_reveals: bool = True, draw_margin: bool = True) -> Advice:
    """The action that can still win in the most arrangements of the unseen cards, and its chance.

    ``samples`` random arrangements are solved (all arrangements, once each, when there are no more than that); a
    close call gets as many again when ``second_look``. ``prefer_reveals`` breaks a tie toward a removal that turns
    a card face up. ``draw_margin`` plays a fitting card unless the draw wins in more samples than the best of them
    by more than :func:`_draw_margin` (all three are on by default; off, the advisor is as it was first written, for
    the bench).
    ``node_budget`` (positions and masks the solver examines, over all samples) and ``time_budget`` (seconds) stop
    the sampling early, keeping the samples solved so far; None for no limit. The first sample is always solved
    whatever the node budget, so at least one sample is used unless the time budget runs out during it: then the
    advice has no action and no chance (``samples_used`` 0). The answer
    depends only on the position, ``samples``, ``seed`` and ``node_budget``, unless the time budget cuts it short.
    Raise :class:`~core.errors.GameOverError` when the game is won or blocked.

    Nothing is hidden here: the last stock card is a Queen, the only card that can take the last King.

    >>> from core.cards import Card
    >>> slots = (Card.parse("KH"),) + (SlotState.REMOVED,) * 27
    >>> out = tuple(c for c in FULL_DECK if c not in (Card.parse("KH"), Card.parse("QS")))
    >>> seen = VisiblePosition(Rules.CLASSIC, slots, Card.parse("2C"), 1, out)
    >>> seen.unseen(), seen.legal_actions()
    ((Card(rank=<Rank.QUEEN: 12>, suit=<Suit.SPADES: 'S'>),), (Draw(),))
    >>> advise(seen)
    Advice(action=Draw(), win_chance=1.0, samples_used=1, wins=((Draw(), 1),), exact=True, raw_chance=1.0)
    """
    if samples < 1:
        raise ValueError(f"samples must be at least 1, not {samples}")
    status = position.status
    if status is not Status.PLAYING:
        raise GameOverError(f"the game is {status.value}: there is nothing to advise")
    started = time.perf_counter()
    deadline = None if time_budget is None else started + time_budget
    actions = position.legal_actions()
    face_down = position.face_down_slots()
    unseen = [int(card.rank) for card in position.unseen()]
    base = [_FILLER if isinstance(seen, SlotState) else int(seen.rank) for seen in position.slots]
    drawn = STOCK_SIZE - position.stock_left
    removed, waste = position.removed_mask, int(position.waste.rank)

    exact = _arrangements(unseen) <= samples
    # a second look: the same stream of orders goes on past ``samples`` when the two best actions are close
    orders = _distinct_orders(unseen) if exact else _random_orders(unseen, samples * (2 if second_look else 1), seed)
    wins = [0] * len(actions)
    solved: dict[tuple[int, ...], tuple[bool, ...]] = {}  # the same ranks drawn twice are solved once
    used = nodes = 0
    stopped = False
    for order in orders:
        if used == samples and not _close(wins, used):
            break
        verdicts = solved.get(order)
        if verdicts is None:
            remaining = None if deadline is None else deadline - time.perf_counter()
            nodes_left = None if node_budget is None or not solved else node_budget - nodes
            if (remaining is not None and remaining <= 0) or (nodes_left is not None and nodes_left <= 0):
                stopped = True
                break
            ranks = list(base)
            for slot, rank in zip(face_down, order, strict=False):
                ranks[slot] = rank
            stock = [_FILLER] * drawn + list(order[len(face_down):])
            answer = winnable_actions(position.rules, ranks, stock, removed, drawn, waste, node_budget=nodes_left,
                                      time_budget=remaining)
            nodes += answer.nodes
            if answer.verdicts is None:
                stopped = True
                break
            assert tuple(action for action, _ in answer.verdicts) == actions
            verdicts = tuple(won for _, won in answer.verdicts)
            solved[order] = verdicts
        used += 1
        for index, won in enumerate(verdicts):
            wins[index] += won
    exact = exact and not stopped
    counted = tuple(zip(actions, wins, strict=True))
    if not used:
        return Advice(None, None, 0, counted, False)
    # the most wins, a removal counted with the draw margin's samples more; on a tie a removal that turns a card face
    # up, then any removal (listed first, in slot order) before the draw
    margin = _draw_margin(used) if draw_margin else 0
    reveals = [prefer_reveals and _reveals(action, removed) for action in actions]
    best = max(range(len(actions)),
               key=lambda index: (wins[index] + margin * isinstance(actions[index], Tap), reveals[index], -index))
    raw = wins[best] / used
    advice = Advice(actions[best], raw, used, counted, exact, raw)
    start = removed == 0
    return replace(advice, win_chance=shown_chance(raw, position.rules, position.stock_left, len(face_down),
                                                   certain=advice.certain, start=start))


def shown_chance(raw: float, rules: Rules, stock_left: int, face_down: int, *, certain: bool,
                 start: bool = False, table: Calibration | None = None) -> float:
    """The chance a hint shows for a raw share ``raw`` of winning samples: the raw share itself when it is
    ``certain`` (every arrangement of the unseen cards was solved, and there is only one or none wins), else mapped
    by the calibration ``table`` (the shipped one by default, :func:`core.calibration.shipped`); ``start``: no card
    removed yet (a game's first decision), which the table maps on its own."""
    if certain:
        return raw
    return (table or _SHIPPED).chance(raw, rules, stock_left, face_down, start=start)
