"""The one renderer: game state, locale and settings in, a platform-neutral view model out.

Every adapter maps a :class:`View` one to one onto its platform and holds no strings of its own:

- ``header``: plain text, one or two lines (code, rule set, score, moves, stock);
- ``tableau``: a monospace block (Discord wraps it in a code block, Telegram in ``<pre>``), or None;
- ``status``: plain text lines, or None;
- ``buttons``: rows of :class:`Button`, at most 5 rows of 5 (Discord's limit, within Telegram's 8 a row);
- ``notice``: a short toast (at most 200 characters, Telegram's ``answerCallbackQuery`` limit), or None.

All texts are plain: adapters escape them for their markup (Telegram HTML, Discord markdown).

>>> from core.game import Game
>>> from bot.app.model import GameSnapshot, PlayerKey, Settings
>>> snap = GameSnapshot(1, 0, PlayerKey("console", "1"), "ann", Game.from_code("TP1-E-AAAAAAB"))
>>> view = render_game(snap, "en", Settings())
>>> view.header.splitlines()[0]
'TP1-E-AAAAAAB · Easy'
>>> [b.label for b in view.buttons[-1]]
['Draw (23)', 'Undo', 'Hint', 'New game']
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from babel.dates import format_date
from babel.numbers import format_percent

from bot.app.codec import HINT, NEW_GAME, PREFIX, DailyPayload, GamePayload
from bot.app.daily import DailyResult
from bot.app.errors import (
    BadGameCode,
    BadPayload,
    BotError,
    GameNotFound,
    NoActiveGame,
    NotYourGame,
    NoWinnableDeal,
    StaleGame,
)
from bot.app.model import DealVerdict, GameSnapshot, Hint, Settings, Stats
from bot.i18n import LANGUAGE_NAMES, N_, SUPPORTED_LOCALES, Translator, translator
from core.cards import Card
from core.deal import GameCode, Rules
from core.errors import InvalidCardError, InvalidCodeError
from core.game import Draw, Game, Reason, Status, Tap, Undo
from core.layout import ROWS

# --- the view model -----------------------------------------------------------------------------------------------


class ButtonStyle(enum.Enum):
    """Discord's button colours; Telegram has none and ignores them."""

    PRIMARY = "primary"  # a card that fits the waste card, or the one sensible move
    SECONDARY = "secondary"
    SUCCESS = "success"  # the hinted move, a chosen setting, a new game after a win
    DANGER = "danger"


@dataclass(frozen=True)
class Button:
    label: str
    payload: str
    style: ButtonStyle = ButtonStyle.SECONDARY
    #: Discord shows it greyed out; Telegram cannot disable a button, so its adapter may leave it out or keep it
    #: (a tap is then refused by the service, harmlessly).
    disabled: bool = False


@dataclass(frozen=True)
class View:
    header: str
    tableau: str | None = None
    status: str | None = None
    buttons: tuple[tuple[Button, ...], ...] = ()
    notice: str | None = None

    def all_buttons(self) -> tuple[Button, ...]:
        return tuple(button for row in self.buttons for button in row)


#: Platform limits every view keeps.
DISCORD_ROWS = 5
DISCORD_ROW_WIDTH = 5
DISCORD_LABEL_MAX = 80
DISCORD_CUSTOM_ID_MAX = 100
DISCORD_CONTENT_MAX = 2000
TELEGRAM_ROW_WIDTH = 8
TELEGRAM_BUTTONS_MAX = 100
TELEGRAM_CALLBACK_BYTES_MAX = 64
TELEGRAM_TEXT_MAX = 4096
TELEGRAM_NOTICE_MAX = 200
#: Cards a row in the button grid; with at most 10 free cards at once, 2 rows of cards and 1 of controls.
CARDS_PER_ROW = 5

# --- cards and the tableau ----------------------------------------------------------------------------------------

