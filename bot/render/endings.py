"""How a game ends: the lines and buttons of a finished board, the review, and the result a player shares.

- :func:`ending_lines` and :func:`ending_buttons`: what :func:`bot.render.game.render_game` shows under a won or
  blocked board (a win: Share, Replay, Review, New game; blocked: Undo, Share, Review, Replay, New game; a board that is no
  longer the player's latest game: Share and Review only);
- :func:`render_review`: the exact review (score against par, where a winnable deal was lost and the best line from
  just before, the longest chain of removals);
- :func:`share_text` and :func:`render_share`: a spoiler-free result line (no card named) with the way to play the
  same deal.

>>> from core.game import Game
>>> from bot.app.model import GameSnapshot, PlayerKey
>>> snap = GameSnapshot(7, 0, PlayerKey("console", "1"), "ann", Game.from_code("TP1-E-AAAAAAB"))
>>> share_text(snap, "en", replay="new TP1-E-AAAAAAB")
'TriPeaks TP1-E-AAAAAAB: score 500, peaks 0/3 ▵▵▵\\nPlay this deal: new TP1-E-AAAAAAB'
"""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date

from bot.app.commands import BackToBoard, Begin, ChallengeDeal, Move, NewGame, Replay, Review, Share
from bot.app.model import GameSnapshot
from bot.i18n import N_, Translator, translator
from bot.render.tableau import card_label
from bot.render.view import Button, ButtonStyle, View, named_title
from core.game import Game, Status, Tap, Undo
from core.review import Review as GameReview

#: A cleared peak and one still standing, in the share line.
PEAK_CLEARED = "⛰"
PEAK_STANDING = "▵"
#: Steps of the best line the review shows; the rest is counted.
BEST_LINE_STEPS = 10

_LOST_AFTER = (
    # TRANSLATORS: in the review, which knows every card (the hint judged only from the cards the player could see,
    # so the two may seem to disagree: say which cards each judges from); {n} is the number of the move (1, 2, ...:
    # often 1 or another small number), {card} a card such as K♠
    N_("With every card known: after move {n}, {card} from the left peak, the deal could no longer be won"),
    # TRANSLATORS: as above; {n} the number of the move (often a small number), {card} a card such as K♠
    N_("With every card known: after move {n}, {card} from the middle peak, the deal could no longer be won"),
    # TRANSLATORS: as above; {n} the number of the move (often a small number), {card} a card such as K♠
    N_("With every card known: after move {n}, {card} from the right peak, the deal could no longer be won"),
)
#: The daily deal as a title: :func:`bot.render.game.daily_title`'s message (marked for translation there).
DAILY_TITLE = "Daily deal"
# TRANSLATORS: in the review, which knows every card (see above); {n} is the number of the move (often a small
# number, 1 too), {card} the card that was drawn from the stock
_LOST_AFTER_DRAW = N_("With every card known: after move {n}, drawing {card}, the deal could no longer be won")


def par_lines(snapshot: GameSnapshot, tr: Translator) -> list[str]:
    """The deal's par (the best possible score, from the solver's verdict) against the final score."""
    verdict = snapshot.verdict
    if verdict is None:
        return []
    if verdict.winnable is False:
        # TRANSLATORS: under a finished game: the solver proved that no play could have won this deal
        return [tr.gettext("This deal could not be won")]
    if verdict.winnable and verdict.best_score is not None:
        if snapshot.game.status is Status.WON and snapshot.game.score >= verdict.best_score:
            return [tr.gettext("You matched the best possible score!")]
        # TRANSLATORS: par: the best score anyone could make on this deal (the exact solver's)
        return [tr.gettext("Par for this deal: {score}").format(score=verdict.best_score)]
    return []


def challenge_line(snapshot: GameSnapshot, tr: Translator) -> str | None:
    """A finished game started from a challenge against the challenged game: "You beat Alice's 749 by 12"."""
    challenge = snapshot.challenge
    if challenge is None or not snapshot.game.is_over:
        return None
    name = " ".join(challenge.name.split()) or "?"
    if not challenge.finished:
        # TRANSLATORS: at the end of a game started from a friend's challenge; {name} is still playing that deal
        return tr.gettext("{name} is still playing this deal: {score} so far").format(name=name,
                                                                                      score=challenge.score)
    return compared_line(snapshot.game.score, name, challenge.score, tr)


