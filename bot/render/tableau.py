"""Cards as players see them: on buttons and in sentences (:func:`card_label`), and the compact monospace tableau
that fits a 360-pixel phone (:func:`tableau_text`).

The tableau is at most :data:`~bot.render.view.TABLEAU_COLUMNS` (30) columns wide in every state and language:
each card takes three columns, a gap, the rank and the suit, so neighbours never touch; a ten is ``X`` (the Roman
ten: its two digits would fill the gap, ``9♦10♦``), as on the narrow board::

         ▒▒       ▒▒       ▒▒
        ▒▒ ▒▒    ▒▒ ▒▒    ▒▒ ▒▒
      ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒
     2♣ A♦ 6♠ K♧ K♡ X♥ X♠ J♤ X♦ 8♠
          ▒▒ 23  [Q♣]

- ``▒▒`` a face-down card; a face-up card is free (nothing covers it any more: in these rules a card turns face
  up exactly when it is uncovered);
- a free card that fits the waste card shows its suit outlined, ``K♧``: one mark, inside the card it belongs to,
  the same on both boards; ``>`` in the gap before a card points at the hinted card (``>K♧``), before the stock at
  the hinted draw, so a client that shows no button colours still shows the hint on the board (the narrow board
  has no gaps: there the status line names it);
- the last line: the stock (a face-down card and how many are left, ``--`` when empty) and the waste card in
  brackets, a ten written ``10`` there in full. No words: they would not line up in every language, so the words
  are on the buttons and in the status lines.

A peak card sits between the two cards covering it. A row whose cards are all gone keeps its line, blank, so the
board keeps its height and the buttons under it stay where they were; a won game shows only the stock and the
waste.
"""

from __future__ import annotations

from bot.render.view import EMOJI, TEXT
from core.cards import Card, Rank, Suit
from core.game import Game
from core.layout import ROWS

FACE_DOWN = "▒▒"
EMPTY_STOCK = "--"
#: In the gap before the hinted card, or before the stock when the hint says draw.
MARK_HINT = ">"
#: A free card that fits the waste card shows its suit outlined, on both boards.
OUTLINED = {"♠": "♤", "♥": "♡", "♦": "♢", "♣": "♧"}
CELL = 3  # columns a card takes: a gap, its rank, its suit
#: Where the stock (with its mark) and the waste box start on the last line: under the middle peak.
STOCK_COLUMN = 5
WASTE_COLUMN = 13


#: The diamond of the four-colour deck on a button: blue, as the picture draws it (no blue ♦ emoji exists).
BLUE_DIAMOND = "\U0001f539"


def card_label(card: Card, *, four_colour: bool = False) -> str:
    """A card on a button or in a sentence: ``7♠︎`` (text form, so a black suit keeps the button's own colour),
    ``10♥️`` (the red emoji form: red suits show in red); ``four_colour`` (the picture's deck, diamonds blue): a
    diamond as a small blue diamond, ``7🔹``."""
    if four_colour and card.suit is Suit.DIAMONDS:
        return card.rank.label + BLUE_DIAMOND
    return card.symbol() + (EMOJI if card.suit.is_red else TEXT)


def card_cell(card: Card) -> str:
    """The waste card as the boards write it: ``7♠``, ``10♥`` (a ten is 10, as on its button: a letter T would read
    as the ace, Туз, in Russian and Ukrainian), no variation selector (an emoji form would break the alignment)."""
    return f"{card.rank.label}{card.suit.symbol}"


#: A ten in a row of either board: the Roman ten, X, one column in every monospace font (the digits would need
#: three columns with the suit, and run into the card beside it). Never T, which in Russian and Ukrainian shorthand is the ace (Туз); and not ⑩, which
#: no monospace font has: a phone draws it from another font, wider than a column, and the rest of its row (and the
#: peaks above it) slid out of line (seen on SimCord's preview at 360 px).
ROW_TEN = "X"


def row_card(card: Card, *, fits: bool = False) -> str:
    """A face-up card in a row of either board, two columns: ``7♠``, ``X♥`` (a ten); a free card that fits the
    waste card has its suit outlined (``7♤``)."""
    rank = ROW_TEN if card.rank is Rank.TEN else card.rank.label
    return rank + (OUTLINED[card.suit.symbol] if fits else card.suit.symbol)


