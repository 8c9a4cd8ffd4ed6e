"""How Discord and Telegram lay a :class:`~bot.render.view.View`'s buttons out: which rows, which labels, which
colour names. The adapters and ``tripeaks show`` both use these functions, so what ``show`` prints is what is sent.

**Discord** keeps the view's rows (at most 5 buttons each, split to fit a phone) and its colours; a board's ten
card places go a peak a row (3, 3 and 4), the blanks after a row's last card left out; the language's options
(Automatic and the ten languages, six rows of buttons elsewhere) are one select menu (:class:`ShownMenu`), the
usual control for a choice among many there, one row whatever is chosen.

**Telegram** gives the buttons of a row equal widths and cuts a label that does not fit its share with "…". On a
360-pixel phone the keyboard is as wide as the message bubble, about :data:`TELEGRAM_ROW_PX` (300) pixels; a
button's label is set at about :data:`TELEGRAM_COLUMN_PX` (8) pixels a display column (15-pixel medium font), and
each button takes about :data:`TELEGRAM_BUTTON_PAD_PX` (16) pixels more (its padding and the gap to the next). So
a row of ``n`` buttons whose widest label is ``w`` columns fits when ``n * (w + 2) <= 37``
(:func:`telegram_row_fits`); each of the view's rows is split into the fewest, most even rows that fit. Colours
go in the ``style`` field ("success" green, "primary" blue, "danger" red; none for a plain button), which
clients from February 2026 on show; the text keeps the state readable without them (the tableau's marks, the
hint in the status line, "✓ " before a chosen setting).

The console's keys and text are :mod:`bot.render.console`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.app.commands import Blank, ButtonCommand, Language
from bot.render.game import pack_line
from bot.render.view import (
    CHOSEN,
    DISCORD_ROW_WIDTH,
    TELEGRAM_ROW_WIDTH,
    TITLE_COLUMNS,
    Button,
    ButtonStyle,
    View,
    display_width,
    label_width,
)

TELEGRAM_ROW_PX = 300
TELEGRAM_COLUMN_PX = 8
TELEGRAM_BUTTON_PAD_PX = 16
#: A row's budget in display columns, and what each button costs beyond its label.
TELEGRAM_ROW_COLUMNS = TELEGRAM_ROW_PX // TELEGRAM_COLUMN_PX  # 37
TELEGRAM_BUTTON_PADDING = -(-TELEGRAM_BUTTON_PAD_PX // TELEGRAM_COLUMN_PX)  # 2


@dataclass(frozen=True)
class ShownButton:
    """A button as one platform shows it: the label as sent, the command (the adapter encodes it), the platform's
    colour name (None: its plain button)."""

    label: str
    command: ButtonCommand | None
    style: str | None
    disabled: bool = False
    #: a link button's address (Telegram ``InlineKeyboardButton(url=...)``, a Discord link button); command None
    url: str | None = None
    #: the link opens the table in the chat app itself (Telegram's ``web_app`` button)
    web_app: bool = False

    @property
    def blank(self) -> bool:
        """An empty place among a board's cards: a tap on it does nothing."""
        return isinstance(self.command, Blank)


Rows = tuple[tuple[ShownButton, ...], ...]


@dataclass(frozen=True)
class ShownOption:
    """An option of a select menu: its label (no "✓ ": the menu shows the chosen one as chosen), the command
    choosing it asks for (the adapter encodes it as the option's value), whether it is the one chosen now."""

    label: str
    command: ButtonCommand
    chosen: bool


@dataclass(frozen=True)
class ShownMenu:
    """A select menu (Discord): one of its options is chosen, and choosing another is one command, as a tap on
    its button would be. ``emoji`` before each option says what the menu chooses, also when the option shown is
    "Automatic"."""

    options: tuple[ShownOption, ...]
    emoji: str | None = None


#: Discord's rows: buttons, or a select menu (a row of its own).
DiscordRows = tuple[tuple[ShownButton, ...] | ShownMenu, ...]


# --- Discord -------------------------------------------------------------------------------------------------------


#: Discord on a 360-pixel phone: a message's buttons have about 250 px a row; a button is its label (about 8 px
#: a column) and 32 px of padding, 8 px from the next (measured on SimCord's preview: five card buttons or four
#: control buttons wrap, four card buttons or three short control buttons fit).
DISCORD_ROW_PX = 250
DISCORD_COLUMN_PX = 8
DISCORD_BUTTON_PAD_PX = 32
DISCORD_BUTTON_GAP_PX = 8