def compared_line(score: int, name: str, theirs: int, tr: Translator) -> str:
    """The reader's final ``score`` against ``name``'s final score ``theirs``: "You beat Alice's 749 by 12"."""
    if score > theirs:
        # TRANSLATORS: at the end of a challenge: your score is {diff} more than {name}'s.
        # {diff} is often 1: no unit word after it that would need a plural ("by 1", not "by 1 points")
        return tr.gettext("You beat {name}'s {score} by {diff}").format(name=name, score=theirs, diff=score - theirs)
    if score < theirs:
        # TRANSLATORS: at the end of a challenge: {name}'s score is {diff} more than yours.
        # {diff} is often 1: no unit word after it that would need a plural ("by 1", not "by 1 points")
        return tr.gettext("{name}'s {score} beats yours by {diff}").format(name=name, score=theirs,
                                                                           diff=theirs - score)
    # TRANSLATORS: at the end of a challenge: the same score as {name}'s
    return tr.gettext("You tied with {name}: {score} each").format(name=name, score=theirs)


def ending_lines(snapshot: GameSnapshot, tr: Translator, *, latest: bool = True) -> list[str]:
    """The lines under a finished board (after "Peak cleared: +100!" when the last move cleared one). A lost board
    that is no longer the player's latest (closed: only Share and Review left) does not invite an undo."""
    game = snapshot.game
    lines = []
    if game.status is Status.WON:
        lines.append("🎉 " + tr.gettext("You won! Final score: {score}").format(score=game.score))
    elif game.status is Status.BLOCKED:
        # TRANSLATORS: the original app's wording: uk «Більше немає можливих ходів», ja「これ以上可能な手がありません」
        lines.append(tr.gettext("No more possible moves"))
        if snapshot.daily is not None:
            # TRANSLATORS: a blocked daily attempt: no undo in the daily, so it is over and counts as not won
            lines.append(tr.gettext("Final score: {score}. Your daily attempt is over: not won.").format(
                score=game.score))
        else:
            lines.append(tr.gettext("Final score: {score}. Undo a move or start a new game.").format(score=game.score)
                         if latest else tr.gettext("Final score: {score}").format(score=game.score))
    else:
        return []
    compared = challenge_line(snapshot, tr)
    return lines + ([compared] if compared is not None else []) + par_lines(snapshot, tr)


def ending_buttons(snapshot: GameSnapshot, tr: Translator, *, latest: bool) -> tuple[tuple[Button, ...], ...]:
    """The buttons of a finished board: a win (and a blocked daily attempt, which is over) Share, Replay, Review and
    New game; a blocked game Undo, Share, Review, Replay and New game (a lost result is shared too); a board that
    is no longer the latest game Share and Review only."""
    game_id = snapshot.game_id
    # TRANSLATORS: the button under a finished game: post its result to show others (no card named)
    share = Button(tr.pgettext("button", "Share"), Share(game_id))
    # TRANSLATORS: the button under a finished game: play the same deal again from the start
    replay = Button(tr.pgettext("button", "Replay"), Replay(game_id))
    # TRANSLATORS: the button under a finished game: see where the game was lost and the best play
    review = Button(tr.pgettext("button", "Review"), Review(game_id))
    # TRANSLATORS: the button: start a new game with a new random deal
    new_game = Button(tr.pgettext("button", "New game"), NewGame(game_id, snapshot.version),
                      ButtonStyle.PRIMARY)
    if not latest:
        return ((share, review),)
    if snapshot.game.status is Status.WON or snapshot.daily is not None:  # the daily attempt: no Undo
        return ((share, replay, review, new_game),)
    # TRANSLATORS: the button: take back the last move (a removal or a draw)
    undo = Button(tr.pgettext("button", "Undo"), Move(game_id, snapshot.version, Undo()),
                  disabled=snapshot.game.undo_depth == 0)
    return ((undo, share, review, replay, new_game),)


# --- sharing ------------------------------------------------------------------------------------------------------


