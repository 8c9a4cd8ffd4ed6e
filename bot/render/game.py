"""The game message: header, compact tableau, status lines and the game's buttons.

>>> from core.game import Game
>>> from bot.app.model import GameSnapshot, PlayerKey, Settings
>>> snap = GameSnapshot(1, 0, PlayerKey("console", "1"), "ann", Game.from_code("TP1-E-AAAAAAB"))
>>> view = render_game(snap, "en", Settings())
>>> view.header
'TP1-E-AAAAAAB · Easy\\nScore: 500 · Moves: 0'
>>> [b.label for b in view.buttons[-1]]
['Draw', '↶', '💡', '🆕']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from babel.dates import format_date
from babel.numbers import format_percent

from bot.app.commands import AskHint, Blank, Move, NewGame
from bot.app.model import BoardStyle, GameSnapshot, Hint, Settings
from bot.i18n import N_, Translator, translator
from bot.render.challenges import to_beat
from bot.render.endings import deal_name, ending_buttons, ending_lines
from bot.render.endings import share_line as share_line  # where tests/test_daily.py has always found it
from bot.render.owner import notice_line
from bot.render.table import seen_table, table_alt
from bot.render.tableau import CARD_PLACES, card_label, card_place, narrow_tableau_text, tableau_text
from bot.render.view import (
    BLANK_LABEL,
    CARDS_PER_ROW,
    HEADER_COLUMNS,
    Button,
    ButtonStyle,
    View,
    display_width,
    named_title,
)
from core.cards import Card
from core.deal import Rules
from core.game import Draw, Game, Outcome, Reason, Status, Tap, Undo

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

def refusal_text(reason: Reason, locale: str) -> str:
    """Why the engine refused an action, in the player's language."""
    return translator(locale).gettext(REFUSALS[reason])


def _outcome_card(outcome: Outcome, game: Game) -> Card | None:
    """The card an action moved, or the card a refused tap named."""
    action = outcome.action
    if outcome.card is not None:
        return outcome.card
    return game.card_at(action.slot) if isinstance(action, Tap) else None


def _refusal(outcome: Outcome, game: Game, tr: Translator, *, waste_changed: bool = False) -> str:
    """Why an action was refused; a refused face-up card is named (a second quick tap, a card played by name: the
    player sees which one), a face-down one never (that would show it). ``waste_changed``: the card was tapped on
    an older board and no longer fits because a move since (two quick taps of two green cards) changed the waste
    card, which is said."""
    reason = tr.gettext(REFUSALS[outcome.reason]) if outcome.reason is not None else ""
    if waste_changed and outcome.reason is Reason.NOT_ADJACENT:
        # TRANSLATORS: a card tapped on the board as it was before the player's last move no longer fits: that move
        # (another card played, or a card drawn) put {waste} on the waste pile. Follows "{card} was not played."
        reason = tr.gettext("Your previous move changed the waste card to {waste}").format(
            waste=card_label(game.waste))
    card = _outcome_card(outcome, game)
    action = outcome.action
    if card is None or not isinstance(action, Tap) or not game.is_face_up(action.slot):
        return reason
    # TRANSLATORS: a card tapped or played by name was refused; {reason} is a sentence of its own that says why
    # (one of the refusals, such as "This card is blocked")
    return tr.gettext("{card} was not played. {reason}").format(card=card_label(card), reason=reason)


def blocked_text(locale: str) -> str:
    # TRANSLATORS: the original app's wording: uk «Більше немає можливих ходів», ja「これ以上可能な手がありません」
    return translator(locale).gettext("No more possible moves")


def stock_text(n: int, locale: str) -> str:
    """``23 cards in the stock``, with the language's plural form."""
    # TRANSLATORS: beside the stock on the text board; {n} counts down from 23 to 0 (1 too)
    return translator(locale).ngettext("{n} card in the stock", "{n} cards in the stock", n).format(n=n)


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


