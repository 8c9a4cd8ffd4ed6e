"""How the console shows a :class:`~bot.render.view.View`: its text (header, tableau, status, then the choices),
wrapped to the terminal's width, and coloured in a terminal (``tripeaks show`` prints it too); and the console's
help: the keys it takes, how to read the board.

The console prints each button as ``[key] label``, where the key is what the player types: a card's name
(``7s``, ``10h``, ``qh``), ``d`` draw, ``u`` undo, ``h`` hint, ``n`` new game, on a finished game ``r`` replay,
``v`` review and ``s`` share, ``y`` and ``k`` (yes, start it / no, keep playing) when asked to confirm,
``daily``, ``new`` and ``rules`` on the welcome, and for settings ``explain``, ``winnable``, ``easy``,
``classic``, ``auto`` or a language code. Keys never depend on what is on screen, so a key typed from memory
always means the same. Disabled buttons and link buttons are left out. In a terminal (and without
``NO_COLOR``) red suits are red, a card that fits (its suit outlined) is green and the hinted one (``>``) blue.
"""

from __future__ import annotations

import re
from typing import assert_never

from bot.app.commands import (
    AskHint,
    BackToBoard,
    Begin,
    Blank,
    BoardChoice,
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
    Resume,
    Review,
    Share,
    ShowRules,
    WatchRound,
    WinnableOnly,
)
from bot.app.errors import BadPayload
from bot.i18n import N_, translator
from bot.render.platforms import reflow
from bot.render.tableau import MARK_HINT, OUTLINED
from bot.render.view import Button, ButtonStyle, View, display_width, strip_variation
from core.cards import Card
from core.game import Draw, Tap, Undo


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
            return "c"  # continue playing: no key is a rank (k is the king)
        case Begin(DailyDeal()):
            return "daily"
        case Begin():
            return "new"
        case ShowRules():
            return "rules"
        case Resume():
            return "resume"
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
        case Move() | Blank() | BackToBoard() | WatchRound() | None:
            # a card's button without its card, a blank place, Back (the console's screens replace each other), a
            # round's Watch (no round in a terminal) and a link: nothing a player types (the console shows none)
            raise BadPayload(f"no console key for {button.command!r}")
        case unhandled:
            assert_never(unhandled)


_CONSOLE_HELP = N_("Type a card such as 7h = 7♥ or qs = Q♠ (h ♥, d ♦, c ♣, s ♠), or: d (draw), u (undo), h (hint), "
                   "n (new game), new [code], daily, rules, stats, settings, help, quit. On a finished game: r (replay), v (review), s (share); "
                   "asked to abandon a game: y (yes) or c (continue playing). In the settings: explain, winnable, easy, "
                   "classic, auto, or a language code such as en.")
# TRANSLATORS: how to read the console's board; K♧: a King whose suit is drawn in outline (the white suit
# symbol; keep the board's K); X: the Roman ten, as the board writes a ten
_BOARD_HELP = N_("On the board: ▒▒ is a face-down card, a card that fits the waste card has its suit outlined "
                 "(K♧), X is a ten, and > points at the hinted card (before the stock: the hint is to draw). The last "
                 "line is the stock with the number of cards left, then the waste card in brackets.")


def console_help(locale: str, *, board: bool = False) -> str:
    """The console's help: the keys it takes, and with ``board`` how to read the board."""
    tr = translator(locale)
    return (tr.gettext(_CONSOLE_HELP) + "\n" + console_back(locale)
            + ("\n" + tr.gettext(_BOARD_HELP) if board else ""))


def console_back(locale: str) -> str:
    """Under the rules, the statistics and the help in the console: how to see the game again."""
    tr = translator(locale)
    # TRANSLATORS: the console (a terminal); {resume} is the word to type, such as resume (Enter is the key)
    return tr.gettext("Press Enter or type {resume} to see your game again.").format(
        resume=tr.pgettext("command", "resume"))


def console_rows(view: View) -> tuple[tuple[tuple[str, Button], ...], ...]:
    """Rows of (key, button), the disabled buttons and links left out (a key only for what can be done here)."""
    rows = (tuple((console_key(b), b) for b in row if not b.disabled and not b.blank and b.url is None)
            for row in view.buttons)
    return tuple(row for row in rows if row)


_RESET = "\x1b[0m"
_RED = "\x1b[31m"
_COLOURS = {ButtonStyle.SUCCESS: "\x1b[1;32m", ButtonStyle.PRIMARY: "\x1b[1;36m", ButtonStyle.DANGER: "\x1b[1;31m"}
_FITTING_SUITS = frozenset(OUTLINED.values())
_CELL = re.compile(r">?(?:10|[A2-9XJQK])[♠♥♦♣♤♡♢♧]")


def colour_tableau(tableau: str) -> str:
    """The tableau with ANSI colours: red suits red, a fitting card green and the hinted one blue (the outlined
    suit and the ``>`` stay, so the board reads the same without colour)."""

    def paint(match: re.Match[str]) -> str:
        card = match.group(0)
        colour = _COLOURS[ButtonStyle.PRIMARY] if card[0] == MARK_HINT else \
            _COLOURS[ButtonStyle.SUCCESS] if card[-1] in _FITTING_SUITS else _RED if card[-1] in "♥♦" else None
        return f"{colour}{card}{_RESET}" if colour else card

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

    buttons = reflow(tuple(button for _, button in row), fits)
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