def share_line(day: dt.date | None, game: Game, hinted: bool, locale: str, *, undone: bool = False,
               coded: bool = True) -> str:
    """A result a player can paste anywhere: the score and the peaks cleared, whether hints or undos were used, and
    no card; a game by its code (``coded``; a challenge, which deals its cards by reference, by nothing), a daily
    deal by its day only (its code would give the day's cards away to whoever has not played it yet).

    >>> share_line(dt.date(2026, 11, 29), Game.from_code("TP1-E-AAAAAAB"), False, "en")
    'TriPeaks daily 2026-11-29: score 500, peaks 0/3 ▵▵▵'
    """
    tr = translator(locale)
    peaks = game.peaks_cleared()
    if day is not None:
        # TRANSLATORS: the shareable result of a daily deal; keep "TriPeaks", {date} is YYYY-MM-DD, {peaks} how
        # many of the 3 peaks were cleared (no code: the daily deal is named by its day)
        line = tr.gettext("TriPeaks daily {date}: score {score}, peaks {peaks}/3").format(
            date=day.isoformat(), score=game.score, peaks=peaks)
    elif not coded:
        # TRANSLATORS: the shareable result of a game sent as a challenge (its link deals the cards, so no code is
        # named); keep "TriPeaks", {peaks} is how many of the 3 peaks were cleared
        line = tr.gettext("TriPeaks: score {score}, peaks {peaks}/3").format(score=game.score, peaks=peaks)
    else:
        # TRANSLATORS: the shareable result of a game; keep "TriPeaks", {code} is the deal's code, {peaks} how many
        # of the 3 peaks were cleared
        line = tr.gettext("TriPeaks {code}: score {score}, peaks {peaks}/3").format(
            code=game.code, score=game.score, peaks=peaks)
    line += " " + PEAK_CLEARED * peaks + PEAK_STANDING * (3 - peaks)
    if hinted:
        # TRANSLATORS: added to the shareable result when the player asked for hints
        line += " · " + tr.gettext("with hints")
    if undone:
        # TRANSLATORS: added to the shareable result when the player took moves back (Undo), as "with hints" is
        line += " · " + tr.gettext("with undos")
    return line


def shared_day(snapshot: GameSnapshot) -> dt.date | None:
    """The day a shared result names the game's deal by: a daily attempt's always, another game of a daily deal's
    while its code is hidden; None: the result names the code."""
    return snapshot.daily or (snapshot.practice_of if snapshot.code_hidden else None)


def shared_in_chat(locale: str) -> str:
    """What the table says when a result shared there was posted in the game's channel."""
    # TRANSLATORS: said at the table (the board in the browser) after Share: the result was posted in the Discord
    # channel of the game, where anyone can tap "Play this deal"
    return translator(locale).gettext("Posted in the channel: anyone there can play this deal")


def share_text(snapshot: GameSnapshot, locale: str, *, replay: str | None) -> str:
    """The result to paste in a chat: code (a daily deal's day; nothing for a challenge, which deals the cards by
    reference), score, peaks, par when known, and ``replay`` (a link or a command; None: none, as for a daily deal,
    whose code no command may name) to play the same deal. It names no card."""
    tr = translator(locale)
    line = share_line(shared_day(snapshot), snapshot.game, snapshot.hints_used > 0, locale,
                      undone=snapshot.undos_used > 0, coded=snapshot.challenge_key is None)
    verdict = snapshot.verdict
    if verdict is not None and verdict.winnable and verdict.best_score is not None:
        # TRANSLATORS: added to the shareable result: the deal's best possible score
        line += " · " + tr.gettext("par {score}").format(score=verdict.best_score)
    if replay is None:
        return line
    # TRANSLATORS: {replay} is a link, or the command that starts the same deal
    return line + "\n" + tr.gettext("Play this deal: {replay}").format(replay=replay)


def challenge_of(snapshot: GameSnapshot) -> ChallengeDeal | None:
    """The challenge a shared game makes: its deal, compared with it, by reference (the game and the key the
    application signed it with: :mod:`bot.app.challenges`); None where it has no key (a custom deal, which has no
    code; a game not being shared)."""
    if snapshot.challenge_key is None or not snapshot.game.code:
        return None
    return ChallengeDeal(snapshot.game_id, snapshot.challenge_key)