#: The live chain shows in the header from this many cards removed in a row: one card is no chain yet.
CHAIN_SHOWN = 2


def _header(snapshot: GameSnapshot, tr: Translator, *, owner_label: bool, fixed: bool = False) -> str:
    """Whose game (in a group), code and rules (and that the deal is proven winnable; a daily deal's day instead of
    its code while the code is hidden), then score and moves, the score to beat (a game from a challenge), then the
    undos and hints used (when any, and always on a daily deal): packed into short lines that fit a phone (the
    stock's count is in the tableau, beside the stock). ``fixed``: a line each, for the platform to pack, and no
    counters (:func:`render_game`)."""
    game = snapshot.game
    groups = []
    owner = ""
    if owner_label:  # a line of its own: a name is as wide as it is, and a platform may set it in a larger font
        # TRANSLATORS: above a board in a group or channel, while it is played and after it ended: whose game it is
        # (a label that also fits a finished game: uk «Гравець: {name}»)
        owner = named_title(tr.gettext("{name}'s game"), snapshot.owner_name) + "\n"
    day = snapshot.daily or snapshot.practice_of
    if day is not None:
        groups += [daily_title(tr), format_date(day, format="medium", locale=tr.babel_locale)]
    if snapshot.practice_of is not None:
        # TRANSLATORS: in the header of the daily deal played again after the player's attempt (after "Daily deal"
        # and its date): it counts nowhere. A line of its own on a phone: at most 26 columns
        groups.append(tr.gettext("practice, unranked"))
    rules = tr.gettext(RULE_NAMES[game.rules])
    # a daily deal's code while its day runs: its day above names it (the code would deal every card)
    groups.append(rules if snapshot.code_hidden else " · ".join((deal_name(snapshot, tr), rules)))
    if snapshot.daily is not None and not game.is_over:
        # TRANSLATORS: in the header of the player's one ranked game of the daily deal (after "Daily deal", its
        # date and the rules), which is why its board has no Undo button. A line of its own on a phone: at most
        # 26 columns
        groups.append(tr.gettext("ranked attempt: no undo"))
    if snapshot.round_id is not None and not game.is_over:
        # TRANSLATORS: in the header of a player's game in a live round of their group, which is why its board has
        # no Undo button. A line of its own on a phone: at most 30 columns
        groups.append(tr.gettext("live round: no undo"))
    if snapshot.dealt_winnable:
        # TRANSLATORS: in the header: this deal was dealt as one the solver proved winnable (short)
        groups.append(tr.pgettext("header", "winnable"))
    # TRANSLATORS: in the game's header: the score so far, then the number of moves (draws and removals)
    score = " · ".join((tr.gettext("Score: {score}").format(score=game.score),
                        tr.gettext("Moves: {moves}").format(moves=game.moves)))
    beat = [to_beat(snapshot.challenge, tr)] if snapshot.challenge is not None and not game.is_over else []
    if fixed:
        return "\n".join((owner + " · ".join(groups), score, *beat))
    groups += [score, *beat]
    if counters := _counters(snapshot, tr):
        together = " · ".join(counters)
        groups.extend((together,) if display_width(together) <= HEADER_COLUMNS else counters)
    return owner + pack_line(groups)


def _counters(snapshot: GameSnapshot, tr: Translator) -> tuple[str, ...]:
    """The live chain (from :data:`CHAIN_SHOWN` cards), and the undos and hints used, each when any (no zero
    said), but the hints always on a daily deal, whose ranked attempt has no undo."""
    game = snapshot.game
    chain: tuple[str, ...] = ()
    if game.chain >= CHAIN_SHOWN and not game.is_over:
        # TRANSLATORS: in the game's header while it is played: the cards removed in a row since the last draw,
        # the word of "Longest chain" in the review (a label and a count, {n} from 2 up to 28; short)
        chain = (tr.gettext("Chain: {n}").format(n=game.chain),)
    if not (snapshot.undos_used or snapshot.hints_used or snapshot.daily is not None or snapshot.round_id is not None):
        return chain
    # TRANSLATORS: in the game's header: how many hints the player asked for ({n} is often 1 or 0: a label and a
    # count, which fits every number)
    hints = tr.gettext("Hints: {n}").format(n=snapshot.hints_used)
    if snapshot.daily is not None or snapshot.round_id is not None:
        return (*chain, hints)
    # TRANSLATORS: in the game's header: how many moves the player took back with Undo ({n} is often 1 or 0:
    # a label and a count, which fits every number)
    undone = (tr.gettext("Moves undone: {n}").format(n=snapshot.undos_used),) if snapshot.undos_used else ()
    return (*chain, *undone, *((hints,) if snapshot.hints_used else ()))