#: Variation selectors for cards outside the tableau: U+FE0F asks for the emoji form, so red suits show in red on
#: buttons and in status lines; U+FE0E asks for the text form, so black suits stay in the button's own colour
#: (a black emoji spade is lost on a dark button). The monospace tableau uses neither: emoji break its alignment.
_EMOJI = "\ufe0f"
_TEXT = "\ufe0e"
FACE_DOWN = "▒▒▒"
CELL = 3  # characters a card takes in the tableau
WIDTH = 39  # the bottom row: 10 cells with a space between


def card_label(card: Card) -> str:
    """A card on a button or in a sentence: ``7♠︎`` (text form), ``10♥️`` (red emoji form)."""
    return card.symbol() + (_EMOJI if card.suit.is_red else _TEXT)


def card_cell(card: Card) -> str:
    """A card in the monospace tableau: three characters, the rank right-aligned (`` 7♠``, ``10♥``)."""
    return f"{card.rank.label:>2}{card.suit.symbol}"


def slot_column(slot: int) -> int:
    """The first character of ``slot`` in a tableau line. Each card sits centred over the two cards covering it:
    bottom card j at 4j, third-row j at 4j+2, second-row (peak p, k) at 12p+4k+4, top p at 12p+6."""
    if slot < 3:
        return 12 * slot + 6
    if slot < 9:
        p, k = divmod(slot - 3, 2)
        return 12 * p + 4 * k + 4
    if slot < 18:
        return 4 * (slot - 9) + 2
    return 4 * (slot - 18)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a monospace font: wide (CJK) characters take two, combining marks none."""
    return sum(0 if unicodedata.combining(ch) or ch in (_EMOJI, _TEXT) else
               2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _pad_left(text: str, width: int) -> str:
    return " " * max(0, width - display_width(text)) + text


def _slot_text(game: Game, slot: int) -> str:
    if game.is_removed(slot):
        return " " * CELL
    if game.is_face_up(slot):
        return card_cell(game.card_at(slot))
    return FACE_DOWN


def tableau_text(game: Game, tr: Translator) -> str:
    """The three peaks, then the waste card boxed under them with the stock beside it. Only characters every
    monospace font has at one width (WGL4: suits, blocks, box drawing), so the peaks stay aligned."""
    lines = []
    for row in ROWS:
        line = [" "] * WIDTH
        for slot in row:
            column = slot_column(slot)
            line[column:column + CELL] = _slot_text(game, slot)
        lines.append("".join(line).rstrip())
    # TRANSLATORS: beside the box that holds the waste card in the tableau; keep it short
    waste_label = tr.gettext("waste")
    # TRANSLATORS: under the stock pile in the tableau, {n} is how many cards it holds; keep it short
    stock = tr.gettext("stock {n}").format(n=game.stock_left) if game.stock_left else ""
    pile = FACE_DOWN if game.stock_left else ""
    box = 15  # the waste box sits under the middle peak
    lines.append(" " * box + "╔═════╗")
    lines.append(_pad_left(pile, box - 3) + f"   ║ {card_cell(game.waste)} ║ ← {waste_label}")
    lines.append(_pad_left(stock, box - 1) + " ╚═════╝")
    if not lines[0].strip():
        # a code block drops a blank first line: hold the top row's place with a no-break space
        lines[0] = "\u00a0"
    return "\n".join(lines)


# --- texts --------------------------------------------------------------------------------------------------------

_RULE_NAMES = {
    # TRANSLATORS: the rule set in which King and Ace are adjacent (uk «Легкий», ja イージー)
    Rules.EASY: N_("Easy"),
    # TRANSLATORS: the rule set in which King and Ace are not adjacent (uk «Класичний», ja クラシック)
    Rules.CLASSIC: N_("Classic"),
}

_REFUSALS = {
    # TRANSLATORS: the original app's wording: uk «Ця карта заблокована», ja「このカードはブロックされています」
    Reason.BLOCKED: N_("This card is blocked"),
    # TRANSLATORS: the original app's wording: uk «Має бути на один ранг вищою або нижчою»,
    # ja「ランクが1つ上か1つ下である必要があります」
    Reason.NOT_ADJACENT: N_("Must be one rank higher or lower"),
    Reason.REMOVED: N_("This card has already been removed"),
    Reason.STOCK_EMPTY: N_("The stock is empty"),
    Reason.NOTHING_TO_UNDO: N_("Nothing to undo"),
    Reason.GAME_OVER: N_("This game is over"),
}


def rules_name(rules: Rules, locale: str) -> str:
    return translator(locale).gettext(_RULE_NAMES[rules])


def refusal_text(reason: Reason, locale: str) -> str:
    """Why the engine refused an action, in the player's language."""
    return translator(locale).gettext(_REFUSALS[reason])