def render_share(snapshot: GameSnapshot, locale: str, *, replay: str | None, url: str | None = None,
                 challenge: bool = False) -> View:
    """The share message: the result text, and a button that opens the same deal: with ``url`` a link, with
    ``challenge`` a button that starts it as a challenge (:class:`ChallengeDeal`) for whoever taps it."""
    tr = translator(locale)
    buttons: tuple[tuple[Button, ...], ...] = ()
    # TRANSLATORS: a button under a shared result: opens the same deal for whoever reads it
    play = tr.pgettext("button", "Play this deal")
    offered = challenge_of(snapshot)
    if url is not None:
        buttons = ((Button(play, None, ButtonStyle.PRIMARY, url=url),),)
    elif challenge and offered is not None:
        buttons = ((Button(play, Begin(offered), ButtonStyle.PRIMARY),),)
    # TRANSLATORS: the title of a shared result, which the player may forward to friends: {name} is the player (a
    # long name is cut so the title keeps to 24 columns: keep the words around it short)
    header = named_title(tr.gettext("{name}'s result"), snapshot.owner_name) if snapshot.owner_name.strip() \
        else tr.gettext("A TriPeaks result")
    return View(header=header, status=share_text(snapshot, locale, replay=replay),
                buttons=buttons)


# --- the review ---------------------------------------------------------------------------------------------------


def _step(action: object, game: Game, tr: Translator) -> str:
    if isinstance(action, Tap):
        return card_label(game.card_at(action.slot))
    # TRANSLATORS: one step of a line of play in the review: draw a card from the stock
    return tr.pgettext("line", "draw")


def best_line_text(snapshot: GameSnapshot, review: GameReview, tr: Translator) -> str | None:
    """The best line from the position just before the losing move, as card names and "draw", the first
    :data:`BEST_LINE_STEPS` of it."""
    if review.lost_at is None or not review.best_line:
        return None
    played = snapshot.game.actions()
    game = Game(snapshot.game.deal, snapshot.game.rules, snapshot.game.code)
    for done in played[:review.lost_at]:
        game.apply(done)
    steps = []
    for step in review.best_line:
        steps.append(_step(step, game, tr))
        if game.apply(step).reason is not None:
            return None  # not a line of this game: say nothing rather than something wrong
    shown = " ".join(steps[:BEST_LINE_STEPS])
    if len(steps) > BEST_LINE_STEPS:
        shown += " …"
    score = review.best_line_score
    # TRANSLATORS: in the review, after "After move {n}, … the deal could no longer be won": the best line (a
    # sequence of moves, not a game) from the position just before that move; {steps} such as
    # "7♠ 8♦ draw 9♣ …", {score} the final score that line reaches
    return tr.gettext("Best line from just before that move (final score {score}): {steps}").format(
        score=score if score is not None else "?", steps=shown)


def deal_name(snapshot: GameSnapshot, tr: Translator) -> str:
    """What names the game's deal in a sentence: its code; "Custom deal" for a deal given card by card; a daily
    deal by its day while its code is hidden (:attr:`~bot.app.model.GameSnapshot.code_hidden`: the code deals every
    card).

    >>> import datetime as dt
    >>> from core.game import Game
    >>> from bot.app.model import GameSnapshot, PlayerKey
    >>> snap = GameSnapshot(1, 0, PlayerKey("console", "1"), "ann", Game.from_code("TP1-E-AAAAAAB"))
    >>> deal_name(snap, translator("en"))
    'TP1-E-AAAAAAB'
    >>> hidden = GameSnapshot(1, 0, PlayerKey("console", "1"), "ann", Game.from_code("TP1-E-AAAAAAB"),
    ...                       practice_of=dt.date(2026, 12, 2), code_hidden=True)
    >>> deal_name(hidden, translator("en"))
    'daily deal of Dec 2, 2026'
    """
    day = snapshot.daily or snapshot.practice_of
    if snapshot.code_hidden and day is not None:
        date = format_date(day, format="medium", locale=tr.babel_locale)
        # TRANSLATORS: names a daily deal in place of its code, which stays secret while its day runs, in
        # "Your game in progress ({code}, score …)" and "The deal you are playing: {code}": the subject case,
        # lower case where the language allows; {date} such as 2 Dec 2026
        return tr.gettext("daily deal of {date}").format(date=date)
    if snapshot.code_hidden and snapshot.challenge is not None:
        # TRANSLATORS: names a deal played from a friend's challenge in place of its code (kept from the player while
        # the game runs), in "Your game in progress ({code}, score …)" and "The deal you are playing: {code}";
        # {name} is the friend who shared it
        return tr.gettext("{name}'s challenge").format(name=" ".join(snapshot.challenge.name.split()) or "?")
    # TRANSLATORS: in place of a game code: a deal given card by card, which has no code
    return str(snapshot.game.code) if snapshot.game.code else tr.gettext("Custom deal")


