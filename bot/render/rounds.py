"""A live round's message: what the round is, the time left, each player's progress and how to join; once ended,
its results: ranked, the winner's score, the deal's code and its par. A random deal's code is in no line while the
round runs (:attr:`~bot.app.rounds.RoundSnapshot.code_hidden`)."""

from __future__ import annotations

from typing import assert_never

from bot.app.commands import Begin, RoundDeal, WatchRound
from bot.app.errors import (
    NoSuchRound,
    NoUndoInRound,
    RoundMinutes,
    RoundMinutesCut,
    RoundOver,
    RoundsInGroupsOnly,
)
from bot.app.model import RoundEntry, RoundSnapshot
from bot.app.round_effects import RoundWatched
from bot.i18n import Translator, translator
from bot.render.game import RULE_NAMES
from bot.render.table_button import open_table_label
from bot.render.tableau import narrow_tableau_text
from bot.render.view import Button, ButtonStyle, View, owner_name
from core.layout import SLOT_COUNT

#: The most players the standings list by name (the rest are counted): a message stays within Telegram's 4,096 characters.
LISTED = 50
#: The marks of an entry that has ended: won, or over without a win.
WON_MARK, OVER_MARK = "✓", "■"
#: The most boards a watched round shows (best first), and the most characters of text its message holds (Discord's
#: Components V2 allow 4,000 a message): the standings list everyone.
BOARDS_SHOWN, WATCH_TEXT_MAX = 10, 3800


def render_round(round: RoundSnapshot, locale: str, *, join: str | None = None, table: str | None = None,
                 watch: str | WatchRound | None = None, command: str = "/tripeaks") -> View:
    """The round's message in ``locale``: while it runs, with a Join button (``join``: the link that deals the
    round to a player; None: a button that joins where it is tapped) and, where set up, one that opens the table
    (``table``) and a Watch button on a row of its own (``watch``: the link that opens the table watching the round,
    or the command that shows it where it is tapped); ``command``: how a player deals a code here (the results say
    how to play the deal again)."""
    tr = translator(locale)
    rules = tr.gettext(RULE_NAMES[round.code.rules])
    # TRANSLATORS: the title of a live round's message in a group: {rules} the rule set (Easy or Classic),
    # {minutes} how long the round lasts. At most 30 columns
    header = tr.gettext("TriPeaks round · {rules} · {minutes} min").format(rules=rules, minutes=round.minutes)
    lines: list[str] = []
    if not round.ended:
        # TRANSLATORS: under a live round's title: how a round is played
        lines.append(tr.gettext("Everyone plays the same deal on their own board, ranked: no undo, hints count."))
        minutes, seconds = divmod(round.seconds_left, 60)
        # TRANSLATORS: in a live round's message: the time left, as 4:05 (minutes and seconds)
        lines.append(tr.gettext("Time left: {time}").format(time=f"{minutes}:{seconds:02d}"))
        if not round.code_hidden:
            lines.append(tr.gettext("The deal you are playing: {code}").format(code=round.code))
    else:
        # TRANSLATORS: in a round's message once it has ended (time up, or everyone finished)
        lines.append(tr.gettext("The round is over"))
    lines.append("")
    if not round.entries:
        # TRANSLATORS: in a live round's message, before anyone joined
        lines.append(tr.gettext("No one has joined yet"))
    lines += [_standing(at, entry, tr) for at, entry in enumerate(round.entries[:LISTED], start=1)]
    if len(round.entries) > LISTED:
        more = len(round.entries) - LISTED
        # TRANSLATORS: under a round's standings: how many more players joined than are listed ({n} is often 1-30)
        lines.append(tr.ngettext("and {n} more player", "and {n} more players", more).format(n=more))
    buttons: tuple[tuple[Button, ...], ...] = ()
    if round.ended:
        lines.append("")
        winner = round.winner
        if winner is not None:
            # TRANSLATORS: a round's results: who ranked first, and their score
            lines.append(tr.gettext("Winner: {name}, score {score}").format(name=owner_name(winner.name),
                                                                            score=winner.score))
        # TRANSLATORS: a round's results: the deal's code, and how to deal it again ({command} such as /tripeaks)
        lines.append(tr.gettext("The deal: {code} (play it again: {command} {code})").format(code=round.code,
                                                                                              command=command))
        if round.par is not None:
            # TRANSLATORS: a round's results: the best score the solver finds for the deal (every card known); the
            # Review button under each player's finished game shows the line that reaches it
            lines.append(tr.gettext("Par: {score} (Review under your game shows how)").format(score=round.par))
    else:
        row = []
        # TRANSLATORS: the button under a live round's message: join the round (short: at most 12 columns)
        row.append(Button(tr.pgettext("button", "Join"), Begin(RoundDeal(round.round_id)) if join is None else None,
                          ButtonStyle.PRIMARY, url=join))
        if table is not None:  # the table in the app, where the player plays their game of the round
            row.append(Button(open_table_label(tr.locale), None, url=table))
        buttons = (tuple(row),) if row else ()
        if watch is not None:  # every player's board live, read only, at the table
            # TRANSLATORS: the button under a live round's message that opens the board in the app watching every
            # player's board live (read only). Short: at most 16 columns
            label = tr.pgettext("button", "👀 Watch")
            buttons += ((Button(label, watch) if isinstance(watch, WatchRound) else Button(label, None, url=watch),),)
    return View(header=header, status="\n".join(lines).strip(), buttons=buttons)


