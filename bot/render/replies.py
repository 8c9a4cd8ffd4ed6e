"""Every answer but the game message and the console's own: rules, statistics, the daily post, leaderboard and
notices, settings, errors."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import assert_never

from babel.dates import format_date
from babel.numbers import format_percent

from bot.app.commands import (
    Begin,
    BoardChoice,
    DefaultRules,
    ExplainRefusals,
    FourColour,
    Language,
    RandomDeal,
    SettingChange,
    WinnableOnly,
)
from bot.app.daily import DailyNotice, DailyResult, Recap, Standing
from bot.app.errors import (
    AmbiguousCard,
    BadGameCode,
    BadOwnerCommand,
    BadPayload,
    Blocked,
    Busy,
    CardNotInPlay,
    DailyCodeLocked,
    DailyOver,
    GameNotFound,
    GameNotOver,
    NoActiveGame,
    NoSuchRound,
    NotACard,
    NotAPlayer,
    NotOwner,
    NotYourGame,
    NotYourMessage,
    NoUndoInDaily,
    NoUndoInRound,
    NoWinnableDeal,
    OneAtATime,
    RoundMinutes,
    RoundMinutesCut,
    RoundOver,
    RoundsInGroupsOnly,
    TappedTwice,
    TryAgainIn,
)
from bot.app.model import BoardStyle, GameSnapshot, Settings, Stats
from bot.app.outcomes import AlreadyStarted, DayOver, HintOvertaken, OldBoard, OutOfDate, Unforeseen, mishap
from bot.i18n import LANGUAGE_NAMES, N_, SUPPORTED_LOCALES, Translator, translator
from bot.render.console import card_key
from bot.render.endings import deal_name
from bot.render.game import RULE_NAMES, daily_title, pack_line, split_even
from bot.render.rounds import round_error_text
from bot.render.standing import play_button, recap_lines, render_standing
from bot.render.tableau import card_label
from bot.render.view import CHOSEN, Button, ButtonStyle, View, owner_name
from core.deal import Rules
from core.errors import InvalidCardError, InvalidCodeError
from core.game import Draw, Undo

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

def text_pointer(locale: str) -> str:
    """The answer to words in a private chat that are neither a command nor a card (Telegram)."""
    # TRANSLATORS: Telegram, a message to the bot that is no command and no card (such as "hello"); /help stays
    return translator(locale).gettext("To play a card, send its name, such as 7h = 7♥; for everything else, /help")


def render_rules(locale: str, *, play: bool = False) -> View:
    """The rules help, written for this project from RULES.md: its first paragraph is the title; ``play`` (the
    rules opened from the welcome): with a Play button under them, as the welcome's."""
    tr = translator(locale)
    title, *body = (tr.gettext(paragraph) for paragraph in _RULES_HELP)
    buttons = ((Button(tr.pgettext("button", "Play"), Begin(RandomDeal()), ButtonStyle.PRIMARY),),) if play else ()
    return View(header=title, status="\n\n".join(body), buttons=buttons)


def render_stats(stats: Stats, locale: str) -> View:
    """A player's statistics."""
    tr = translator(locale)
    # TRANSLATORS: the title of a player's statistics (a heading on a phone: at most 24 columns)
    title = tr.gettext("Your TriPeaks statistics")
    counting = tr.gettext("A deal you leave untouched is not counted; a game abandoned after a move counts as "
                          "played and not won.")
    if stats.games == 0:
        return View(header=title, status=tr.gettext("No games played yet") + "\n\n" + counting)
    rate = format_percent(stats.win_rate, locale=tr.babel_locale)
    lines = [
        # TRANSLATORS: the player's statistics: how many games they played ({n} is 1 for many new players)
        tr.ngettext("{n} game played", "{n} games played", stats.games).format(n=stats.games),
        # TRANSLATORS: the player's statistics: games won ({n}, often 0 or 1) and their share ({rate}, as 50%)
        tr.ngettext("{n} win ({rate})", "{n} wins ({rate})", stats.wins).format(n=stats.wins, rate=rate),
    ]
    if stats.best_score is not None:
        lines.append(tr.gettext("Best score: {score}").format(score=stats.best_score))
    # TRANSLATORS: the player's statistics: games won in a row up to now ({n} is often 0 or 1)
    lines.append(tr.ngettext("Current streak: {n} win", "Current streak: {n} wins", stats.current_streak)
                 .format(n=stats.current_streak))
    # TRANSLATORS: the player's statistics: the most games won in a row ({n} is often 0 or 1)
    lines.append(tr.ngettext("Longest streak: {n} win", "Longest streak: {n} wins", stats.longest_streak)
                 .format(n=stats.longest_streak))
    if stats.rounds_played:
        # TRANSLATORS: the player's statistics: live rounds of their groups they joined that have ended ({played},
        # often 1 to 10) and those they ranked first in ({won}): a label and counts, which fits every number
        lines.append(tr.gettext("Rounds played: {played} · won: {won}").format(played=stats.rounds_played,
                                                                              won=stats.rounds_won))
    return View(header=title, status="\n".join(lines) + "\n\n" + counting)


