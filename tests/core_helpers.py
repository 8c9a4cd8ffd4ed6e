"""Building hand-made deals for the engine tests."""

from __future__ import annotations

import functools

from core.cards import FULL_DECK, Card, Rank, Suit
from core.deal import Deal
from core.game import DRAW, Action, Game, Status, Tap
from core.solver import solve


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def make_deal(tableau: dict[int, str] | list[str], waste: str, stock: list[str] | None = None) -> Deal:
    """A deal with the given cards in the given slots (the rest filled from the unused cards in deck order)."""
    placed = dict(enumerate(tableau)) if isinstance(tableau, list) else dict(tableau)
    chosen = {slot: Card.parse(text) for slot, text in placed.items()}
    waste_card = Card.parse(waste)
    stock_cards = [Card.parse(text) for text in stock or []]
    used = set(chosen.values()) | {waste_card} | set(stock_cards)
    spare = iter(card for card in FULL_DECK if card not in used)
    full_tableau = [chosen[s] if s in chosen else next(spare) for s in range(28)]
    full_stock = stock_cards + [next(spare) for _ in range(23 - len(stock_cards))]
    return Deal(tuple(full_tableau), waste_card, tuple(full_stock))


# Slots in an order that always removes free cards: the bottom row, then row 3, row 2 and the tops.
BOTTOM_UP_ORDER = list(range(18, 28)) + list(range(9, 18)) + list(range(3, 9)) + list(range(0, 3))


def run_deal(ranks: list[int], waste_rank: int) -> Deal:
    """A deal whose tableau, removed in BOTTOM_UP_ORDER, has the given ranks (suits assigned so cards differ)."""
    used: dict[int, int] = {waste_rank: 1}
    suits = list(Suit)
    tableau: dict[int, str] = {}
    for slot, rank in zip(BOTTOM_UP_ORDER, ranks, strict=True):
        suit = suits[used.get(rank, 0)]
        used[rank] = used.get(rank, 0) + 1
        tableau[slot] = str(Card(Rank(rank), suit))
    return make_deal(tableau, str(Card(Rank(waste_rank), Suit.CLUBS)))


def cyclic_win_deal() -> Deal:
    """Won in Easy by 28 removals without a draw: A on the waste, then 2, 3, ... K, A, 2, ... (wrapping)."""
    return run_deal([(i % 13) + 1 for i in range(1, 29)], waste_rank=1)


def zigzag_win_deal() -> Deal:
    """Won in either rule set without a draw: A on the waste, up to K, down to A, up to 5."""
    ranks = list(range(2, 14)) + list(range(12, 0, -1)) + [2, 3, 4, 5]
    return run_deal(ranks, waste_rank=1)


@functools.cache
def winning_line(code: str) -> tuple[Action, ...]:
    """A line of play that wins the deal ``code``, from the solver (which its own tests check against a plain
    search and the engine)."""
    solution = solve(Game.from_code(code))
    assert solution.winnable and solution.line is not None, f"{code} cannot be won"
    return solution.line


def blocking_line(code: str) -> list[Action]:
    """Draw the whole stock first, then play what fits: a poor game that ends blocked."""
    game = Game.from_code(code)
    line: list[Action] = []
    while game.status is Status.PLAYING:
        fits = [Tap(s) for s in game.playable_slots() if game.fits(s)]
        action: Action = DRAW if game.stock_left else fits[0]
        game.push(action)
        line.append(action)
    assert game.status is Status.BLOCKED
    return line