def discord_row_fits(labels: list[str]) -> bool:
    """Whether a row of these labels shows on one line of a 360-pixel phone (and keeps Discord's 5 a row)."""
    needed = sum(label_width(label) * DISCORD_COLUMN_PX + DISCORD_BUTTON_PAD_PX for label in labels)
    return len(labels) <= DISCORD_ROW_WIDTH and needed + DISCORD_BUTTON_GAP_PX * (len(labels) - 1) <= DISCORD_ROW_PX


#: The board's card places (:func:`bot.render.tableau.card_place`) a Discord row: one row a peak (its bottom row is
#: 3, 3 and 4 cards), as five cards do not fit a phone's row.
DISCORD_CARD_ROWS = (range(0, 3), range(3, 6), range(6, 10))


#: Discord on a 360-pixel phone: the header's first line, set as a heading (``###``, a larger bold font), wraps past
#: about 24 display columns, the plain lines under it past about 30 (seen: es "Puntuación: 490 · Movimientos: 10",
#: 33 columns, and ru "TP1-C-AAAAAAE · Классический" as a heading, 28, both wrapped mid-line). Cyrillic, kana and
#: German run wider than the estimate: a line that is one group, never split (the daily's "ranked attempt: no undo"),
#: keeps to :data:`DISCORD_WHOLE_LINE_COLUMNS` (seen: ru "зачётная попытка: без отмены", 28, and de
#: "Wertungsspiel: keine Rücknahme", 30, wrapped).
DISCORD_HEADING_COLUMNS = TITLE_COLUMNS
DISCORD_TEXT_COLUMNS = 30
DISCORD_WHOLE_LINE_COLUMNS = 26


def discord_header(header: str, *, board: bool = False) -> tuple[str, str]:
    r"""The view's header as Discord shows it: the heading (the first line's first groups, as many as fit its font)
    and the lines under it, a line too wide for its font split between its `` · `` groups (never inside one), the
    heading's overflow going under it. ``board``: a game's header drawn with ``fixed_header``
    (:func:`bot.render.game.render_game`), whose last line, the score and moves, is split where its widest numbers
    would split it, so the header keeps its lines through the game.

    >>> discord_header("TP1-C-AAAAAAE · Классический\nScore: 490 · Moves: 10")
    ('TP1-C-AAAAAAE', 'Классический\nScore: 490 · Moves: 10')
    >>> discord_header("TP1-E-AAAAAAB · Easy\nPuntuación: 490 · Movimientos: 10")
    ('TP1-E-AAAAAAB · Easy', 'Puntuación: 490\nMovimientos: 10')
    >>> discord_header("ann's game\nTP1-E-AAAAAAB · Easy\nPunktzahl: 500 · Spielzüge: 9", board=True)[1]
    'TP1-E-AAAAAAB · Easy\nPunktzahl: 500\nSpielzüge: 9'
    """
    first, _, rest = header.partition("\n")
    groups = first.split(" · ")
    taken = 1
    while taken < len(groups) and display_width(" · ".join(groups[:taken + 1])) <= DISCORD_HEADING_COLUMNS:
        taken += 1
    lines = [groups[taken:], *(line.split(" · ") for line in rest.split("\n") if line)]
    packed = [pack_line(line, DISCORD_TEXT_COLUMNS) for line in lines[:-1] if line]
    if lines[-1]:
        packed.append(_pack_widest(lines[-1]) if board and rest else pack_line(lines[-1], DISCORD_TEXT_COLUMNS))
    return " · ".join(groups[:taken]), "\n".join(packed)


#: The widest numbers a game's header shows as they change during a game (a score has three digits; moves up to
#: three): a line is split as it would be at its widest.
_NUMBER = re.compile(r"\d+")


def _pack_widest(groups: list[str]) -> str:
    """``groups`` packed into Discord's plain lines as they would be with every number at its widest."""
    widest = [_NUMBER.sub(lambda found: "0" * max(3, len(found.group())), group) for group in groups]
    sizes = [len(line.split(" · ")) for line in pack_line(widest, DISCORD_TEXT_COLUMNS).split("\n")]
    starts = [sum(sizes[:i]) for i in range(len(sizes))]
    return "\n".join(" · ".join(groups[start:start + size]) for start, size in zip(starts, sizes, strict=True))


def is_card_grid(row: tuple[Button, ...]) -> bool:
    """Whether ``row`` is part of a board's grid of card places (cards and blanks only)."""
    return bool(row) and all(b.card is not None or b.blank for b in row)


def _discord_card_rows(places: list[Button]) -> list[tuple[Button, ...]]:
    """The grid's places a peak a row. Discord buttons are as wide as their labels and a row starts at the left, so
    a blank is needed only before a card: the blanks after a row's last card are left out (a row with no card
    keeps one blank, so the rows below stay where they were)."""
    rows = []
    for places_of_peak in DISCORD_CARD_ROWS:
        row = [places[i] for i in places_of_peak]
        while len(row) > 1 and row[-1].blank:
            row.pop()
        rows.append(tuple(row))
    return rows