def slot_column(slot: int) -> int:
    """The column of ``slot``'s gap in a tableau line; its two characters follow. A card sits centred over the two
    cards covering it (half a column to the left where the centre falls between two columns): bottom card j at
    3j, third-row j at 3j+1, second-row (peak p, k) at 9p+3k+3, top p at 9p+4."""
    if slot < 3:
        return 9 * slot + 4
    if slot < 9:
        p, k = divmod(slot - 3, 2)
        return 9 * p + 3 * k + 3
    if slot < 18:
        return 3 * (slot - 9) + 1
    return 3 * (slot - 18)


#: The places of a board's card buttons: one for each card of the bottom row, left to right.
CARD_PLACES = 10


def card_place(slot: int) -> int:
    """The place of ``slot``'s button in the board's grid of card buttons: the bottom-row card under the middle of
    it (its column on the table, in thirds). Every card of a place lies on the card before it (a third-row card on
    its bottom-row card, and so on up), so at most one card of a place is free at a time: a free card keeps its
    button's place until it is played.

    >>> [card_place(s) for s in (18, 27, 9, 17, 3, 8, 0, 2)]
    [0, 9, 0, 8, 1, 8, 1, 7]
    """
    return slot_column(slot) // 3


def _fits(game: Game, slot: int) -> bool:
    return game.is_playable(slot) and game.fits(slot)


def _rows_shown(game: Game) -> list[range]:
    """The rows that get a line: every row while a card is left (an emptied one blank), none once the game is won."""
    return list(ROWS) if game.cards_left else []


def _cell(game: Game, slot: int, hinted_slot: int | None) -> str:
    if game.is_removed(slot):
        return " " * CELL
    if not game.is_face_up(slot):
        return " " + FACE_DOWN
    return (MARK_HINT if slot == hinted_slot else " ") + row_card(game.card_at(slot), fits=_fits(game, slot))


#: The narrow board's width: each card two columns, no gaps (Discord's code blocks on a phone show about 23).
NARROW_COLUMNS = 20


def narrow_slot_column(slot: int) -> int:
    """The first of ``slot``'s two columns on the narrow board: bottom card j at 2j, third-row j at 2j+1,
    second-row (peak p, k) at 6p+2k+2, top p at 6p+3."""
    if slot < 3:
        return 6 * slot + 3
    if slot < 9:
        p, k = divmod(slot - 3, 2)
        return 6 * p + 2 * k + 2
    if slot < 18:
        return 2 * (slot - 9) + 1
    return 2 * (slot - 18)


def narrow_tableau_text(game: Game) -> str:
    """The board in :data:`NARROW_COLUMNS` columns, for code blocks narrower than a Telegram bubble (Discord's, on a
    phone): the wide board's cards with no gap between neighbours, the stock and the waste on the last line.

    >>> print(narrow_tableau_text(Game.from_code("TP1-E-AAAAAAB")))
       ▒▒    ▒▒    ▒▒
      ▒▒▒▒  ▒▒▒▒  ▒▒▒▒
     ▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒
    2♣A♦6♠K♧K♡X♥X♠J♤X♦8♠
     ▒▒23 [Q♣]
    """
    lines = []
    for row in _rows_shown(game):
        line = [" "] * (narrow_slot_column(row[-1]) + 2)
        for slot in row:
            column = narrow_slot_column(slot)
            if game.is_removed(slot):
                continue
            line[column:column + 2] = row_card(game.card_at(slot), fits=_fits(game, slot)) \
                if game.is_face_up(slot) else FACE_DOWN
        lines.append("".join(line).rstrip())
    pile = FACE_DOWN if game.stock_left else EMPTY_STOCK
    lines.append(f" {pile}{game.stock_left:<2} [{card_cell(game.waste)}]")
    return "\n".join(lines)


def tableau_text(game: Game, *, hinted_slot: int | None = None, hinted_draw: bool = False) -> str:
    """The peaks, then the stock and the waste card; see the module's docstring. ``hinted_slot`` and ``hinted_draw``
    mark the move a hint suggests."""
    lines = []
    for row in _rows_shown(game):
        line = [" "] * (slot_column(row[-1]) + CELL)
        for slot in row:
            column = slot_column(slot)
            line[column:column + CELL] = _cell(game, slot, hinted_slot)
        lines.append("".join(line).rstrip())
    pile = FACE_DOWN if game.stock_left else EMPTY_STOCK
    mark = MARK_HINT if hinted_draw and game.stock_left else " "
    stock = f"{mark}{pile}{game.stock_left:>3}"
    lines.append(" " * STOCK_COLUMN + stock.ljust(WASTE_COLUMN - STOCK_COLUMN) + f"[{card_cell(game.waste)}]")
    return "\n".join(lines)
