"""The game message: header, compact tableau, status lines and the game's buttons.

>>> from core.game import Game
>>> from bot.app.model import GameSnapshot, PlayerKey, Settings
>>> snap = GameSnapshot(1, 0, PlayerKey("console", "1"), "ann", Game.from_code("TP1-E-AAAAAAB"))
>>> view = render_game(snap, "en", Settings())
>>> view.header
'TP1-E-AAAAAAB · Easy\\nScore: 500 · Moves: 0'
>>> [b.label for b in view.buttons[-1]]
['Draw', 'Undo', 'Hint', 'New game']
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence

from babel.dates import format_date

from bot.app.codec import encode
from bot.app.commands import AskHint, Move, NewGame
from bot.app.model import DealVerdict, GameSnapshot, Hint, Settings
from bot.i18n import N_, Translator, translator
from bot.render.tableau import card_label, slot_column, tableau_text
from bot.render.view import CARDS_PER_ROW, HEADER_COLUMNS, Button, ButtonStyle, View, display_width
from core.deal import Rules
from core.game import Draw, Game, Reason, Status, Tap, Undo

RULE_NAMES = {
    # TRANSLATORS: the rule set in which King and Ace are adjacent (uk «Легкий», ja イージー)
    Rules.EASY: N_("Easy"),
    # TRANSLATORS: the rule set in which King and Ace are not adjacent (uk «Класичний», ja クラシック)
    Rules.CLASSIC: N_("Classic"),
}

REFUSALS = {
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

#: A cleared peak and one still standing, in the share line.
PEAK_CLEARED = "⛰"
PEAK_STANDING = "▵"


def refusal_text(reason: Reason, locale: str) -> str:
    """Why the engine refused an action, in the player's language."""
    return translator(locale).gettext(REFUSALS[reason])


def blocked_text(locale: str) -> str:
    # TRANSLATORS: the original app's wording: uk «Більше немає можливих ходів», ja「これ以上可能な手がありません」
    return translator(locale).gettext("No more possible moves")


def stock_text(n: int, locale: str) -> str:
    """``23 cards in the stock``, with the language's plural form."""
    return translator(locale).ngettext("{n} card in the stock", "{n} cards in the stock", n).format(n=n)


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


# --- header and status --------------------------------------------------------------------------------------------


def pack_line(groups: Sequence[str], width: int = HEADER_COLUMNS, separator: str = " · ") -> str:
    """``groups`` joined by ``separator`` on as few lines as keep within ``width`` display columns, never breaking a
    group (a group wider than ``width`` gets a line of its own).

    >>> pack_line(["TP1-E-AAAAAAB · Easy", "Score: 500 · Moves: 0"])
    'TP1-E-AAAAAAB · Easy\\nScore: 500 · Moves: 0'
    >>> pack_line(["ab", "cd"], width=7)
    'ab · cd'
    """
    lines: list[str] = []
    for group in groups:
        if lines and display_width(lines[-1] + separator + group) <= width:
            lines[-1] += separator + group
        else:
            lines.append(group)
    return "\n".join(lines)


def _header(snapshot: GameSnapshot, tr: Translator) -> str:
    """Code and rules, then score and moves: one line where it fits a phone, else two (the stock's count is in the
    tableau, beside the stock)."""
    game = snapshot.game
    groups = []
    if snapshot.daily is not None:
        day = format_date(snapshot.daily, format="medium", locale=tr.babel_locale)
        groups.append(tr.gettext("Daily deal: {date}").format(date=day))
    groups.append(" · ".join((str(game.code) if game.code else tr.gettext("Custom deal"),
                              tr.gettext(RULE_NAMES[game.rules]))))
    groups.append(" · ".join((tr.gettext("Score: {score}").format(score=game.score),
                              tr.gettext("Moves: {moves}").format(moves=game.moves))))
    return pack_line(groups)


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
        lines.append(tr.gettext(REFUSALS[outcome.reason]))
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


def split_even(buttons: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    """Rows of at most ``width``, as even as possible (7 cards: 4 + 3)."""
    if not buttons:
        return []
    rows = -(-len(buttons) // width)
    size = -(-len(buttons) // rows)
    return [tuple(buttons[i:i + size]) for i in range(0, len(buttons), size)]


def _game_buttons(snapshot: GameSnapshot, tr: Translator) -> tuple[tuple[Button, ...], ...]:
    """A button for each free card, left to right (green when it fits, blue when hinted), then Draw, Undo, Hint
    and New game (blue when it is the move to make: hinted, or Draw when no card fits)."""
    game = snapshot.game

    game_id, version = snapshot.game_id, snapshot.version

    def payload(action: Tap | Draw | Undo) -> str:
        return encode(Move(game_id, version, action))

    new_game = Button(tr.pgettext("button", "New game"), encode(NewGame(game_id, version)), ButtonStyle.SECONDARY)
    if snapshot.abandoned:
        return ()
    status = game.status
    undo = Button(tr.pgettext("button", "Undo"), payload(Undo()), ButtonStyle.SECONDARY,
                  disabled=game.undo_depth == 0)
    if status is Status.WON:
        return ((dataclasses.replace(new_game, style=ButtonStyle.PRIMARY),),)
    if status is Status.BLOCKED:
        return ((undo, dataclasses.replace(new_game, style=ButtonStyle.PRIMARY)),)
    hinted = snapshot.hint.action if snapshot.hint is not None else None
    free = sorted(game.playable_slots(), key=lambda s: (slot_column(s), s))
    cards = []
    for slot in free:
        style = ButtonStyle.SUCCESS if game.fits(slot) else ButtonStyle.SECONDARY
        if hinted == Tap(slot):
            style = ButtonStyle.PRIMARY
        cards.append(Button(card_label(game.card_at(slot)), payload(Tap(slot)), style))
    any_fits = any(game.fits(s) for s in free)
    draw_style = ButtonStyle.PRIMARY if isinstance(hinted, Draw) or (hinted is None and not any_fits) \
        else ButtonStyle.SECONDARY
    if isinstance(hinted, Undo):
        undo = dataclasses.replace(undo, style=ButtonStyle.PRIMARY)
    # TRANSLATORS: the stock button (the tableau shows how many cards are left beside the stock)
    draw = Button(tr.pgettext("button", "Draw"), payload(Draw()), draw_style, disabled=game.stock_left == 0)
    hint = Button(tr.pgettext("button", "Hint"), encode(AskHint(game_id, version)), ButtonStyle.SECONDARY)
    return (*split_even(cards, CARDS_PER_ROW), (draw, undo, hint, new_game))


def render_game(snapshot: GameSnapshot, locale: str, settings: Settings) -> View:
    """The whole game message: header, tableau, status and buttons."""
    tr = translator(locale)
    game = snapshot.game
    lines = _status_lines(snapshot, settings, tr)
    outcome = snapshot.outcome
    notice = None
    if outcome is not None and outcome.reason is not None and settings.explain_refusals:
        notice = tr.gettext(REFUSALS[outcome.reason])
    hinted = snapshot.hint.action if snapshot.hint is not None and not game.is_over else None
    return View(
        header=_header(snapshot, tr),
        tableau=tableau_text(game, hinted_slot=hinted.slot if isinstance(hinted, Tap) else None,
                             hinted_draw=isinstance(hinted, Draw)),
        status="\n".join(lines) or None,
        buttons=_game_buttons(snapshot, tr),
        notice=notice,
    )
