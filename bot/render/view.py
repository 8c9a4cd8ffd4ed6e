"""The view model every renderer returns and every adapter maps one to one onto its platform.

- ``header``: plain text, one short line where it fits a phone (code, rule set, score, moves), else two;
- ``tableau``: a monospace block at most :data:`TABLEAU_COLUMNS` wide (Discord wraps it in a code block,
  Telegram in ``<pre>``), or None;
- ``status``: plain text lines, or None;
- ``buttons``: rows of :class:`Button` (a label and a typed command), at most 5 a row (Discord's limit); how each platform lays them out on a
  phone is :mod:`bot.render.platforms`;
- ``notice``: a short toast (at most 200 characters, Telegram's ``answerCallbackQuery`` limit), or None;
- ``table`` and ``table_alt``: on a game's board, what the player sees of the table (the picture board is drawn
  from it, off the event loop: :mod:`bot.render.picture`) and the same in words, for screen readers.

All texts are plain: adapters escape them for their markup (Telegram HTML, Discord markdown).
"""

from __future__ import annotations

import enum
import functools
import unicodedata
from dataclasses import dataclass

from bot.app.commands import Blank, ButtonCommand
from bot.app.model import NO_BREAK_HYPHEN
from core.cards import Card


class ButtonStyle(enum.Enum):
    """What a button's colour says, the same on every platform (Discord's and Telegram's colour names)."""

    PRIMARY = "primary"  # blue: the suggested move (the hinted one, Draw when no card fits, New game at the end)
    SECONDARY = "secondary"  # the platform's plain button
    SUCCESS = "success"  # green: a card that fits the waste card, a chosen setting
    DANGER = "danger"  # red: an action that loses something (Yes, abandon the game in progress)


@dataclass(frozen=True)
class Button:
    """A button: its label, and the typed command a press asks for (each adapter encodes it for its platform
    with :mod:`bot.app.codec`)."""

    label: str
    #: what a press asks for; None for a link button
    command: ButtonCommand | None
    style: ButtonStyle = ButtonStyle.SECONDARY
    #: Discord shows it greyed out; Telegram cannot disable a button, so it keeps it (a tap is then refused by the
    #: service, harmlessly); the console leaves it out.
    disabled: bool = False
    #: a link button: the platform opens ``url``; the console leaves it out
    url: str | None = None
    #: the link opens the table in the chat app itself (a Telegram Mini App's ``web_app`` button)
    web_app: bool = False
    #: the card a card button plays (the console's key for it is the card's name)
    card: Card | None = None

    @property
    def blank(self) -> bool:
        """An empty place in the grid of card buttons (its command is a :class:`~bot.app.commands.Blank`)."""
        return isinstance(self.command, Blank)


class SlotState(enum.Enum):
    GONE = "gone"  # removed: the felt shows
    DOWN = "down"  # a face-down card: one back, the same for every card
    UP = "up"  # a face-up card (in these rules a face-up card is free: nothing covers it any more)


@dataclass(frozen=True)
class SeenSlot:
    state: SlotState
    card: Card | None = None  # the card, when face up
    #: the same marks as the card's button: SUCCESS (green) fits the waste card, PRIMARY (blue) the hinted move
    mark: ButtonStyle | None = None


@dataclass(frozen=True)
class Table:
    """The 28 slots (0-2 the tops, ..., 18-27 the bottom row), the stock's count, the waste card, whether the
    hinted move is a draw, and the deck's colours; for a won game also the cards played and the score."""

    slots: tuple[SeenSlot, ...]
    stock_left: int
    waste: Card
    draw_hinted: bool = False
    #: how the player has it drawn: the four-colour deck (clubs orange, diamonds blue)
    four_colour: bool = False
    #: a won game's cards as they went onto the waste, oldest first (all of them seen); () while it is played
    played: tuple[Card, ...] = ()
    #: a won game's final score
    score: int | None = None


@dataclass(frozen=True)
class View:
    header: str
    tableau: str | None = None
    #: the same board in :data:`~bot.render.tableau.NARROW_COLUMNS` columns, for Discord's narrower code blocks
    narrow_tableau: str | None = None
    status: str | None = None
    buttons: tuple[tuple[Button, ...], ...] = ()
    notice: str | None = None
    #: the board as the player sees it, for the picture (:func:`bot.render.picture.draw_table`); None where the
    #: player has the text board (or the message is no board)
    table: Table | None = None
    #: the picture in words, for screen readers (:func:`bot.render.table.table_alt`)
    table_alt: str | None = None
    #: a game's undo and hint counters where the header leaves them out, to show under the buttons
    #: (:func:`bot.render.game.render_game` with ``fixed_header``)
    tally: str | None = None
    #: the boards of a watched round (:func:`bot.render.rounds.render_watch`), each a player's line and their board
    #: in :data:`~bot.render.tableau.NARROW_COLUMNS` columns, shown after the status
    boards: tuple[tuple[str, str], ...] = ()

    def all_buttons(self) -> tuple[Button, ...]:
        return tuple(button for row in self.buttons for button in row)


