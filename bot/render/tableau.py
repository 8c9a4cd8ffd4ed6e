"""Cards as players see them: on buttons and in sentences (:func:`card_label`), and the compact monospace tableau
that fits a 360-pixel phone (:func:`tableau_text`).

The tableau is at most :data:`~bot.render.view.TABLEAU_COLUMNS` (30) columns wide in every state and language:
each card takes three columns, a mark, the rank and the suit; a ten's two digits fill its three with the suit::

         ▒▒       ▒▒       ▒▒
        ▒▒ ▒▒    ▒▒ ▒▒    ▒▒ ▒▒
      ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒ ▒▒
     2♣ A♦ 6♠*K♣*K♥10♥10♠*J♠10♦ 8♠
          ▒▒ 23  [Q♣]

- ``▒▒`` a face-down card; a face-up card is free (nothing covers it any more: in these rules a card turns face
  up exactly when it is uncovered);
- ``*`` before a free card: it fits the waste card; ``>``: the hinted card (or, before the stock, the hinted
  draw); a ten has no column for a mark, so a ten that fits (or is hinted) shows its suit outlined, ``10♡``, as
  on the narrow board (the hint is also named in the status line and coloured on its button);
- the last line: the stock (a face-down card and how many are left, ``--`` when empty) and the waste card in
  brackets. No words: they would not line up in every language, so the words are on the buttons and in the
  status lines.

A peak card sits between the two cards covering it; a row whose cards are all gone is left out, so a won game
shows only the stock and the waste.
"""

from __future__ import annotations

from bot.render.view import EMOJI, TEXT
from core.cards import Card, Rank
from core.game import Game
from core.layout import ROWS

FACE_DOWN = "▒▒"
EMPTY_STOCK = "--"
#: The mark before a card in the tableau.
MARK_FITS = "*"
MARK_HINT = ">"
MARK_COVERED = "."  # face up but covered: never happens under these rules (a card turns face up when uncovered)
#: A free card that fits the waste card shows its suit outlined on the narrow board (and a ten on the wide one).
_OUTLINED = {"♠": "♤", "♥": "♡", "♦": "♢", "♣": "♧"}
CELL = 3  # columns a card takes: its mark, its rank, its suit
#: Where the stock (with its mark) and the waste box start on the last line: under the middle peak.
STOCK_COLUMN = 5
WASTE_COLUMN = 13


def card_label(card: Card) -> str:
    """A card on a button or in a sentence: ``7♠︎`` (text form, so a black suit keeps the button's own colour),
    ``10♥️`` (the red emoji form: red suits show in red)."""
    return card.symbol() + (EMOJI if card.suit.is_red else TEXT)


def card_cell(card: Card) -> str:
    """A card as the boards write it (the waste card, a card in the wide board's rows): ``7♠``, ``10♥`` (a ten is
    10, as on its button: a letter T would read as the ace, Туз, in Russian and Ukrainian), no variation selector
    (an emoji form would break the alignment)."""
    return f"{card.rank.label}{card.suit.symbol}"


#: A ten in the narrow board's two columns: the Roman ten, X, one column in every monospace font (the digits would
#: need three with the suit). Never T, which in Russian and Ukrainian shorthand is the ace (Туз); and not ⑩, which
#: no monospace font has: a phone draws it from another font, wider than a column, and the rest of its row (and the
#: peaks above it) slid out of line (seen on SimCord's preview at 360 px).
NARROW_TEN = "X"


def narrow_card_cell(card: Card, *, fits: bool = False) -> str:
    """A card in the narrow board's two columns: ``7♠``, ``X♥`` (a ten); a card that fits the waste card has its suit
    outlined (``7♤``)."""
    rank = NARROW_TEN if card.rank is Rank.TEN else card.rank.label
    return rank + (_OUTLINED[card.suit.symbol] if fits else card.suit.symbol)


def wide_cell(card: Card, mark: str) -> str:
    """A face-up card in the wide board's three columns: ``mark`` (``*``, ``>`` or a space) and the card, or for a
    ten ``10`` and its suit, outlined when there is a mark (``10♡``)."""
    if card.rank is Rank.TEN:
        return f"10{_OUTLINED[card.suit.symbol] if mark.strip() else card.suit.symbol}"
    return mark + card_cell(card)


def slot_column(slot: int) -> int:
    """The column of ``slot``'s mark in a tableau line; its two characters follow. A card sits centred over the two
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


def slot_mark(game: Game, slot: int, hinted: int | None = None) -> str:
    """The mark before a face-up card: hinted, fits the waste card, free, or (never in these rules) covered."""
    if not game.is_playable(slot):
        return MARK_COVERED
    if slot == hinted:
        return MARK_HINT
    return MARK_FITS if game.fits(slot) else " "


def _cell(game: Game, slot: int, hinted: int | None) -> str:
    if game.is_removed(slot):
        return " " * CELL
    if game.is_face_up(slot):
        return wide_cell(game.card_at(slot), slot_mark(game, slot, hinted))
    return " " + FACE_DOWN


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
    phone): two columns a card with no gap between neighbours (a ten is ``X♥``), a fitting card's suit outlined
    (``7♧``), the stock and the waste on the last line. The hinted card is shown by its button and the status
    line.

    >>> print(narrow_tableau_text(Game.from_code("TP1-E-AAAAAAB")))
       ▒▒    ▒▒    ▒▒
      ▒▒▒▒  ▒▒▒▒  ▒▒▒▒
     ▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒
    2♣A♦6♠K♧K♡X♥X♠J♤X♦8♠
     ▒▒23 [Q♣]
    """
    lines = []
    for row in ROWS:
        if all(game.is_removed(slot) for slot in row):
            continue
        line = [" "] * (narrow_slot_column(row[-1]) + 2)
        for slot in row:
            column = narrow_slot_column(slot)
            if game.is_removed(slot):
                continue
            if game.is_face_up(slot):
                cell = narrow_card_cell(game.card_at(slot), fits=game.is_playable(slot) and game.fits(slot))
            else:
                cell = FACE_DOWN
            line[column:column + 2] = cell
        lines.append("".join(line).rstrip())
    pile = FACE_DOWN if game.stock_left else EMPTY_STOCK
    lines.append(f" {pile}{game.stock_left:<2} [{card_cell(game.waste)}]")
    return "\n".join(lines)


def tableau_text(game: Game, *, hinted_slot: int | None = None, hinted_draw: bool = False) -> str:
    """The peaks, then the stock and the waste card; see the module's docstring. ``hinted_slot`` and ``hinted_draw``
    mark the move a hint suggests."""
    lines = []
    for row in ROWS:
        if all(game.is_removed(slot) for slot in row):
            continue
        line = [" "] * (slot_column(row[-1]) + CELL)
        for slot in row:
            column = slot_column(slot)
            line[column:column + CELL] = _cell(game, slot, hinted_slot)
        lines.append("".join(line).rstrip())
    pile = FACE_DOWN if game.stock_left else EMPTY_STOCK
    mark = ">" if hinted_draw and game.stock_left else " "
    stock = f"{mark}{pile}{game.stock_left:>3}"
    lines.append(" " * STOCK_COLUMN + stock.ljust(WASTE_COLUMN - STOCK_COLUMN) + f"[{card_cell(game.waste)}]")
    return "\n".join(lines)