def blocked_text(locale: str) -> str:
    # TRANSLATORS: the original app's wording: uk «Більше немає можливих ходів», ja「これ以上可能な手がありません」
    return translator(locale).gettext("No more possible moves")


def stock_text(n: int, locale: str) -> str:
    """``23 cards in the stock``, with the language's plural form."""
    return translator(locale).ngettext("{n} card in the stock", "{n} cards in the stock", n).format(n=n)


def _header(snapshot: GameSnapshot, tr: Translator) -> str:
    game = snapshot.game
    first = []
    if snapshot.daily is not None:
        day = format_date(snapshot.daily, format="medium", locale=tr.babel_locale)
        first.append(tr.gettext("Daily deal: {date}").format(date=day))
    first.append(str(game.code) if game.code else tr.gettext("Custom deal"))
    first.append(tr.gettext(_RULE_NAMES[game.rules]))
    second = [
        tr.gettext("Score: {score}").format(score=game.score),
        tr.gettext("Moves: {moves}").format(moves=game.moves),
        stock_text(game.stock_left, tr.locale),
    ]
    return " · ".join(first) + "\n" + " · ".join(second)


def _hint_lines(hint: Hint, game: Game, tr: Translator) -> list[str]:
    lines = []
    action = hint.action
    if isinstance(action, Tap):
        lines.append(tr.gettext("Hint: play {card}").format(card=card_label(game.card_at(action.slot))))
    elif isinstance(action, Draw):
        lines.append(tr.gettext("Hint: draw a card from the stock"))
    elif isinstance(action, Undo):
        lines.append(tr.gettext("Hint: undo the last move"))
    if hint.winnable is False:
        lines.append(tr.gettext("No move helps: this game can no longer be won")
                     if action is None else tr.gettext("This game can no longer be won"))
    elif hint.winnable and hint.best_score is not None:
        lines.append(tr.gettext("Best score still possible: {score}").format(score=hint.best_score))
    elif hint.winnable is None and action is None:
        lines.append(tr.gettext("No hint found in time; try again after your next move"))
    return lines


def _verdict_lines(verdict: DealVerdict, tr: Translator) -> list[str]:
    if verdict.winnable is False:
        return [tr.gettext("This deal could not be won")]
    if verdict.winnable and verdict.best_score is not None:
        return [tr.gettext("Best possible score for this deal: {score}").format(score=verdict.best_score)]
    return []


def _status_lines(snapshot: GameSnapshot, settings: Settings, tr: Translator) -> list[str]:
    game = snapshot.game
    outcome = snapshot.outcome
    lines: list[str] = []
    if snapshot.abandoned:
        return [tr.gettext("This game was abandoned")]
    if outcome is not None and outcome.reason is not None and settings.explain_refusals:
        lines.append(tr.gettext(_REFUSALS[outcome.reason]))
    if outcome is not None and outcome.ok and outcome.cleared_peak is not None:
        lines.append(tr.gettext("Peak cleared: +100!"))
    if snapshot.hint is not None and not game.is_over:
        lines.extend(_hint_lines(snapshot.hint, game, tr))
    status = game.status
    if status is Status.WON:
        lines.append(tr.gettext("You won! Final score: {score}").format(score=game.score))
    elif status is Status.BLOCKED:
        lines.append(tr.gettext("No more possible moves"))
        lines.append(tr.gettext("Final score: {score}. Undo a move or start a new game.").format(score=game.score))
    if status is not Status.PLAYING and snapshot.verdict is not None:
        lines.extend(_verdict_lines(snapshot.verdict, tr))
    if status is not Status.PLAYING and snapshot.daily is not None and game.code is not None:
        lines.append(tr.gettext("Share your result:"))
        lines.append(share_line(snapshot.daily, game, snapshot.hints_used > 0, tr.locale))
    return lines