def daily_title(tr: Translator) -> str:
    """"Daily deal", as a title: its date follows as a group of its own (``Daily deal · Nov 29, 2026``), which a
    phone's heading puts on the next line."""
    # TRANSLATORS: a title: the daily deal (the deal everyone gets today); its date follows, after " · " or on the
    # next line. At most 24 columns
    return tr.gettext("Daily deal")


def _chance(chance: float, tr: Translator) -> str:
    """A chance as a whole percentage in the locale; never "0%" for a chance that is not nil."""
    return format_percent(max(chance, 0.01) if chance > 0 else 0, locale=tr.babel_locale)


def _fair_hint_lines(hint: Hint, game: Game, tr: Translator) -> list[str]:
    """The fair advisor's hint, from what the player can see: the move and the chance to win after it."""
    chance = hint.win_chance or 0.0
    action = hint.action
    if chance <= 0 or action is None:
        # TRANSLATORS: the fair hint when every sample of the hidden cards is lost: judged only from the visible
        # cards, so hedge once (not "it seems that, apparently, ...")
        return [tr.gettext("From what you can see, this game looks lost")]
    percent = _chance(chance, tr)
    if isinstance(action, Tap):
        # TRANSLATORS: the fair hint; {card} is a card such as 7♠, {chance} a percentage such as 80%
        return [tr.gettext("Best move from what you can see: play {card} (about {chance} chance to win from here)").format(
            card=card_label(game.card_at(action.slot)), chance=percent)]
    if isinstance(action, Draw):
        return [tr.gettext("Best move from what you can see: draw a card (about {chance} chance to win from here)").format(
            chance=percent)]
    return [tr.gettext("Best move from what you can see: undo the last move (about {chance} chance to win from here)")
            .format(chance=percent)]


def _hint_lines(hint: Hint, game: Game, tr: Translator) -> list[str]:
    if hint.busy:
        # TRANSLATORS: the hint was not thought about (too many players asking at once) and is not counted; 💡 is
        # the Hint button
        return [tr.gettext("Too many players are asking for hints right now; tap 💡 again in a moment")]
    if hint.win_chance is not None:
        return _fair_hint_lines(hint, game, tr)
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


def _status_lines(snapshot: GameSnapshot, settings: Settings, tr: Translator, *, latest: bool) -> list[str]:
    game = snapshot.game
    outcome = snapshot.outcome
    lines: list[str] = []
    if snapshot.abandoned and snapshot.daily is not None and not snapshot.code_hidden:
        # TRANSLATORS: under the board of a daily attempt still open when its UTC day ended: it ended then, counted
        return [tr.gettext("The day is over: this attempt ended as it stood")]
    if snapshot.abandoned:
        # TRANSLATORS: under a board whose game the player left by starting another
        return [tr.gettext("This game was abandoned")]
    if outcome is not None and outcome.reason is not None and settings.explain_refusals:
        lines.append(_refusal(outcome, game, tr, waste_changed=snapshot.waste_changed))
    if outcome is not None and outcome.ok and outcome.cleared_peak is not None:
        # TRANSLATORS: the last card of a peak was removed: 100 bonus points
        lines.append(tr.gettext("Peak cleared: +100!"))
    if snapshot.hint is not None and not game.is_over:
        lines.extend(_hint_lines(snapshot.hint, game, tr))
    return lines + ending_lines(snapshot, tr, latest=latest)


