"""The table as the player sees it: what the picture board is drawn from, and its alt text.

:func:`seen_table` keeps only what the player may see (the face-up cards, which slots hold a face-down card, how
many cards the stock holds, the waste card, the marks), so nothing drawn from a :class:`Table` can reveal a hidden
card: two positions that differ only in face-down or undrawn cards give equal tables.

>>> table = seen_table(Game.from_code("TP1-E-AAAAAAB"))
>>> [slot.state.value for slot in table.slots[:3]], table.slots[18].card, table.stock_left
(['down', 'down', 'down'], Card(rank=<Rank.TWO: 2>, suit=<Suit.CLUBS: 'C'>), 23)
>>> print(table_alt(table, "en"))
Face-up cards: 2♣, A♦, 6♠, K♣ (fits), K♥ (fits), 10♥, 10♠, J♠ (fits), 10♦, 8♠. Face-down cards: 18. Stock: 23. Waste card: Q♣.
"""

from __future__ import annotations

from bot.i18n import translator
from bot.render.tableau import narrow_slot_column
from bot.render.view import ButtonStyle, SeenSlot, SlotState, Table, strip_variation
from core.game import Draw, Game, Status, Tap
from core.layout import SLOT_COUNT


def seen_table(game: Game, hinted: object = None, *, four_colour: bool = False) -> Table:
    """What the player sees of ``game``; ``hinted`` is the action a hint suggests (a :class:`Tap` or a
    :class:`Draw`), if any; ``four_colour``: the player's deck."""
    slots = []
    for slot in range(SLOT_COUNT):
        if game.is_removed(slot):
            slots.append(SeenSlot(SlotState.GONE))
        elif not game.is_face_up(slot):
            slots.append(SeenSlot(SlotState.DOWN))
        else:
            mark = ButtonStyle.PRIMARY if hinted == Tap(slot) else ButtonStyle.SUCCESS if game.fits(slot) else None
            slots.append(SeenSlot(SlotState.UP, game.card_at(slot), mark))
    won = game.status is Status.WON
    return Table(tuple(slots), game.stock_left, game.waste, isinstance(hinted, Draw) and game.stock_left > 0,
                 four_colour, played=tuple(game.pile) if won else (), score=game.score if won else None)


def table_alt(table: Table, locale: str) -> str:
    """The picture in words, for screen readers: the face-up cards left to right (those that fit and the hinted
    one said), how many are face down, the stock's count and the waste card."""
    tr = translator(locale)
    up = sorted((slot for slot in range(SLOT_COUNT) if table.slots[slot].state is SlotState.UP),
                key=lambda s: (narrow_slot_column(s), s))
    words = []
    for slot in up:
        seen = table.slots[slot]
        assert seen.card is not None
        name = strip_variation(seen.card.symbol())
        if seen.mark is ButtonStyle.PRIMARY:
            # TRANSLATORS: in the board's description for screen readers: the card a hint suggests; {card} as 7♠
            name = tr.gettext("{card} (hint)").format(card=name)
        elif seen.mark is ButtonStyle.SUCCESS:
            # TRANSLATORS: in the board's description for screen readers: a card that fits the waste card
            name = tr.gettext("{card} (fits)").format(card=name)
        words.append(name)
    down = sum(1 for slot in table.slots if slot.state is SlotState.DOWN)
    # TRANSLATORS: the board's description for screen readers; {cards} is a list such as "2♣, A♦, 6♠"
    parts = [tr.gettext("Face-up cards: {cards}.").format(cards=", ".join(words)) if words else
             tr.gettext("All the peaks are cleared.")]
    if down:
        # TRANSLATORS: for screen readers: how many face-down cards the peaks hold ({n} from 18 down to 1)
        parts.append(tr.gettext("Face-down cards: {n}.").format(n=down))
    parts.append((
        # TRANSLATORS: for screen readers: the cards left in the stock ({n} from 23 down to 1: a label and a
        # count), and the hint to draw from it
        tr.gettext("Stock: {n} (hint: draw).") if table.draw_hinted else
        # TRANSLATORS: for screen readers: the cards left in the stock ({n} from 23 down to 0: a label and a count)
        tr.gettext("Stock: {n}.")).format(n=table.stock_left))
    parts.append(tr.gettext("Waste card: {card}.").format(card=table.waste.symbol()))
    return " ".join(parts)