# --- buttons ------------------------------------------------------------------------------------------------------


def _split(buttons: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    """Rows of at most ``width``, as even as possible (7 cards: 4 + 3)."""
    if not buttons:
        return []
    rows = -(-len(buttons) // width)
    size = -(-len(buttons) // rows)
    return [tuple(buttons[i:i + size]) for i in range(0, len(buttons), size)]


def _game_buttons(snapshot: GameSnapshot, tr: Translator) -> tuple[tuple[Button, ...], ...]:
    game = snapshot.game

    def payload(command: str) -> str:
        return GamePayload(snapshot.game_id, snapshot.version, command).encode()

    new_game = Button(tr.pgettext("button", "New game"), payload(NEW_GAME), ButtonStyle.SECONDARY)
    if snapshot.abandoned:
        return ()
    status = game.status
    undo = Button(tr.pgettext("button", "Undo"), payload(str(Undo())), ButtonStyle.SECONDARY,
                  disabled=game.undo_depth == 0)
    if status is Status.WON:
        return ((dataclasses.replace(new_game, style=ButtonStyle.SUCCESS),),)
    if status is Status.BLOCKED:
        return ((undo, dataclasses.replace(new_game, style=ButtonStyle.PRIMARY)),)
    hinted = snapshot.hint.action if snapshot.hint is not None else None
    free = sorted(game.playable_slots(), key=lambda s: (slot_column(s), s))
    cards = []
    for slot in free:
        style = ButtonStyle.PRIMARY if game.fits(slot) else ButtonStyle.SECONDARY
        if hinted == Tap(slot):
            style = ButtonStyle.SUCCESS
        cards.append(Button(card_label(game.card_at(slot)), payload(str(Tap(slot))), style))
    any_fits = any(game.fits(s) for s in free)
    draw_style = ButtonStyle.PRIMARY if not any_fits else ButtonStyle.SECONDARY
    if isinstance(hinted, Draw):
        draw_style = ButtonStyle.SUCCESS
    if isinstance(hinted, Undo):
        undo = dataclasses.replace(undo, style=ButtonStyle.SUCCESS)
    # TRANSLATORS: the stock button; {n} is how many cards are left to draw
    draw = Button(tr.pgettext("button", "Draw ({n})").format(n=game.stock_left), payload(str(Draw())),
                  draw_style, disabled=game.stock_left == 0)
    hint = Button(tr.pgettext("button", "Hint"), payload(HINT), ButtonStyle.SECONDARY)
    return (*_split(cards, CARDS_PER_ROW), (draw, undo, hint, new_game))


# --- the game -----------------------------------------------------------------------------------------------------


def render_game(snapshot: GameSnapshot, locale: str, settings: Settings) -> View:
    """The whole game message: header, tableau, status and buttons."""
    tr = translator(locale)
    game = snapshot.game
    lines = _status_lines(snapshot, settings, tr)
    outcome = snapshot.outcome
    notice = None
    if outcome is not None and outcome.reason is not None and settings.explain_refusals:
        notice = tr.gettext(_REFUSALS[outcome.reason])
    return View(
        header=_header(snapshot, tr),
        tableau=tableau_text(game, tr),
        status="\n".join(lines) or None,
        buttons=_game_buttons(snapshot, tr),
        notice=notice,
    )


# --- other replies ------------------------------------------------------------------------------------------------

_RULES_HELP = (
    N_("How to play TriPeaks"),
    N_("Layout: 28 cards form three peaks in four rows of 3, 6, 9 and 10 cards. Only the bottom row starts face "
       "up; each card above it is partly covered by two cards of the next row. One card starts on the waste, and "
       "the other 23 make the stock."),
    N_("Moves: tap a face-up card that nothing covers any more when its rank is exactly one above or one below "
       "the waste card, whatever its suit (on an 8: a 7 or a 9). It becomes the new waste card. A face-down card "
       "turns over as soon as both cards covering it are gone. Draw turns the next stock card onto the waste; you "
       "may draw at any time, but the stock is used only once."),
    N_("Easy and Classic: in Easy (the default) King and Ace are adjacent, so a run can go Q, K, A, 2. In Classic "
       "the sequence stops at both ends: only a Queen goes on a King and only a 2 on an Ace."),
    N_("End: you win as soon as all 28 peak cards are gone, even with cards left in the stock. When the stock is "
       "empty and no free card fits the waste card, there are no more possible moves: undo, or start a new game."),
    N_("Score: you start with 500. Every card removed and every card drawn costs 1 point; the removal that "
       "empties a whole peak earns 100 more. A perfect game scores 772."),
    N_("Undo takes back the last move, removal or draw, and gives back exactly its points, the peak bonus "
       "included. The move counter never goes down."),
    N_("Codes: every deal has a code such as TP1-E-AAAAAAB, where E means Easy and C Classic. Start a new game "
       "with a code to play exactly the same cards again, or to challenge a friend."),
)


def rules_text(locale: str) -> str:
    """The rules help, written for this project from RULES.md; plain text under 2000 characters."""
    tr = translator(locale)
    return "\n\n".join(tr.gettext(paragraph) for paragraph in _RULES_HELP)


def render_rules(locale: str) -> View:
    tr = translator(locale)
    title, *body = (tr.gettext(paragraph) for paragraph in _RULES_HELP)
    return View(header=title, status="\n\n".join(body))


def render_stats(stats: Stats, locale: str) -> View:
    """A player's statistics."""
    tr = translator(locale)
    title = tr.gettext("Your TriPeaks statistics")
    if stats.games == 0:
        return View(header=title, status=tr.gettext("No games played yet"))
    rate = format_percent(stats.win_rate, locale=tr.babel_locale)
    lines = [
        tr.ngettext("{n} game played", "{n} games played", stats.games).format(n=stats.games),
        tr.ngettext("{n} win ({rate})", "{n} wins ({rate})", stats.wins).format(n=stats.wins, rate=rate),
    ]
    if stats.best_score is not None:
        lines.append(tr.gettext("Best score: {score}").format(score=stats.best_score))
    lines.append(tr.ngettext("Current streak: {n} win", "Current streak: {n} wins", stats.current_streak)
                 .format(n=stats.current_streak))
    lines.append(tr.ngettext("Longest streak: {n} win", "Longest streak: {n} wins", stats.longest_streak)
                 .format(n=stats.longest_streak))
    return View(header=title, status="\n".join(lines))


def render_daily(day: dt.date, locale: str, code: GameCode | None = None) -> View:
    """The post announcing a daily deal (with its code, when given), with its Play button."""
    tr = translator(locale)
    date = format_date(day, format="long", locale=tr.babel_locale)
    status = tr.gettext("Everyone gets the same cards today. Who scores best?")
    if code is not None:
        # TRANSLATORS: under the daily post; {code} is the deal's code, such as TP1-E-AAAAAAB
        status += "\n" + tr.gettext("Today's code: {code}").format(code=code)
    return View(
        header=tr.gettext("Daily deal: {date}").format(date=date),
        status=status,
        buttons=((Button(tr.pgettext("button", "Play"), DailyPayload(day).encode(), ButtonStyle.PRIMARY),),),
    )


#: A cleared peak and one still standing, in the share line.
PEAK_CLEARED = "⛰"
PEAK_STANDING = "▵"


def share_line(day: dt.date, game: Game, hinted: bool, locale: str) -> str:
    """A daily result a player can paste anywhere: the day, the code, the score and the peaks cleared, and no card.

    >>> from core.game import Game
    >>> share_line(dt.date(2026, 11, 29), Game.from_code("TP1-E-AAAAAAB"), False, "en")
    'TriPeaks daily 2026-11-29 TP1-E-AAAAAAB: score 500, peaks 0/3 ▵▵▵'
    """
    tr = translator(locale)
    peaks = game.peaks_cleared()
    # TRANSLATORS: the shareable result of a daily deal; keep "TriPeaks", {date} is YYYY-MM-DD, {code} the deal's
    # code, {peaks} how many of the 3 peaks were cleared
    line = tr.gettext("TriPeaks daily {date} {code}: score {score}, peaks {peaks}/3").format(
        date=day.isoformat(), code=game.code, score=game.score, peaks=peaks)
    line += " " + PEAK_CLEARED * peaks + PEAK_STANDING * (3 - peaks)
    if hinted:
        # TRANSLATORS: added to the shareable result when the player asked for hints
        line += " · " + tr.gettext("with hints")
    return line


def _duration(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour on."""
    total = max(0, int(seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


def render_leaderboard(day: dt.date, results: Sequence[DailyResult], locale: str, limit: int = 20) -> View:
    """A server's or group's daily leaderboard: each player's first finished attempt, best first (hinted games
    after the others, marked)."""
    tr = translator(locale)
    date = format_date(day, format="medium", locale=tr.babel_locale)
    title = tr.gettext("Daily leaderboard: {date}").format(date=date)
    if not results:
        return View(header=title, status=tr.gettext("Nobody here has finished today's deal yet"))
    lines = []
    for place, result in enumerate(results[:limit], start=1):
        # TRANSLATORS: one line of the daily leaderboard; {time} is minutes:seconds
        line = tr.gettext("{place}. {name}: score {score}, moves {moves}, time {time}").format(
            place=place, name=result.name or "?", score=result.score, moves=result.moves,
            time=_duration(result.seconds))
        if result.hinted:
            line += " · " + tr.gettext("with hints")
        lines.append(line)
    lines.append(tr.gettext("Only each player's first finished game of the deal counts."))
    return View(header=title, status="\n".join(lines))


class DailyNotice(enum.Enum):
    """Answers to the daily commands that are not a game or a leaderboard."""

    SUBSCRIBED = "subscribed"
    ALREADY_SUBSCRIBED = "already_subscribed"
    UNSUBSCRIBED = "unsubscribed"
    NOT_SUBSCRIBED = "not_subscribed"
    NEEDS_ADMIN = "needs_admin"
    NEEDS_GROUP = "needs_group"


_DAILY_NOTICES = {
    # TRANSLATORS: {time} is the daily post time in UTC, such as 09:00
    DailyNotice.SUBSCRIBED: N_("Subscribed: the daily deal will be posted here every day at {time} UTC"),
    DailyNotice.ALREADY_SUBSCRIBED: N_("The daily deal is already posted here every day at {time} UTC"),
    DailyNotice.UNSUBSCRIBED: N_("Unsubscribed: the daily deal will no longer be posted here"),
    DailyNotice.NOT_SUBSCRIBED: N_("The daily deal is not posted here"),
    DailyNotice.NEEDS_ADMIN: N_("Only an administrator (on Discord: Manage Server) can change the daily posts"),
    DailyNotice.NEEDS_GROUP: N_("Daily posts and leaderboards are for servers and groups, not private chats"),
}


def daily_notice(notice: DailyNotice, locale: str, post_time: dt.time | None = None) -> str:
    """The reply to ``subscribe``, ``unsubscribe`` or ``leaderboard`` when it is not a leaderboard."""
    text = translator(locale).gettext(_DAILY_NOTICES[notice])
    return text.format(time=post_time.strftime("%H:%M")) if post_time is not None else text


# --- settings -----------------------------------------------------------------------------------------------------

_SETTINGS_RE = re.compile(r"^tp:set:(explain:(?:on|off)|rules:(?:easy|classic)|lang:(?:auto|en|uk|ru|ja))$")


@dataclass(frozen=True)
class SettingsPayload:
    """A tap on a settings button: ``tp:set:explain:off``, ``tp:set:rules:classic``, ``tp:set:lang:uk`` (``auto``
    returns to the platform's language).

    >>> SettingsPayload.decode("tp:set:lang:uk").apply(Settings()).language
    'uk'
    """

    key: str  # explain, rules or lang
    value: str

    def encode(self) -> str:
        return f"{PREFIX}:set:{self.key}:{self.value}"

    @classmethod
    def decode(cls, text: str) -> SettingsPayload:
        """Read a settings payload; raise :class:`BadPayload` for anything else."""
        match = _SETTINGS_RE.match(text)
        if match is None:
            raise BadPayload(f"not a settings payload: {text[:80]!r}")
        key, value = match.group(1).split(":")
        return cls(key, value)

    @staticmethod
    def is_settings(text: str) -> bool:
        return text.startswith(f"{PREFIX}:set:")

    def changes(self) -> dict[str, object]:
        """The change as keyword arguments for the service's settings update."""
        if self.key == "explain":
            return {"explain_refusals": self.value == "on"}
        if self.key == "rules":
            return {"default_rules": Rules(self.value)}
        return {"language": None if self.value == "auto" else self.value}

    def apply(self, settings: Settings) -> Settings:
        """The settings with this choice made."""
        return dataclasses.replace(settings, **self.changes())  # type: ignore[arg-type]


def render_settings(settings: Settings, locale: str) -> View:
    """The settings message: what is chosen, and buttons to change it."""
    tr = translator(locale)

    def choice(label: str, payload: SettingsPayload, chosen: bool) -> Button:
        return Button(label, payload.encode(), ButtonStyle.SUCCESS if chosen else ButtonStyle.SECONDARY)

    explain = settings.explain_refusals
    language = (LANGUAGE_NAMES[settings.language] if settings.language in LANGUAGE_NAMES
                else tr.gettext("automatic ({language})").format(language=LANGUAGE_NAMES[tr.locale]))
    lines = [
        tr.gettext("Explain refused moves: {state}").format(state=tr.pgettext("setting", "on") if explain else tr.pgettext("setting", "off")),
        tr.gettext("Rules for new games: {rules}").format(rules=tr.gettext(_RULE_NAMES[settings.default_rules])),
        tr.gettext("Language: {language}").format(language=language),
    ]
    explain_button = choice(
        tr.pgettext("button", "Explanations: on") if explain else tr.pgettext("button", "Explanations: off"),
        SettingsPayload("explain", "off" if explain else "on"), explain)
    rules_row = tuple(choice(tr.gettext(_RULE_NAMES[rules]), SettingsPayload("rules", rules.value),
                             settings.default_rules is rules) for rules in Rules)
    chosen_language = settings.language if settings.language in SUPPORTED_LOCALES else None
    language_row = (choice(tr.pgettext("button", "Automatic"), SettingsPayload("lang", "auto"),
                           chosen_language is None),
                    *(choice(LANGUAGE_NAMES[code], SettingsPayload("lang", code), chosen_language == code)
                      for code in SUPPORTED_LOCALES))
    return View(
        header=tr.gettext("Settings"),
        status="\n".join(lines),
        buttons=((explain_button,), rules_row, *_split(language_row, CARDS_PER_ROW)),
    )


# --- errors -------------------------------------------------------------------------------------------------------


def error_text(error: Exception, locale: str, new_command: str = "/tripeaks new") -> str:
    """The reply to an error the service raised. ``new_command`` is how the platform starts a game."""
    tr = translator(locale)
    if isinstance(error, NotYourGame):
        return tr.gettext("This is {name}'s game; start your own with {command}").format(
            name=error.owner_name, command=new_command)
    if isinstance(error, StaleGame):
        return tr.gettext("That message was out of date; it now shows the game as it stands")
    if isinstance(error, GameNotFound):
        return tr.gettext("This game has expired; start a new one with {command}").format(command=new_command)
    if isinstance(error, NoActiveGame):
        return tr.gettext("You have no game in progress; start one with {command}").format(command=new_command)
    if isinstance(error, InvalidCardError):
        return tr.gettext("That is not a card: write one like 7h, 10s or QS")
    if isinstance(error, (BadGameCode, InvalidCodeError)):
        return tr.gettext("That is not a game code: a code looks like TP1-E-AAAAAAB (E Easy, C Classic)")
    if isinstance(error, BadPayload):
        return tr.gettext("This button could not be read; start a new game with {command}").format(
            command=new_command)
    if isinstance(error, NoWinnableDeal):
        return tr.gettext("No winnable deal was found in time; please try again")
    if isinstance(error, BotError):
        return tr.gettext("That did not work; please try again")
    return tr.gettext("Something went wrong on our side; please try again later")


# --- commands -----------------------------------------------------------------------------------------------------

#: Descriptions for slash commands (Discord, at most 100 characters) and the Telegram command menu.
COMMAND_DESCRIPTIONS: dict[str, str] = {
    "tripeaks": N_("Play TriPeaks solitaire"),
    "new": N_("Start a new game, or replay a deal from its code"),
    "resume": N_("Show your game in progress"),
    "daily": N_("Play today's deal, the same for everyone"),
    "play": N_("Play a free card by its name, such as 7h or QS"),
    "rules": N_("How to play TriPeaks"),
    "help": N_("How to play TriPeaks, and the commands"),
    "stats": N_("Your games, wins, best score and streaks"),
    "settings": N_("Language, rules for new games and explanations"),
    "leaderboard": N_("Today's daily leaderboard of this server or group"),
    "subscribe": N_("Post the daily deal here every day (administrators)"),
    "unsubscribe": N_("Stop posting the daily deal here (administrators)"),
}

#: Descriptions for command options (Discord, at most 100 characters).
OPTION_DESCRIPTIONS: dict[str, str] = {
    "code": N_("A game code such as TP1-E-AAAAAAB, to replay that deal"),
    # TRANSLATORS: the option choosing Easy or Classic for a new game
    "rules": N_("Easy (King and Ace adjacent) or Classic"),
    "card": N_("The card to play, such as 7h, 10s or QS"),
}


def command_names(locale: str) -> dict[str, str]:
    """Slash command and option names in ``locale`` (Discord shows them in the player's language). Each is lower
    case letters, digits, ``-`` or ``_``, at most 32 characters; the group name ``tripeaks`` stays as it is."""
    tr = translator(locale)
    # TRANSLATORS: slash command and option names: one lower-case word (letters, digits, - or _), no spaces
    return {
        "new": tr.pgettext("command", "new"),
        "daily": tr.pgettext("command", "daily"),
        "resume": tr.pgettext("command", "resume"),
        "play": tr.pgettext("command", "play"),
        "rules": tr.pgettext("command", "rules"),
        "stats": tr.pgettext("command", "stats"),
        "settings": tr.pgettext("command", "settings"),
        "leaderboard": tr.pgettext("command", "leaderboard"),
        "subscribe": tr.pgettext("command", "subscribe"),
        "unsubscribe": tr.pgettext("command", "unsubscribe"),
        "code": tr.pgettext("command", "code"),
        "card": tr.pgettext("command", "card"),
    }


def command_description(command: str, locale: str) -> str:
    return translator(locale).gettext(COMMAND_DESCRIPTIONS[command])


def option_description(option: str, locale: str) -> str:
    return translator(locale).gettext(OPTION_DESCRIPTIONS[option])


# --- plain text (console and snapshots) ---------------------------------------------------------------------------


def view_as_text(view: View) -> str:
    """A view as plain text: what the console shows, and what snapshot tests compare."""
    parts = [view.header]
    if view.tableau is not None:
        parts.append(view.tableau)
    if view.status:
        parts.append(view.status)
    for row in view.buttons:
        parts.append("  ".join(_button_text(button) for button in row))
    return "\n\n".join(parts)


def _button_text(button: Button) -> str:
    marks = {ButtonStyle.PRIMARY: "*", ButtonStyle.SUCCESS: "+", ButtonStyle.DANGER: "!"}
    label = button.label.replace(_EMOJI, "").replace(_TEXT, "")
    return f"[{label}{marks.get(button.style, '')}{' (off)' if button.disabled else ''}]"


__all__ = [
    "Button",
    "ButtonStyle",
    "SettingsPayload",
    "View",
    "blocked_text",
    "card_label",
    "command_description",
    "command_names",
    "option_description",
    "error_text",
    "refusal_text",
    "render_daily",
    "render_leaderboard",
    "share_line",
    "daily_notice",
    "DailyNotice",
    "render_game",
    "render_rules",
    "render_settings",
    "render_stats",
    "rules_name",
    "rules_text",
    "stock_text",
    "tableau_text",
    "view_as_text",
]
