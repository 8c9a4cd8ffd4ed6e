"""How each platform lays a :class:`~bot.render.view.View`'s buttons out: which rows, which labels, which colour
names. The adapters and ``tripeaks show`` both use these functions, so what ``show`` prints is what is sent.

**Discord** keeps the view's rows (at most 5 buttons each, split to fit a phone) and its colours; a board's ten
card places go a peak a row (3, 3 and 4), the blanks after a row's last card left out.

**Telegram** gives the buttons of a row equal widths and cuts a label that does not fit its share with "…". On a
360-pixel phone the keyboard is as wide as the message bubble, about :data:`TELEGRAM_ROW_PX` (300) pixels; a
button's label is set at about :data:`TELEGRAM_COLUMN_PX` (8) pixels a display column (15-pixel medium font), and
each button takes about :data:`TELEGRAM_BUTTON_PAD_PX` (16) pixels more (its padding and the gap to the next). So
a row of ``n`` buttons whose widest label is ``w`` columns fits when ``n * (w + 2) <= 37``
(:func:`telegram_row_fits`); each of the view's rows is split into the fewest, most even rows that fit. Colours
go in the ``style`` field ("success" green, "primary" blue, "danger" red; none for a plain button), which
clients from February 2026 on show; the text keeps the state readable without them (the tableau's marks, the
hint in the status line, "✓ " before a chosen setting).

**The console** prints each button as ``[key] label``, where the key is what the player types: a card's name
(``7s``, ``10h``, ``qh``), ``d`` draw, ``u`` undo, ``h`` hint, ``n`` new game, on a finished game ``r`` replay,
``v`` review and ``s`` share, ``y`` and ``k`` (yes, start it / no, keep playing) when asked to confirm,
``daily``, ``new`` and ``rules`` on the welcome, and for settings ``explain``, ``winnable``, ``easy``,
``classic``, ``auto`` or a language code. Keys never depend on what is on screen, so a key typed from memory
always means the same. Disabled buttons and link buttons are left out. In a terminal (and without
``NO_COLOR``) red suits are red and the marks colour the cards: green fits, blue hinted.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from bot.app.commands import (
    AskHint,
    Begin,
    Blank,
    BoardChoice,
    Command,
    ConfirmStart,
    DailyDeal,
    DefaultRules,
    ExplainRefusals,
    FourColour,
    KeepPlaying,
    Language,
    Move,
    NewGame,
    PlayDaily,
    Replay,
    Review,
    Share,
    ShowRules,
    WinnableOnly,
)
from bot.app.errors import BadPayload
from bot.render.view import (
    DISCORD_ROW_WIDTH,
    TELEGRAM_ROW_WIDTH,
    Button,
    ButtonStyle,
    View,
    display_width,
    label_width,
    strip_variation,
)
from core.cards import Card
from core.game import Draw, Tap, Undo

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
    command: Command | None
    style: str | None
    disabled: bool = False
    #: a link button's address (Telegram ``InlineKeyboardButton(url=...)``, a Discord link button); command None
    url: str | None = None

    @property
    def blank(self) -> bool:
        """An empty place among a board's cards: a tap on it does nothing."""
        return isinstance(self.command, Blank)


Rows = tuple[tuple[ShownButton, ...], ...]


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