# --- buttons ------------------------------------------------------------------------------------------------------

#: The in-game controls but Draw are icons, the same in every language, so Draw, Undo, Hint and New game share one
#: row on a 360-px phone (as words they took two rows in every language: "Скасувати", "Podpowiedź", "Nouvelle
#: partie"); the leaderboard marks undos and hints with the same ↶ and 💡. Draw keeps its word, the glossary's verb
#: for the move made most. A finished game's buttons (Undo, Replay, Review, New game) keep their words.
UNDO_ICON = "↶"
HINT_ICON = "💡"
NEW_GAME_ICON = "🆕"


def split_even(buttons: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    """Rows of at most ``width``, as even as possible (7 cards: 4 + 3)."""
    if not buttons:
        return []
    rows = -(-len(buttons) // width)
    size = -(-len(buttons) // rows)
    return [tuple(buttons[i:i + size]) for i in range(0, len(buttons), size)]


def _game_buttons(snapshot: GameSnapshot, tr: Translator, *, latest: bool, four_colour: bool = False
                  ) -> tuple[tuple[Button, ...], ...]:
    """A button for each free card in its place (:func:`bot.render.tableau.card_place`: ten places in two rows, an
    empty one a blank button, so a card never moves while it is free; green when it fits, blue when hinted), then
    Draw, Undo, Hint
    and New game (blue when it is the move to make: hinted, or Draw when no card fits); a finished game's ending
    buttons (:func:`bot.render.endings.ending_buttons`); none on an abandoned board, or on a game in progress that
    is no longer the player's latest."""
    game = snapshot.game

    game_id, version = snapshot.game_id, snapshot.version

    def move(action: Tap | Draw | Undo) -> Move:
        return Move(game_id, version, action)

    if snapshot.abandoned:
        return ()
    if game.is_over:
        return ending_buttons(snapshot, tr, latest=latest)
    if not latest:
        return ()
    # the ranked daily attempt and a round's game have no Undo: a blank in its place keeps 💡 and 🆕 where a
    # player's thumb knows them
    undo = Button(BLANK_LABEL, Blank(CARD_PLACES), disabled=True) \
        if snapshot.daily is not None or snapshot.round_id is not None else Button(
        UNDO_ICON, move(Undo()), ButtonStyle.SECONDARY, disabled=game.undo_depth == 0)
    hinted = snapshot.hint.action if snapshot.hint is not None else None
    free = game.playable_slots()
    places = [Button(BLANK_LABEL, Blank(place), disabled=True) for place in range(CARD_PLACES)]
    for slot in free:
        style = ButtonStyle.SUCCESS if game.fits(slot) else ButtonStyle.SECONDARY
        if hinted == Tap(slot):
            style = ButtonStyle.PRIMARY
        places[card_place(slot)] = Button(card_label(game.card_at(slot), four_colour=four_colour), move(Tap(slot)),
                                          style,
                                          card=game.card_at(slot))
    any_fits = any(game.fits(s) for s in free)
    draw_style = ButtonStyle.PRIMARY if isinstance(hinted, Draw) or (hinted is None and not any_fits) \
        else ButtonStyle.SECONDARY
    if isinstance(hinted, Undo) and snapshot.daily is None:
        undo = dataclasses.replace(undo, style=ButtonStyle.PRIMARY)
    # TRANSLATORS: the stock button (the tableau shows how many cards are left beside the stock). Short: it shares
    # a phone's row with the icons of Undo, Hint and New game, at most 7 columns (a CJK character counts two)
    draw = Button(tr.pgettext("button", "Draw"), move(Draw()), draw_style, disabled=game.stock_left == 0)
    hint = Button(HINT_ICON, AskHint(game_id, version), ButtonStyle.SECONDARY)
    new_game = Button(NEW_GAME_ICON, NewGame(game_id, version), ButtonStyle.SECONDARY)
    grid = tuple(tuple(places[i:i + CARDS_PER_ROW]) for i in range(0, CARD_PLACES, CARDS_PER_ROW))
    return (*grid, (draw, undo, hint, new_game))


def render_game(snapshot: GameSnapshot, locale: str, settings: Settings, *, owner_label: bool = False,
                latest: bool = True, fixed_header: bool = False) -> View:
    """The whole game message: header, tableau, status and buttons. ``owner_label`` (in groups and channels) puts
    the player's name on the board; ``latest`` False renders a board that is no longer the player's latest game
    (abandoned: no buttons; finished: Share and Review only). ``fixed_header`` (Discord, whose buttons come under
    the text): whose game, which deal, and score and moves a line each, which keep their lines through the game, the
    counters apart (``View.tally``) to be shown under the buttons with the status: so nothing moves the buttons."""
    tr = translator(locale)
    game = snapshot.game
    lines = _status_lines(snapshot, settings, tr, latest=latest)
    if snapshot.owner_notice is not None:
        lines.append(notice_line(snapshot.owner_notice, tr))
    outcome = snapshot.outcome
    notice = None
    if outcome is not None and outcome.reason is not None and settings.explain_refusals:
        notice = _refusal(outcome, game, tr, waste_changed=snapshot.waste_changed)
    hinted = snapshot.hint.action if snapshot.hint is not None and not game.is_over else None
    table = seen_table(game, hinted, four_colour=settings.four_colour) if settings.board is BoardStyle.PICTURE \
        else None
    return View(
        header=_header(snapshot, tr, owner_label=owner_label, fixed=fixed_header),
        tableau=tableau_text(game, hinted_slot=hinted.slot if isinstance(hinted, Tap) else None,
                             hinted_draw=isinstance(hinted, Draw)),
        narrow_tableau=narrow_tableau_text(game),
        status="\n".join(lines) or None,
        buttons=_game_buttons(snapshot, tr, latest=latest, four_colour=table is not None and table.four_colour),
        notice=notice,
        table=table,
        table_alt=table_alt(table, locale) if table is not None else None,
        tally=" · ".join(_counters(snapshot, tr)) or None if fixed_header else None,
    )


def play_ack(snapshot: GameSnapshot, locale: str) -> str:
    """The short private answer to a card played by name, and the toast of a tap while its board catches up: the
    card played (the new waste card), drawn, or taken back by Undo (and a cleared peak, the end of the game), or
    why it was not played (always said: the player named that card); for 💡, the hint's lines (a busy group's board
    shows them only when its turn comes)."""
    tr = translator(locale)
    game = snapshot.game
    outcome = snapshot.outcome
    if outcome is None:
        return " · ".join(_hint_lines(snapshot.hint, game, tr)) if snapshot.hint and not game.is_over else ""
    if outcome.reason is not None:
        return _refusal(outcome, game, tr)
    card = _outcome_card(outcome, game)
    name = card_label(card) if card is not None else "?"
    if isinstance(outcome.action, Draw):
        # TRANSLATORS: the toast of Draw: {card} is the card turned from the stock onto the waste
        parts = [tr.gettext("You drew {card}")]
    elif isinstance(outcome.action, Undo):
        # TRANSLATORS: the toast of Undo: {card} is the card the undo took back (to the peaks or the stock)
        parts = [tr.gettext("Undone: {card} is back in its place")]
    else:
        parts = [tr.gettext("You played {card}")]
    parts[0] = parts[0].format(card=name)
    if outcome.cleared_peak is not None:
        parts.append(tr.gettext("Peak cleared: +100!"))
    if game.status is Status.WON:
        parts.append(tr.gettext("You won! Final score: {score}").format(score=game.score))
    elif game.status is Status.BLOCKED:
        parts.append(blocked_text(tr.locale))
    return " · ".join(parts)
