"""Starting and keeping games: the welcome, the question before a game in progress is abandoned, and the answer
when the player keeps it.

>>> view = render_welcome("en")
>>> [b.label for b in view.all_buttons()]
['Play', 'Daily', 'Rules']
"""

from __future__ import annotations

from typing import assert_never

from bot.app.commands import (
    Begin,
    ChallengeDeal,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    KeepPlaying,
    RandomDeal,
    ReplayDeal,
    Resume,
    RoundDeal,
    ShowRules,
    StartRequest,
)
from bot.app.model import GameSnapshot, clean_name
from bot.i18n import Translator, translator
from bot.render.endings import deal_name
from bot.render.view import Button, ButtonStyle, View, owner_name, unbroken
from core.deal import GameCode, Rules
from core.errors import TriPeaksError


def _request_text(request: StartRequest, tr: Translator) -> str:
    """The question, the message's title: what would start. A title on a phone, whole on one line (at most
    :data:`~bot.render.view.TITLE_COLUMNS`), so the translations are short."""
    match request:
        case RandomDeal(rules=Rules.EASY):
            # TRANSLATORS: a title, the question before a new game of the Easy rules (King and Ace adjacent) abandons
            # the game in progress (the buttons: "Yes, start", "Keep playing"). At most 24 columns
            return tr.gettext("Start an Easy game?")
        case RandomDeal(rules=Rules.CLASSIC):
            # TRANSLATORS: a title, the question before a new game of the Classic rules abandons the game in
            # progress. At most 24 columns
            return tr.gettext("Start a Classic game?")
        case ChallengeDeal():
            # TRANSLATORS: a title, the question before a friend's challenge (their deal, named by no code) starts
            # and abandons the game in progress. At most 24 columns
            return tr.gettext("Take up the challenge?")
        case DealByCode(code):
            try:
                shown = str(GameCode.parse(code))
            except TriPeaksError:  # a code the service will refuse: shown as typed
                shown = code
            # TRANSLATORS: a title, the question before the deal of a game code ({code}, 13 columns such as
            # TP1-E-AAAAAAB) starts and abandons the game in progress. At most 24 columns with the code
            return tr.gettext("Start {code}?").format(code=unbroken(shown))
        case DailyDeal() | ReplayDeal():  # only today's can be started; a replay by game is of a hidden code: today's
            # TRANSLATORS: a title, the question before today's daily deal starts and abandons the game in progress.
            # At most 24 columns
            return tr.gettext("Start the daily deal?")
        case RandomDeal():
            # TRANSLATORS: a title, the question before a new game abandons the game in progress. At most 24 columns
            return tr.gettext("Start a new game?")
        case RoundDeal():
            # TRANSLATORS: a title, the question before joining a live round abandons the game in progress. At most
            # 24 columns
            return tr.gettext("Join the round?")
        case unhandled:
            assert_never(unhandled)


def render_confirm_start(current: GameSnapshot, request: StartRequest, locale: str, *, elsewhere: bool) -> View:
    """Before a start would abandon ``current`` (a game in progress with moves): what would be lost, and Yes (red:
    it abandons the game; :class:`~bot.app.commands.ConfirmStart`) or No (keep playing)."""
    tr = translator(locale)
    game = current.game
    code = unbroken(deal_name(current, tr))
    # TRANSLATORS: before starting another game; {code} is the game in progress, {score} its score, {n} its moves
    # so far (1 too)
    lines = [tr.ngettext("Your game in progress ({code}, score {score}, {n} move) will be abandoned and count as "
                         "played and not won.",
                         "Your game in progress ({code}, score {score}, {n} moves) will be abandoned and count as "
                         "played and not won.", game.moves).format(code=code, score=game.score, n=game.moves)]
    if elsewhere:
        lines.append(tr.gettext("That game is in another chat."))
    # TRANSLATORS: the answer to "Start a new game?": yes, abandon the game in progress and start
    yes = Button(tr.pgettext("button", "Yes, start"), ConfirmStart(current.game_id, request),
                 ButtonStyle.DANGER)
    # TRANSLATORS: the answer to "Start a new game?": no, go on with the game in progress
    no = Button(tr.pgettext("button", "Keep playing"), KeepPlaying(current.game_id), ButtonStyle.PRIMARY)
    return View(header=_request_text(request, tr), status="\n".join(lines), buttons=((yes, no),))


def render_kept(locale: str) -> View:
    """The answer to No: nothing was abandoned, and a button back to the game's board."""
    tr = translator(locale)
    # TRANSLATORS: under "Your game goes on": shows the game in progress again as a new message (short)
    back = Button(tr.pgettext("button", "Back to the game"), Resume(), ButtonStyle.PRIMARY)
    # TRANSLATORS: after the player chose Keep playing: the game in progress was not abandoned
    return View(header=tr.gettext("Your game goes on"), buttons=((back,),))


def render_welcome(locale: str) -> View:
    """The first message a player gets (Telegram's /start): what the game is in a few lines, and Play, Daily and
    Rules."""
    tr = translator(locale)
    lines = [
        tr.gettext("Clear the three peaks: play a free card one rank above or below the waste card (on an 8: a 7 "
                   "or a 9), whatever its suit."),
        tr.gettext("No card fits? Draw one from the stock. Each peak you clear earns 100 points."),
        tr.gettext("Play a new deal, or the daily deal: the same cards for everyone today."),
    ]
    return View(
        header=tr.gettext("Welcome to TriPeaks solitaire!"),
        status="\n".join(lines),
        # TRANSLATORS: the welcome's buttons: Play (a new random deal), Daily (today's daily deal), Rules
        buttons=((Button(tr.pgettext("button", "Play"), Begin(RandomDeal()), ButtonStyle.PRIMARY),
                  # TRANSLATORS: the welcome's button that starts today's daily deal (short: three buttons share a row)
                  Button(tr.pgettext("button", "Daily"), Begin(DailyDeal())),
                  # TRANSLATORS: the welcome's button that shows how to play
                  Button(tr.pgettext("button", "Rules"), ShowRules(play=True))),),
    )


def daily_sent_privately(locale: str) -> str:
    """The toast of Play under a daily post in a group: the ranked attempt went to the player's private chat."""
    # TRANSLATORS: the toast of Play under the daily post in a group: the ranked attempt is not played in the group
    # (the others would see its cards before their own attempt), but in the player's private chat with the bot
    return translator(locale).gettext("Your daily attempt is in your private chat with the bot")


def render_daily_in_private(locale: str, name: str, link: str) -> View:
    """The group's answer to the daily deal asked for there: the ranked attempt is played in the player's private
    chat with the bot, which the button (``link``) opens (and starts it there, when the bot may not write first).
    ``name`` is the player's as the platform sends it: cleaned as a stored name is (:func:`bot.app.model.clean_name`).

    >>> render_daily_in_private("en", "Ali\u200bce\u202e", "https://t.me/b?start=daily").header
    'Alice, your daily attempt is played in your private chat with the bot, away from the group'
    """
    tr = translator(locale)
    # TRANSLATORS: the answer in a group to /daily: {name} is the player's name; the attempt is played privately so
    # that the others do not see today's cards before their own attempt
    text = tr.gettext("{name}, your daily attempt is played in your private chat with the bot, away from the "
                      "group").format(name=owner_name(clean_name(name)))
    # TRANSLATORS: a link button under that answer: it opens the private chat with the bot at the attempt
    button = Button(tr.pgettext("button", "Play in private"), None, ButtonStyle.PRIMARY, url=link)
    return View(header=text, buttons=((button,),))