def render_daily(day: dt.date, locale: str, recap: Recap | None = None) -> View:
    """The post announcing a daily deal, with its Play button: the day, never the code (which would deal every card
    to whoever reads it while the day runs); with ``recap``, the day before's deal, by its code, and how it went."""
    tr = translator(locale)
    date = format_date(day, format="long", locale=tr.babel_locale)
    status = tr.gettext("Everyone gets the same cards today. Who scores best?")
    return View(
        header=pack_line([daily_title(tr), date]),
        status="\n\n".join([status, "\n".join(recap_lines(recap, tr))]) if recap is not None else status,
        buttons=((play_button(day, tr),),),
    )


def _duration(seconds: float) -> str:
    """``m:ss``, or ``h:mm:ss`` from an hour on."""
    hours, rest = divmod(max(0, int(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02}:{secs:02}" if hours else f"{minutes}:{secs:02}"


#: The leaderboard's marks: not won, still being played, hints used, undos used.
MARK_NOT_WON = "✗"
MARK_OPEN = "⏳"
MARK_HINTS = "💡"
MARK_UNDOS = "↶"


#: The widest a player's name is shown on the leaderboard, in display columns (a longer one is cut with "…"), and
#: what sets an entry's second line under its name.
LEADERBOARD_NAME_COLUMNS = 14
LEADERBOARD_INDENT = "  "


def render_leaderboard(day: dt.date, results: Sequence[DailyResult], locale: str, limit: int = 20,
                       standing: Standing | None = None) -> View:
    """A server's or group's daily leaderboard, best first, an entry two lines that fit a phone: the place, the name
    and the marks (a game not won or still being played, the hints and undos used), then score, moves and time
    (indented); a legend explains the marks used; Play under it. With ``standing`` (outside a server or group): the
    player's own place only (:func:`bot.render.standing.render_standing`)."""
    if standing is not None:
        return render_standing(day, standing, locale)
    tr = translator(locale)
    date = format_date(day, format="medium", locale=tr.babel_locale)
    # TRANSLATORS: a title: the leaderboard of the day's daily deal; its date follows. At most 24 columns
    title = pack_line([tr.gettext("Daily leaderboard"), date])
    play = ((play_button(day, tr),),)
    if not results:
        return View(header=title, status=tr.gettext("Nobody here has finished today's deal yet"), buttons=play)
    lines = []
    used: set[str] = set()
    for place, result in enumerate(results[:limit], start=1):
        marks = [MARK_OPEN] if not result.finished else [MARK_NOT_WON] if not result.won else []  # abandoned: lost
        marks += [f"{mark}{n}" for mark, n in ((MARK_HINTS, result.hints), (MARK_UNDOS, result.undos)) if n]
        used.update(mark[0] for mark in marks)
        lines.append(" ".join([f"{place}. {owner_name(result.name or '?', LEADERBOARD_NAME_COLUMNS)}", *marks]))
        # TRANSLATORS: a leaderboard entry's line under the name, {time} m:ss or h:mm:ss: 34 columns at most
        lines.append(LEADERBOARD_INDENT + tr.ngettext(
            "score {score} · {moves} move · {time}", "score {score} · {moves} moves · {time}", result.moves,
        ).format(score=result.score, moves=result.moves, time=_duration(result.seconds)))
    legend = [text for mark, text in (
        # TRANSLATORS: the leaderboard's legend: the mark of a game not won
        (MARK_NOT_WON, tr.gettext("✗ not won")),
        # TRANSLATORS: the leaderboard's legend: the mark of an attempt still being played
        (MARK_OPEN, tr.gettext("⏳ still playing")),
        # TRANSLATORS: the leaderboard's legend: 💡2 means 2 hints were asked for
        (MARK_HINTS, tr.gettext("💡 hints")),
        # TRANSLATORS: the leaderboard's legend: ↶3 means 3 moves were undone
        (MARK_UNDOS, tr.gettext("↶ undos")),
    ) if mark in used]
    if legend:
        lines.append(pack_line(legend))
    # TRANSLATORS: the leaderboard's footnote: how it ranks (the game a player first started is their attempt)
    lines.append(tr.gettext("Only each player's first game of the deal counts: a win first, then score, fewer "
                            "hints, fewer undos, shorter time."))
    return View(header=title, status="\n".join(lines), buttons=play)


_DAILY_NOTICES = {
    # TRANSLATORS: {time} is the daily post time in UTC, such as 09:00
    DailyNotice.SUBSCRIBED: N_("Subscribed: the daily deal will be posted here every day at {time} UTC"),
    DailyNotice.ALREADY_SUBSCRIBED: N_("The daily deal is already posted here every day at {time} UTC"),
    DailyNotice.UNSUBSCRIBED: N_("Unsubscribed: the daily deal will no longer be posted here"),
    DailyNotice.NOT_SUBSCRIBED: N_("The daily deal is not posted here"),
    # TRANSLATORS: Telegram: /subscribe or /unsubscribe sent by a member who is not an administrator of the group
    DailyNotice.NEEDS_GROUP_ADMIN: N_("Only an administrator of this group can change the daily posts"),
    # TRANSLATORS: Discord: "Manage Server" is the name of the permission in Discord's own language
    DailyNotice.NEEDS_MANAGE_SERVER: N_("Only a member with the Manage Server permission can change the daily "
                                        "posts"),
    # TRANSLATORS: Telegram: /subscribe or /unsubscribe sent in a private chat with the bot
    DailyNotice.NEEDS_GROUP: N_("Daily posts are for groups, not private chats"),
    # TRANSLATORS: Discord: /tripeaks subscribe or unsubscribe sent in a direct message to the bot
    DailyNotice.NEEDS_SERVER: N_("Daily posts are for servers, not direct messages"),
    # TRANSLATORS: Discord: /tripeaks subscribe in a server where the app is only installed to the player's own
    # account (a "user app"), so the bot is not a member of the server and cannot post there
    DailyNotice.NEEDS_SERVER_INSTALL: N_("The daily deal can only be posted in a server the bot has been added to: "
                                         "ask a server admin to add it"),
}


def daily_notice(notice: DailyNotice, locale: str, post_time: dt.time | None = None) -> str:
    """The reply to ``subscribe``, ``unsubscribe`` or ``leaderboard`` when it is not a leaderboard."""
    text = translator(locale).gettext(_DAILY_NOTICES[notice])
    return text.format(time=post_time.strftime("%H:%M")) if post_time is not None else text


#: Language buttons a row: two, so that every row fits a phone also with the ✓ before the widest name, and the rows
#: stay put as the ✓ moves (three would fit only some rows, and a row split where the ✓ is).
SETTINGS_PER_ROW = 2
#: A language's name on its button where the full one is too wide for two a row.
_SHORT_NAMES = {"pt_BR": "Português (BR)"}


def render_settings(settings: Settings, locale: str, *, pictures: bool = True) -> View:
    """The settings message: buttons only, each value said once, on its button (a switch says its state, the
    chosen one of a choice is green and ticked), so the message stays short on a phone. ``pictures`` False (the
    console, always text) leaves out the board's settings."""
    tr = translator(locale)

    def choice(label: str, change: SettingChange, chosen: bool) -> Button:
        if chosen:
            return Button(CHOSEN + label, change, ButtonStyle.SUCCESS)
        return Button(label, change, ButtonStyle.SECONDARY)

    explain = settings.explain_refusals
    winnable = settings.deals_winnable_only(settings.default_rules)
    picture = settings.board is BoardStyle.PICTURE
    four = settings.four_colour
    explain_button = choice(
        # TRANSLATORS: settings button: the setting "Explain refused moves", on or off (shows the state it is in)
        tr.pgettext("button", "Explanations: on") if explain
        # TRANSLATORS: settings button: the setting "Explain refused moves", off (shows the state it is in)
        else tr.pgettext("button", "Explanations: off"),
        ExplainRefusals(not explain), explain)
    winnable_button = choice(
        # TRANSLATORS: settings button: the setting "Only winnable deals", on or off (shows the state it is in)
        tr.pgettext("button", "Only winnable: on") if winnable
        # TRANSLATORS: settings button: the setting "Only winnable deals", off (shows the state it is in)
        else tr.pgettext("button", "Only winnable: off"),
        WinnableOnly(not winnable), winnable)
    # TRANSLATORS: the board shown as a picture of the cards / as monospace text
    board_row = (choice(tr.pgettext("button", "Picture"), BoardChoice(BoardStyle.PICTURE), picture),
                 # TRANSLATORS: settings button: the board shown as monospace text
                 choice(tr.pgettext("button", "Text"), BoardChoice(BoardStyle.TEXT), not picture))
    four_button = choice(
        # TRANSLATORS: settings button: the setting "Four-colour deck", on or off (shows the state it is in)
        tr.pgettext("button", "Four colours: on") if four
        # TRANSLATORS: settings button: the setting "Four-colour deck", off (shows the state it is in)
        else tr.pgettext("button", "Four colours: off"),
        FourColour(not four), four)
    rules_row = tuple(choice(tr.gettext(RULE_NAMES[rules]), DefaultRules(rules),
                             settings.default_rules is rules) for rules in Rules)
    chosen_language = settings.language if settings.language in SUPPORTED_LOCALES else None
    # TRANSLATORS: settings button: the language chosen by the platform (the player's app language)
    automatic = choice(tr.pgettext("button", "Automatic"), Language(None), chosen_language is None)
    languages = tuple(choice(_SHORT_NAMES.get(code, LANGUAGE_NAMES[code]), Language(code), chosen_language == code)
                      for code in SUPPORTED_LOCALES)
    return View(
        # TRANSLATORS: the title of the settings message
        header=tr.gettext("Settings"),
        buttons=((explain_button,), rules_row, (winnable_button,),
                 *((board_row, (four_button,)) if pictures else ()), (automatic,),
                 *split_even(languages, SETTINGS_PER_ROW)),
    )


def out_of_date_text(stale: OutOfDate, locale: str) -> str:
    """Why a tap on a board behind the game did nothing, which the board may not show yet (a busy group's board waits
    its turn to be edited)."""
    tr = translator(locale)
    if isinstance(stale, DayOver) and stale.current.daily is not None:
        return error_text(DailyOver(stale.current.daily), locale)
    if isinstance(stale, HintOvertaken):
        # TRANSLATORS: the toast of 💡 (Hint) when the player made a move before the hint came: the hint was about
        # the position before that move, so none is given (and none counted); 💡 is the Hint button (an icon: keep
        # it as it is)
        return tr.gettext("You moved before the hint came: tap 💡 again")
    if isinstance(stale.repeat, Draw):
        # TRANSLATORS: the toast of Draw tapped twice at once: the first tap drew a card, the second does nothing;
        # the board on screen has not shown the draw yet
        return tr.gettext("Drawn already: the board is catching up")
    if isinstance(stale.repeat, Undo):
        # TRANSLATORS: the toast of Undo tapped twice at once: the first tap took a move back, the second does
        # nothing; the board on screen has not shown it yet
        return tr.gettext("Undone already: the board is catching up")
    # TRANSLATORS: a tap on a board that showed the game as it was some moves ago (the game has ended since, say):
    # nothing was done, and the board is being brought up to date
    return tr.gettext("Nothing was done: that board was behind the game")


def error_text(error: Exception | OutOfDate | OldBoard | AlreadyStarted, locale: str,
               new_command: str | None = "/tripeaks new") -> str:
    """The reply to an error the service raised, or to a tap that did nothing because the game moved on: each member
    of the family (:data:`~bot.app.outcomes.Mishap`) told once. ``new_command`` is how the platform starts a game;
    None: the table's 🆕 button."""
    tr = translator(locale)
    match mishap(error):
        case Blocked():
            # TRANSLATORS: the only answer to an account the bot's owner blocked, whatever it sends
            return tr.gettext("This bot is not available to you.")
        case NotOwner():
            # TRANSLATORS: an owner command (/owner) sent by someone who is not the bot's owner
            return tr.gettext("This command is not available to you.")
        case BadOwnerCommand(usage=usage):
            # TRANSLATORS: to the bot's owner, a mistyped /owner command; {usage} is how it is written (not translated)
            return tr.gettext("Write it as: /owner {usage}").format(usage=usage)
        case NotAPlayer():
            # TRANSLATORS: Telegram: a command sent as the group (an anonymous administrator) or as a channel
            return tr.gettext("Games are played by people, not by a group or a channel: send it from your own account "
                              "to play")
        case NotYourMessage():
            # TRANSLATORS: a tap on a message that answers another member of a group (their settings)
            return tr.gettext("Only the player this message answers can use its buttons")
        case NotYourGame() | GameNotFound():
            if new_command is None:
                # TRANSLATORS: the board in the browser: a tap naming a game that is not the player's; 🆕 is the New
                # game button (an icon: keep it as it is)
                return tr.gettext("This is not your game; tap 🆕 to start your own")
            # TRANSLATORS: a tap or a link naming a game that is not the player's (or no game): names nobody
            return tr.gettext("This is not your game; start your own with {command}").format(command=new_command)
        case (NoUndoInRound() | RoundsInGroupsOnly() | RoundMinutes() | RoundMinutesCut() | RoundOver()
              | NoSuchRound() as about_a_round):
            return round_error_text(about_a_round, tr)
        case OutOfDate() as stale:
            return out_of_date_text(stale, locale)
        case AlreadyStarted():
            # TRANSLATORS: Yes (start) or Replay tapped a second time: the first tap started the game, whose board
            # comes (or came) as a message of its own
            return tr.gettext("Started already: the first tap started the game")
        case TappedTwice(button=TappedTwice.SHARED):
            # TRANSLATORS: Share tapped a second time within a minute: the first tap posted the result
            return tr.gettext("Shared already: the first tap posted it")
        case TappedTwice():
            # TRANSLATORS: Review tapped a second time while the first tap's review is shown (or on its way)
            return tr.gettext("Your review is shown already: the first tap asked for it")
        case NoActiveGame():
            if new_command is None:
                # TRANSLATORS: the board in the browser; 🆕 is the New game button (an icon: keep it as it is)
                return tr.gettext("You have no game in progress; tap 🆕 to start one")
            return tr.gettext("You have no game in progress; start one with {command}").format(command=new_command)
        case OldBoard(current):
            return _old_board_text(current, new_command, tr)
        case DailyCodeLocked(day=day, shared=True):
            date = format_date(day, format="medium", locale=tr.babel_locale)
            # TRANSLATORS: Play this deal tapped under someone's shared daily result while the player's own attempt at
            # that daily deal is not over yet (no code was shown to them)
            return tr.gettext("This is the daily deal of {date}: finish your own attempt first, then play it from "
                              "here").format(date=date)
        case DailyCodeLocked(day=day):
            date = format_date(day, format="medium", locale=tr.babel_locale)
            # TRANSLATORS: a daily deal's code typed as an ordinary game before the player's daily attempt ended
            return tr.gettext("That code is the daily deal of {date}: play it as the daily first, and practise it "
                              "once your attempt is over").format(date=date)
        case DailyOver(day=day):
            date = format_date(day, format="medium", locale=tr.babel_locale)
            # TRANSLATORS: Play under an old day's daily post, or a move in an attempt whose day has ended: only
            # today's daily deal can be played
            return tr.gettext("The daily deal of {date} is over: only today's can be played").format(date=date)
        case NoUndoInDaily():
            # TRANSLATORS: an Undo sent for a daily attempt (its board has no Undo button)
            return tr.gettext("There is no undo in the daily deal")
        case GameNotOver():
            # TRANSLATORS: Review, Share or Replay of a game that is still being played
            return tr.gettext("That game is not over yet")
        case Busy():
            return tr.gettext("Too many moves at once; nothing was done, please tap again")
        case AmbiguousCard(cards=cards):
            # TRANSLATORS: a rank typed alone (/play K) while several free cards have it; {cards} lists them (K♣,
            # K♥), {example} is how to type the first with its suit (kc)
            return tr.gettext("More than one free card has that rank: {cards}. Add the suit, such as {example}"
                              ).format(cards=", ".join(card_label(card) for card in cards), example=card_key(cards[0]))
        case CardNotInPlay():
            return tr.gettext("That card is not in play yet")
        case InvalidCardError() | NotACard():
            return tr.gettext("That is not a card: write one like 7h = 7♥ or QS = Q♠ (h ♥, d ♦, c ♣, s ♠)")
        case BadGameCode() | InvalidCodeError():
            return tr.gettext("That is not a game code: a code looks like TP1-E-AAAAAAB (E Easy, C Classic)")
        case BadPayload():
            if new_command is None:
                # TRANSLATORS: the board in the browser; 🆕 is the New game button (an icon: keep it as it is)
                return tr.gettext("This button could not be read; tap 🆕 to start a new game")
            return tr.gettext("This button could not be read; start a new game with {command}").format(
                command=new_command)
        case NoWinnableDeal():
            return tr.gettext("No winnable deal was found in time; please try again")
        case OneAtATime():
            # TRANSLATORS: a new hint or review asked for while the player's last one is still being worked out
            return tr.gettext("One at a time, please: your last request is still being worked out")
        case TryAgainIn(seconds=seconds):
            # TRANSLATORS: a player asked for many hints or reviews in a short time; {n} is a number of seconds
            return tr.ngettext("Too many requests in a short time; try again in {n} second",
                               "Too many requests in a short time; try again in {n} seconds", seconds).format(
                n=seconds)
        case Unforeseen(ours):
            if ours:
                return tr.gettext("That did not work; please try again")
            return tr.gettext("Something went wrong on our side; please try again later")
        case unhandled:
            assert_never(unhandled)


def _old_board_text(current: GameSnapshot | None, new_command: str | None, tr: Translator) -> str:
    """A tap on the board of a game that is no longer the player's latest: where their current game is."""
    if (current is None or current.game.is_over) and new_command is None:
        # TRANSLATORS: the board in the browser; 🆕 is the New game button (an icon: keep it as it is)
        return tr.gettext("That game is over; tap 🆕 to start a new one")
    if current is None or current.game.is_over:
        return tr.gettext("That game is over; start a new one with {command}").format(command=new_command)
    day = current.daily or current.practice_of
    if current.code_hidden and day is not None:
        # TRANSLATORS: a tap on the board of an older game while the player's game now is a daily deal (named
        # by its day: its code stays secret while the day runs); {date} such as 2 Dec 2026
        return tr.gettext("That board is from an older game; your current game, the daily deal of {date}, has "
                          "its own board").format(date=format_date(day, format="medium", locale=tr.babel_locale))
    # TRANSLATORS: a tap on the board of an older game; {code} is the player's game now (its code, or what names
    # it in place of the code: "Custom deal", "Alice's challenge")
    return tr.gettext("That board is from an older game; your current game, {code}, has its own board").format(
        code=deal_name(current, tr))