def discord_rows(view: View) -> Rows:
    """The view's rows, each split to fit a phone (Discord buttons are as wide as their labels), the board's card
    places a peak a row (:data:`DISCORD_CARD_ROWS`); colours as the view names them."""
    rows: list[tuple[Button, ...]] = []
    grid = [b for row in view.buttons if is_card_grid(row) for b in row]
    for row in view.buttons:
        if is_card_grid(row):
            if grid:
                rows.extend(_discord_card_rows(grid))
                grid = []
        else:
            rows.extend(_reflow(row, discord_row_fits))
    return tuple(tuple(ShownButton(b.label, b.command, b.style.value, b.disabled, b.url) for b in row)
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


def _reflow(row: tuple[Button, ...], fits: Callable[[list[str]], bool]) -> list[tuple[Button, ...]]:
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
    return tuple(tuple(ShownButton(b.label, b.command, _TELEGRAM_STYLES.get(b.style), b.disabled, b.url)
                       for b in part)
                 for row in view.buttons
                 for part in ([row] if is_card_grid(row) else _reflow(row, telegram_row_fits)))


# --- the console ---------------------------------------------------------------------------------------------------

def card_key(card: Card) -> str:
    """What a player types for a card: ``7s``, ``10h``, ``qh``, ``as``."""
    return f"{card.rank.label}{card.suit.letter}".lower()


def console_key(button: Button) -> str:
    """The word that presses ``button`` in the console; the same for the same button on every screen."""
    match button.command:
        case Move(action=Draw()):
            return "d"
        case Move(action=Undo()):
            return "u"
        case Move(action=Tap()) if button.card is not None:
            return card_key(button.card)
        case AskHint():
            return "h"
        case NewGame():
            return "n"
        case Replay():
            return "r"
        case Review():
            return "v"
        case Share():
            return "s"
        case ConfirmStart():
            return "y"
        case KeepPlaying():
            return "k"
        case Begin(DailyDeal()):
            return "daily"
        case Begin():
            return "new"
        case ShowRules():
            return "rules"
        case PlayDaily():
            return "daily"
        case ExplainRefusals():
            return "explain"
        case WinnableOnly():
            return "winnable"
        case BoardChoice(style):
            return style.value
        case FourColour():
            return "four"
        case DefaultRules(rules):
            return rules.value
        case Language(locale):
            return (locale or "auto").lower()
    raise BadPayload(f"no console key for {button.command!r}")


def console_rows(view: View) -> tuple[tuple[tuple[str, Button], ...], ...]:
    """Rows of (key, button), the disabled buttons and links left out (a key only for what can be done here)."""
    rows = (tuple((console_key(b), b) for b in row if not b.disabled and not b.blank and b.url is None)
            for row in view.buttons)
    return tuple(row for row in rows if row)


_RESET = "\x1b[0m"
_RED = "\x1b[31m"
_COLOURS = {ButtonStyle.SUCCESS: "\x1b[1;32m", ButtonStyle.PRIMARY: "\x1b[1;36m", ButtonStyle.DANGER: "\x1b[1;31m"}
_MARK_COLOURS = {"*": _COLOURS[ButtonStyle.SUCCESS], ">": _COLOURS[ButtonStyle.PRIMARY]}
_CELL = re.compile(r"([*> .\[])([A2-9TJQK])([♠♥♦♣])")


def colour_tableau(tableau: str) -> str:
    """The tableau with ANSI colours: red suits red, a fitting card green and the hinted one blue (their marks
    stay, so the board reads the same without colour)."""

    def paint(match: re.Match[str]) -> str:
        mark, rank, suit = match.groups()
        colour = _MARK_COLOURS.get(mark)
        red = suit in "♥♦"
        if colour:
            return f"{colour}{mark}{rank}{suit}{_RESET}"
        return f"{mark}{_RED}{rank}{suit}{_RESET}" if red else match.group(0)

    return _CELL.sub(paint, tableau)


def console_button(key: str, button: Button, colour: bool) -> str:
    """``[key] label``, coloured by its style in a terminal; without colour a mark says it (as in snapshots)."""
    label = strip_variation(button.label)
    if not colour:
        mark = {ButtonStyle.SUCCESS: "*", ButtonStyle.PRIMARY: ">", ButtonStyle.DANGER: "!"}.get(button.style, "")
        return f"[{key}] {label}{mark}"
    paint = _COLOURS.get(button.style)
    if paint is None and any(suit in label for suit in "♥♦"):
        paint = _RED
    return f"[{key}] {paint}{label}{_RESET}" if paint else f"[{key}] {label}"


def console_text(view: View, *, colour: bool = False, keys: bool = True, width: int | None = None) -> str:
    """The whole view as the console prints it: header, tableau, status (else the notice), then the choices.
    With ``width`` (the terminal's columns) the text is wrapped by words (:func:`wrap_text`) and each row of
    choices split between two choices, never inside one; the tableau is left as it is."""

    def fit(text: str) -> str:
        return text if width is None else wrap_text(text, width)

    parts = [fit(view.header)]
    if view.tableau:
        parts.append(colour_tableau(view.tableau) if colour else view.tableau)
    if view.status:
        parts.append(fit(view.status))
    elif view.notice:
        parts.append(fit(view.notice))
    if keys:
        rows = [row for full in console_rows(view) for row in _console_reflow(full, width)]
        lines = ["  ".join(console_button(key, button, colour) for key, button in row) for row in rows]
        if lines:
            parts.append("\n".join(lines))
    return "\n\n".join(parts)


def _console_reflow(row: tuple[tuple[str, Button], ...], width: int | None) -> list[tuple[tuple[str, Button], ...]]:
    """A row of choices split, between choices, into the fewest even rows no wider than ``width`` columns."""
    if width is None:
        return [row]
    labels = {button.label: console_button(key, button, False) for key, button in row}

    def fits(chunk: list[str]) -> bool:
        return display_width("  ".join(labels[label] for label in chunk)) <= width

    buttons = _reflow(tuple(button for _, button in row), fits)
    keys = {id(button): key for key, button in row}
    return [tuple((keys[id(button)], button) for button in part) for part in buttons]


#: Characters a line may not start with (closing punctuation, small kana, the long vowel mark) and ones it may not
#: end with (opening brackets): Japanese line breaking (kinsoku), and the same for Western punctuation.
_NO_LINE_START = frozenset("、。，．・：；？！）」』】〕〉》”’ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮ…‥,.:;!?)]}%")
_NO_LINE_END = frozenset("（「『【〔〈《“‘([{")


def wrap_text(text: str, width: int) -> str:
    """``text`` with each line broken into lines of at most ``width`` display columns (:func:`display_width`):
    between words, or between two wide characters (Japanese has no spaces), never before closing punctuation or
    after an opening bracket; a word wider than a line is cut. A continued line keeps the line's indentation.

    >>> print(wrap_text("Züge: Tippe auf eine offene Karte, die nichts mehr verdeckt.", 24))
    Züge: Tippe auf eine
    offene Karte, die nichts
    mehr verdeckt.
    >>> print(wrap_text("山札からカードを1枚めくって捨て札に置きます。", 20))
    山札からカードを1枚
    めくって捨て札に置き
    ます。
    """
    return "\n".join(wrapped for line in text.split("\n") for wrapped in _wrap_line(line, max(width, 8)))


def _wrap_line(line: str, width: int) -> list[str]:
    if display_width(line) <= width:
        return [line]
    body = line.lstrip(" ")
    indent = " " * min(len(line) - len(body), width // 2)
    lines: list[str] = []
    current = indent
    for spaced, token in _tokens(body):
        if current.strip() and display_width(current) + spaced + display_width(token) <= width:
            current += " " * spaced + token
            continue
        if current.strip():
            lines.append(current)
            current = indent
        while display_width(current) + display_width(token) > width:  # a word wider than a line: cut it
            room = width - display_width(current)
            cut = next(i for i in range(len(token), 0, -1) if display_width(token[:i]) <= max(room, 1))
            lines.append(current + token[:cut])
            current, token = indent, token[cut:]
        current += token
    if current.strip():
        lines.append(current)
    return lines


def _tokens(text: str) -> list[tuple[int, str]]:
    """The pieces a line may break between, each with the spaces before it: words, and each wide character on its
    own, with closing punctuation kept with what it closes and an opening bracket with what it opens."""
    tokens: list[tuple[int, str]] = []
    spaces = 0
    for char in text:
        if char == " ":
            spaces += 1
            continue
        wide = display_width(char) == 2
        previous = tokens[-1][1] if tokens else ""
        joins = tokens and not spaces and (
            char in _NO_LINE_START or previous[-1] in _NO_LINE_END
            or (not wide and display_width(previous[-1]) < 2))
        if joins:
            tokens[-1] = (tokens[-1][0], previous + char)
        else:
            tokens.append((spaces, char))
        spaces = 0
    return tokens