def render_watch(watched: RoundWatched, locale: str) -> View:
    """A live round as a member of its chat watches it, read only, in ``locale``: its message's header and standings
    (the results once it ended), then each player's board as that player sees it (face-down cards as backs, the
    stock as a count), best first, as many as the message holds; a player of it still playing is told why they see
    the standings alone."""
    tr = translator(locale)
    round = watched.round
    shown = render_round(round, locale)
    status = shown.status or ""
    if not watched.tables:
        # TRANSLATORS: watching a live round from its chat (Discord's 👀 Watch) while the watcher's own game of the
        # round goes on: they see the standings but not the others' boards (the same deal) until it ends
        status += "\n\n" + tr.gettext("Your game of this round goes on: the others' boards show once it ends")
    if watched.stopped:
        # TRANSLATORS: at the end of a live round watched from its chat, once Discord no longer lets the bot update
        # it (after about 15 minutes): how to follow the round again
        status += "\n\n" + tr.gettext("No longer updated: tap 👀 Watch under the round to see it live again")
    boards: list[tuple[str, str]] = []
    room = WATCH_TEXT_MAX - len(shown.header) - len(status)
    for entry in round.entries[:BOARDS_SHOWN] if watched.tables else ():
        if entry.game is None:
            continue
        mark = f" {WON_MARK}" if entry.won else f" {OVER_MARK}" if entry.finished else ""
        line = f"{owner_name(entry.name)} · " + tr.gettext("{left} left · {score} pts").format(
            left=entry.cards_left, score=entry.score) + mark
        board = narrow_tableau_text(entry.game)
        room -= len(line) + len(board) + 10  # the code block's fences and the line breaks
        if room < 0:
            break
        boards.append((line, board))
    return View(header=shown.header, status=status, boards=tuple(boards))


def _standing(at: int, entry: RoundEntry, tr: Translator) -> str:
    """One player's line: their place, name, cards cleared, peaks cleared, score, and a mark once they finished."""
    mark = f" {WON_MARK}" if entry.won else f" {OVER_MARK}" if entry.finished else ""
    # TRANSLATORS: a player's line in a round's standings: {at} their place, {cleared} cards cleared of {total}
    # (28), {peaks} peaks cleared of 3, then the score. Short: a phone's line, the name apart
    progress = tr.gettext("{cleared}/{total} cards · {peaks}/3 peaks · {score}").format(
        cleared=entry.cleared, total=SLOT_COUNT, peaks=entry.peaks, score=entry.score)
    return f"{at}. {owner_name(entry.name)}: {progress}{mark}"


def round_error_text(error: NoUndoInRound | RoundsInGroupsOnly | RoundMinutes | RoundMinutesCut | RoundOver
                     | NoSuchRound, tr: Translator) -> str:
    """The reply to an error about a round (:func:`bot.render.replies.error_text`)."""
    match error:
        case NoUndoInRound():
            # TRANSLATORS: an Undo sent for a game in a live round (its board has no Undo button)
            return tr.gettext("There is no undo in a round")
        case RoundsInGroupsOnly():
            # TRANSLATORS: /round in a private chat: a round is played by the members of a group (or a server's
            # channel)
            return tr.gettext("Start a round in a group, for everyone there to play")
        case RoundMinutes(low=low, high=high):
            # TRANSLATORS: /round with a length it cannot have ({low} is 1, {high} is 60)
            return tr.gettext("A round lasts {low} to {high} minutes").format(low=low, high=high)
        case RoundMinutesCut(high=high):
            # TRANSLATORS: Discord: /tripeaks round asked for longer than {high} minutes (10) in a group DM (or a
            # server) where the app is installed to the player's own account: Discord lets the bot update the round's
            # message for 15 minutes only, so the round runs {high} minutes. Told to the host alone
            return tr.gettext("Here a round lasts at most {high} minutes, so this one runs {high}").format(high=high)
        case RoundOver(round=round):  # a join after the end: the results
            view = render_round(round, tr.locale)
            return f"{view.header}\n{view.status}"
        case NoSuchRound():
            # TRANSLATORS: a link to a round that does not exist (damaged)
            return tr.gettext("That round does not exist")
        case unhandled:
            assert_never(unhandled)
