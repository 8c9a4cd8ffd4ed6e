"""Rule sets, game codes and deals.

A game code such as ``TP1-E-AAAAAAB`` names a rule set and a deal number. The deal number (the last seven letters
in base 26, ``A`` = 0, most significant first) seeds the project's own generator, so a code deals the same cards on
every machine and in every version:

- the generator is SplitMix64 (Steele, Lea and Flood, 2014) started from the deal number;
- the shuffle is Fisher-Yates over the fixed :data:`~core.cards.FULL_DECK` order, from the last position down,
  each index drawn uniformly with rejection sampling (no modulo bias);
- the shuffled deck is dealt as: cards 0-27 to the tableau slots in order, card 28 face up to the waste, cards
  29-51 to the stock, card 29 being the first drawn.

The original app's shuffle is not published, so our ``TP1-E-AAAAAAB`` holds other cards than its example.

>>> code = GameCode.parse(" tp1-n-aaaaaab ")
>>> str(code), code.rules, code.number
('TP1-E-AAAAAAB', <Rules.EASY: 'easy'>, 1)
>>> str(GameCode(Rules.CLASSIC, 3))
'TP1-C-AAAAAAD'
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from core.cards import FULL_DECK, Card
from core.errors import InvalidCardError, InvalidCodeError, InvalidLayoutError
from core.layout import SLOT_COUNT, STOCK_SIZE

CODE_PREFIX = "TP1"
CODE_LETTERS = 7
#: Deal numbers run from 0 to 26**7 - 1.
DEAL_COUNT = 26**CODE_LETTERS


class Rules(enum.Enum):
    """The two rule sets: in Easy a King and an Ace are adjacent, in Classic they are not."""

    EASY = "easy"
    CLASSIC = "classic"

    @property
    def letter(self) -> str:
        return "E" if self is Rules.EASY else "C"

    @property
    def wraps(self) -> bool:
        """True when King and Ace are adjacent (Easy)."""
        return self is Rules.EASY

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read ``easy``/``classic`` or a code letter ``E``/``C``/``N`` (``N`` is the old letter for Easy)."""
        key = text.strip().lower()
        found = {"easy": cls.EASY, "e": cls.EASY, "n": cls.EASY, "classic": cls.CLASSIC, "c": cls.CLASSIC}.get(key)
        if found is None:
            raise InvalidCodeError(f"unknown rule set {text!r}: use easy or classic")
        return found

    def adjacent(self, a: int, b: int) -> bool:
        """Whether ranks ``a`` and ``b`` (1..13) are one apart under these rules.

        >>> Rules.EASY.adjacent(13, 1), Rules.CLASSIC.adjacent(13, 1), Rules.CLASSIC.adjacent(8, 7)
        (True, False, True)
        """
        diff = abs(a - b)
        return diff == 1 or (diff == 12 and self is Rules.EASY)


_CODE_RE = re.compile(r"^TP1-([ECN])-([A-Z]{7})$")


@dataclass(frozen=True)
class GameCode:
    """A rule set and a deal number; ``str()`` gives the canonical code."""

    rules: Rules
    number: int

    def __post_init__(self) -> None:
        if not 0 <= self.number < DEAL_COUNT:
            raise InvalidCodeError(f"deal number {self.number} is outside 0..{DEAL_COUNT - 1}")

    @classmethod
    def parse(cls, text: str) -> GameCode:
        """Read a code; case and surrounding spaces are ignored, ``N`` reads as Easy."""
        match = _CODE_RE.match(text.strip().upper())
        if match is None:
            raise InvalidCodeError(f"not a game code: {text.strip()!r} (expected like TP1-E-AAAAAAB)")
        number = 0
        for letter in match.group(2):
            number = number * 26 + ord(letter) - ord("A")
        return cls(Rules.parse(match.group(1)), number)

    def __str__(self) -> str:
        letters = []
        n = self.number
        for _ in range(CODE_LETTERS):
            n, digit = divmod(n, 26)
            letters.append(chr(ord("A") + digit))
        return f"{CODE_PREFIX}-{self.rules.letter}-{''.join(reversed(letters))}"

    def deal(self) -> Deal:
        return Deal.from_number(self.number)


_MASK64 = (1 << 64) - 1


def splitmix64(seed: int) -> Iterator[int]:
    """The SplitMix64 sequence of 64-bit numbers from ``seed``.

    >>> hex(next(splitmix64(0)))
    '0xe220a8397b1dcdaf'
    """
    state = seed & _MASK64
    while True:
        state = (state + 0x9E3779B97F4A7C15) & _MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        yield z ^ (z >> 31)


def _uniform_below(bound: int, source: Iterator[int]) -> int:
    limit = (1 << 64) - (1 << 64) % bound
    while True:
        value = next(source)
        if value < limit:
            return value % bound


def shuffled_deck(number: int) -> tuple[Card, ...]:
    """The full deck shuffled for deal ``number`` (Fisher-Yates driven by SplitMix64)."""
    deck = list(FULL_DECK)
    source = splitmix64(number)
    for i in range(len(deck) - 1, 0, -1):
        j = _uniform_below(i + 1, source)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


@dataclass(frozen=True)
class Deal:
    """Where every card starts: 28 tableau cards in slot order, the waste card, and 23 stock cards (first drawn
    first)."""

    tableau: tuple[Card, ...]
    waste: Card
    stock: tuple[Card, ...]

    def __post_init__(self) -> None:
        cards = self.cards()
        if len(self.tableau) != SLOT_COUNT or len(self.stock) != STOCK_SIZE:
            raise InvalidLayoutError(
                f"a deal needs {SLOT_COUNT} tableau cards, 1 waste card and {STOCK_SIZE} stock cards")
        if len(set(cards)) != len(cards):
            dupes = sorted({str(c) for c in cards if cards.count(c) > 1})
            raise InvalidLayoutError(f"cards appear twice: {' '.join(dupes)}")

    @classmethod
    def from_number(cls, number: int) -> Deal:
        return cls.from_cards(shuffled_deck(number))

    @classmethod
    def from_cards(cls, cards: Sequence[Card]) -> Deal:
        """Tableau (28), waste (1), stock (23, first drawn first), in that order."""
        if len(cards) != 52:
            raise InvalidLayoutError(f"a layout has 52 cards, got {len(cards)}")
        return cls(tuple(cards[:SLOT_COUNT]), cards[SLOT_COUNT], tuple(cards[SLOT_COUNT + 1:]))

    @classmethod
    def parse(cls, text: str) -> Deal:
        """Read 52 cards separated by spaces or commas: the 28 tableau cards, the waste card, the 23 stock cards."""
        words = text.replace(",", " ").split()
        try:
            cards = [Card.parse(w) for w in words]
        except InvalidCardError as error:
            raise InvalidLayoutError(str(error)) from None
        return cls.from_cards(cards)

    def cards(self) -> tuple[Card, ...]:
        """All 52 cards in dealing order."""
        return (*self.tableau, self.waste, *self.stock)

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards())