def render_review(snapshot: GameSnapshot, review: GameReview | None, locale: str) -> View:
    """The review of a finished game: the score against par, where a winnable deal was lost and the best line from
    just before that, the longest chain of removals. ``review`` None: the solver could not make it."""
    tr = translator(locale)
    day = snapshot.daily or snapshot.practice_of
    if snapshot.code_hidden and day is not None:
        # the day in place of the code, as groups a phone's heading splits between ("Review · Daily deal · Dec 2,
        # 2026"); the button's word is the title's in every language
        header = " · ".join((tr.pgettext("button", "Review"), tr.gettext(DAILY_TITLE),
                             format_date(day, format="medium", locale=tr.babel_locale)))
    else:
        # TRANSLATORS: the review's title; {code} is the deal's code, or "Custom deal"
        header = tr.gettext("Review: {code}").format(code=deal_name(snapshot, tr))
    if review is None:
        return View(header=header, status=tr.gettext("The review took too long to prepare; please try again"))
    lines = []
    if review.best_score is None or not review.winnable_at_start:
        # TRANSLATORS: in the review (which others in a group may read too): the score the game ended with
        lines.append(tr.gettext("Final score: {score}").format(score=review.score))
        lines.append(tr.gettext("This deal could not be won from the start, whatever the play"))
    elif review.won and review.score >= review.best_score:
        lines.append(tr.gettext("Final score: {score}").format(score=review.score))
        # TRANSLATORS: in the review of a won game: its score is the best the deal allowed
        lines.append(tr.gettext("The best possible score!"))
    else:
        # TRANSLATORS: in the review; par is the best score the deal allowed
        lines.append(tr.gettext("Final score: {score} · par {par}").format(score=review.score, par=review.best_score))
    if review.lost_at is not None and review.losing_card is not None:
        card = card_label(review.losing_card)
        # the move as the header counted it, undone moves included ("Moves: 31" and "After move 31")
        n = snapshot.game.move_numbers()[review.lost_at]
        if review.losing_peak is not None:
            lines.append(tr.gettext(_LOST_AFTER[review.losing_peak]).format(n=n, card=card))
        else:
            lines.append(tr.gettext(_LOST_AFTER_DRAW).format(n=n, card=card))
        best = best_line_text(snapshot, review, tr)
        if best is not None:
            lines.append(best)
    elif not review.won and review.winnable_at_start:
        # TRANSLATORS: in the review of a game not won, whose deal could still be won at its end, judged with every
        # card known (the hint judges only from the cards the player could see)
        lines.append(tr.gettext("With every card known: when the game ended, the deal could still be won"))
    compared = challenge_line(snapshot, tr)
    if compared is not None:
        lines.append(compared)
    if review.longest_chain:  # a game of draws only: no zero said
        # TRANSLATORS: in the review: the most cards removed in a row in this game ({n} is often 1 to 10)
        lines.append(tr.ngettext("Longest chain: {n} card in a row", "Longest chain: {n} cards in a row",
                                 review.longest_chain).format(n=review.longest_chain))
    replay = Button(tr.pgettext("button", "Replay"), Replay(snapshot.game_id), ButtonStyle.PRIMARY)
    return View(header=header, status="\n".join(lines), buttons=((replay,),))


def back_to_board(game_id: int, tr: Translator) -> Button:
    """Back under the settings or a review shown in the message of the game ``game_id``'s board: the board again."""
    # TRANSLATORS: under the settings or a review shown in place of a board: shows that board again (short)
    return Button(tr.pgettext("button", "Back to the game"), BackToBoard(game_id), ButtonStyle.PRIMARY)


def review_sent_privately(locale: str) -> str:
    """The toast of Review tapped in a group: the review went to the player's private chat with the bot."""
    tr = translator(locale)
    # TRANSLATORS: the toast of Review tapped in a group: the review is not shown there, only to the player
    return tr.gettext("Your review is in your private chat with the bot")