#: Platform limits every view keeps.
DISCORD_COMPONENTS_MAX = 40
DISCORD_ROW_WIDTH = 5
DISCORD_LABEL_MAX = 80
DISCORD_CUSTOM_ID_MAX = 100
DISCORD_CONTENT_MAX = 2000
TELEGRAM_ROW_WIDTH = 8
TELEGRAM_BUTTONS_MAX = 100
TELEGRAM_CALLBACK_BYTES_MAX = 64
TELEGRAM_TEXT_MAX = 4096
TELEGRAM_NOTICE_MAX = 200
#: Card buttons a row of the view: the board's ten places of cards (:func:`bot.render.tableau.card_place`) in two
#: rows, an empty place a blank button (:data:`BLANK_LABEL`).
CARDS_PER_ROW = 5
#: The label of a blank button: a braille blank, which every platform keeps (a space is refused or trimmed).
BLANK_LABEL = "\u2800"


def unbroken(code: str) -> str:
    """A game code (or what names a deal) written so that a phone never breaks it at its hyphens.

    >>> unbroken("TP1-E-AAAAAAB") == "TP1\u2011E\u2011AAAAAAB"
    True
    """
    return code.replace("-", NO_BREAK_HYPHEN)
#: Before the label of a chosen setting, also where a client shows no colours (a select menu shows it chosen).
CHOSEN = "✓ "

#: The widest line of the monospace tableau, in display columns: a 360-pixel phone shows about 33 columns of
#: 14-pixel monospace in a Telegram bubble (about 300 px) or a Discord code block, and cuts or wraps the rest.
TABLEAU_COLUMNS = 30
#: The widest header line, in display columns of the bold proportional font (about 8 px a column in 300 px).
HEADER_COLUMNS = 36
#: The widest a title may be, in display columns: Discord sets a message's first line as a heading, in a larger
#: bold font, and on a 360-px phone a heading past about 24 columns wraps (``bot.render.platforms.discord_header``
#: splits a wider one between its `` · `` groups; a title without them, such as a question, must fit whole).
TITLE_COLUMNS = 24
#: The widest line of a message's status, in display columns, where it must not wrap (the settings): Discord shows
#: the status as a quote, whose bar and margin leave less than a header's line. Measured on SimCord's preview at
#: 360 px: "Правила новых игр: Лёгкий" (25) fits and "Только выигрышные раздачи:" (26) wraps; Japanese wraps past
#: 26, Latin past about 28.
QUOTE_COLUMNS = 25

#: Variation selectors: U+FE0F asks for a character's emoji form, U+FE0E for its text form.
EMOJI = "\ufe0f"
TEXT = "\ufe0e"


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: East Asian wide and fullwidth characters take two, combining
    marks and variation selectors none.

    >>> display_width("山札 23"), display_width("10♥"), display_width("Взять")
    (7, 3, 5)
    """
    if text.isascii():  # one column each (measured for every line of every board: the common case, made quick)
        return len(text)
    return sum(map(_char_width, text))


@functools.lru_cache(maxsize=4096)
def _char_width(ch: str) -> int:
    if unicodedata.combining(ch) or ch in (EMOJI, TEXT):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def label_width(text: str) -> int:
    """Columns a button label takes: as :func:`display_width`, and a character shown as an emoji (followed by
    U+FE0F, as the red suits on card buttons are) takes two.

    >>> label_width("10♥\ufe0f"), label_width("10♠\ufe0e"), label_width("新しいゲーム")
    (4, 3, 12)
    """
    return display_width(text) + sum(1 for i, ch in enumerate(text[1:], 1) if ch == EMOJI
                                     and display_width(text[i - 1]) == 1)


def strip_variation(text: str) -> str:
    """``text`` without variation selectors: for plain text (the console, snapshots, a monospace block)."""
    return text.replace(EMOJI, "").replace(TEXT, "")


#: The widest a player's name is shown on a board in a group, in display columns.
OWNER_COLUMNS = 18


def owner_name(name: str, width: int = OWNER_COLUMNS) -> str:
    """``name`` cut to ``width`` display columns (with "…"), on one line.

    >>> owner_name("Ann"), owner_name("Maximilian Alexander von Humboldt")
    ('Ann', 'Maximilian Alexan…')
    """
    name = " ".join(name.split()) or "?"
    if display_width(name) <= width:
        return name
    while display_width(name + "…") > width:
        name = name[:-1]
    return name + "…"


#: The fewest columns of a name a title keeps, however long the rest of it is in a language.
TITLE_NAME_COLUMNS = 10


def named_title(title: str, name: str) -> str:
    """``title``, a translated title with ``{name}``, with ``name`` cut (:func:`owner_name`) so the title keeps to
    :data:`TITLE_COLUMNS` (at least :data:`TITLE_NAME_COLUMNS` of the name, at most
    :data:`OWNER_COLUMNS`).

    >>> named_title("{name}'s game", "Maximilian Alexander von Humboldt")
    "Maximilian Alexa…'s game"
    >>> named_title("Гравець: {name}", "Олександра Кирилівна Ковальчук")
    'Гравець: Олександра Кир…'
    """
    room = TITLE_COLUMNS - display_width(title.format(name=""))
    return title.format(name=owner_name(name, min(max(room, TITLE_NAME_COLUMNS), OWNER_COLUMNS)))