#: The commands whose buttons Discord shows as one select menu: a choice among many (the languages).
DISCORD_MENU_COMMANDS = (Language,)
#: Before each option of the language menu: a globe, so "Automatic" reads as the language's setting.
LANGUAGE_EMOJI = "🌐"


def is_menu_row(row: tuple[Button, ...]) -> bool:
    """Whether ``row`` holds options of a choice Discord shows as a select menu (:data:`DISCORD_MENU_COMMANDS`)."""
    return bool(row) and all(isinstance(b.command, DISCORD_MENU_COMMANDS) for b in row)


def _menu(buttons: list[Button]) -> ShownMenu:
    return ShownMenu(tuple(ShownOption(b.label.removeprefix(CHOSEN), b.command, b.style is ButtonStyle.SUCCESS)
                           for b in buttons if b.command is not None), LANGUAGE_EMOJI)


def discord_rows(view: View) -> DiscordRows:
    """The view's rows, each split to fit a phone (Discord buttons are as wide as their labels), the board's card
    places a peak a row (:data:`DISCORD_CARD_ROWS`), the rows of a choice among many one select menu
    (:class:`ShownMenu`); colours as the view names them."""
    rows: list[tuple[Button, ...] | ShownMenu] = []
    grid = [b for row in view.buttons if is_card_grid(row) for b in row]
    options: list[Button] = []
    for index, row in enumerate(view.buttons):
        if is_menu_row(row):
            options.extend(row)
            if index + 1 == len(view.buttons) or not is_menu_row(view.buttons[index + 1]):
                rows.append(_menu(options))
                options = []
        elif is_card_grid(row):
            if grid:
                rows.extend(_discord_card_rows(grid))
                grid = []
        else:
            rows.extend(reflow(row, discord_row_fits))
    return tuple(row if isinstance(row, ShownMenu) else
                 tuple(ShownButton(b.label, b.command, b.style.value, b.disabled, b.url) for b in row)
                 for row in rows)


# --- Telegram ------------------------------------------------------------------------------------------------------


def telegram_row_columns(labels: list[str]) -> int:
    """The columns a row of these labels needs on a phone: every button as wide as the widest."""
    if not labels:
        return 0
    return len(labels) * (max(label_width(label) for label in labels) + TELEGRAM_BUTTON_PADDING)


def telegram_row_fits(labels: list[str]) -> bool:
    """Whether a row of these labels shows whole on a 360-pixel phone (and keeps Telegram's 8 a row)."""
    return len(labels) <= TELEGRAM_ROW_WIDTH and telegram_row_columns(labels) <= TELEGRAM_ROW_COLUMNS


def reflow(row: tuple[Button, ...], fits: Callable[[list[str]], bool]) -> list[tuple[Button, ...]]:
    """``row`` split, in order, into the fewest rows that fit, as even as possible. A button too wide for a row
    of its own gets one anyway (the renderer's tests keep every label narrower)."""
    n = len(row)
    # best[i]: (rows, sum of squared sizes, previous cut) for the first i buttons
    best: list[tuple[int, int, int] | None] = [(0, 0, 0)] + [None] * n
    for end in range(1, n + 1):
        for start in range(end - 1, -1, -1):
            chunk = [b.label for b in row[start:end]]
            if end - start > 1 and not fits(chunk):
                break
            previous = best[start]
            if previous is None:
                continue
            candidate = (previous[0] + 1, previous[1] + (end - start) ** 2, start)
            current = best[end]
            if current is None or candidate[:2] < current[:2]:
                best[end] = candidate
    cuts = []
    end = n
    while end:
        entry = best[end]
        assert entry is not None
        cuts.append((entry[2], end))
        end = entry[2]
    return [row[start:end] for start, end in reversed(cuts)]


_TELEGRAM_STYLES = {ButtonStyle.PRIMARY: "primary", ButtonStyle.SUCCESS: "success", ButtonStyle.DANGER: "danger"}


def telegram_rows(view: View) -> Rows:
    """The inline keyboard: each of the view's rows split to fit a phone, colours as ``style`` names; the board's
    grid of card places as it is (five places a row always fit; a blank button keeps an empty place, as Telegram
    stretches a row's buttons over its width). Disabled buttons stay (Telegram cannot grey one out; a tap on it is
    refused by the service with its reason, on a blank it does nothing)."""
    return tuple(tuple(ShownButton(b.label, b.command, _TELEGRAM_STYLES.get(b.style), b.disabled, b.url,
                                   b.web_app)
                       for b in part)
                 for row in view.buttons
                 for part in ([row] if is_card_grid(row) else reflow(row, telegram_row_fits)))
