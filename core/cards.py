"""Cards, ranks and suits.

>>> Card.parse("TH")
Card(rank=<Rank.TEN: 10>, suit=<Suit.HEARTS: 'H'>)
>>> str(Card.parse("10♠")), Card.parse("7s").symbol()
('TS', '7♠')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core.errors import InvalidCardError


class Suit(enum.Enum):
    """A suit, valued by its letter. Suits never matter for legality, only for display."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)


_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}
_SUIT_BY_TEXT = {s.letter: s for s in Suit} | {s.symbol: s for s in Suit} | {"♤": Suit.SPADES,
                 "♡": Suit.HEARTS, "♢": Suit.DIAMONDS, "♧": Suit.CLUBS}


class Rank(enum.IntEnum):
    """A rank from Ace (1) to King (13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def letter(self) -> str:
        """One character: ``A 2-9 T J Q K``."""
        return "A23456789TJQK"[self - 1]

    @property
    def label(self) -> str:
        """How a player reads it: ``A 2-10 J Q K``."""
        return "10" if self is Rank.TEN else self.letter


    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read a rank alone: ``K``, ``10``, ``t``, ``a``; raise :class:`InvalidCardError` otherwise.

        >>> Rank.parse("k"), Rank.parse("10")
        (<Rank.KING: 13>, <Rank.TEN: 10>)
        """
        rank = _RANK_BY_TEXT.get(text.strip().upper())
        if rank is None:
            raise InvalidCardError(f"not a rank: {text!r} (expected A 2-10 J Q K)")
        return rank


_RANK_BY_TEXT = {r.letter: r for r in Rank} | {"10": Rank.TEN, "1": Rank.ACE}


@dataclass(frozen=True)
class Card:
    """A playing card. ``str(card)`` is the two-letter form ``rank + suit`` (``"TH"``)."""

    rank: Rank
    suit: Suit

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read ``7S``, ``7♠``, ``10h``, ``th``; raise :class:`InvalidCardError` otherwise."""
        cleaned = text.strip().upper().replace("\ufe0f", "")
        rank = _RANK_BY_TEXT.get(cleaned[:-1])
        suit = _SUIT_BY_TEXT.get(cleaned[-1:])
        if rank is None or suit is None:
            raise InvalidCardError(f"not a card: {text!r} (expected rank A 2-9 T J Q K and suit C D H S)")
        return cls(rank, suit)

    @property
    def index(self) -> int:
        """0..51, suits in the order C D H S, ranks A..K within a suit."""
        return _SUIT_ORDER.index(self.suit) * 13 + self.rank - 1

    def symbol(self) -> str:
        """Rank and suit symbol for display, e.g. ``10♥``."""
        return f"{self.rank.label}{self.suit.symbol}"

    def __str__(self) -> str:
        return f"{self.rank.letter}{self.suit.letter}"


_SUIT_ORDER = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)

#: The 52 cards in their fixed order: the starting point of every shuffle.
FULL_DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in _SUIT_ORDER for rank in Rank)
