"""The daily deal's comparisons outside a leaderboard: a player's own standing among everyone on the deployment
(``/leaderboard`` in a private chat: no other name), and the day before's deal in a daily post (its code, public
once its day is over, and how it went in the community)."""

from __future__ import annotations

import datetime as dt

from babel.dates import format_date
from babel.numbers import format_percent

from bot.app.commands import PlayDaily
from bot.app.daily import Recap, Standing
from bot.i18n import Translator, translator
from bot.render.game import pack_line
from bot.render.view import Button, ButtonStyle, View, owner_name

#: The widest the best player's name is shown in a daily post's recap, in display columns.
RECAP_NAME_COLUMNS = 14


def play_button(day: dt.date, tr: Translator) -> Button:
    """Play under a daily post or a leaderboard: the daily deal of ``day``."""
    # TRANSLATORS: under the daily post and the leaderboard: play this daily deal
    return Button(tr.pgettext("button", "Play"), PlayDaily(day), ButtonStyle.PRIMARY)


def render_standing(day: dt.date, standing: Standing, locale: str) -> View:
    """The player's place among everyone who played ``day``'s deal here (the bot's players on every platform) and
    the share of them they are ahead of; naming nobody. Not played yet: how many have, and Play."""
    tr = translator(locale)
    date = format_date(day, format="medium", locale=tr.babel_locale)
    title = pack_line([tr.gettext("Daily leaderboard"), date])
    if standing.place is None:
        if standing.players == 0:
            # TRANSLATORS: /leaderboard in a private chat, when nobody has played today's daily deal yet
            status = tr.gettext("Nobody has played today's daily deal yet")
        else:
            # TRANSLATORS: /leaderboard in a private chat by a player who has not played today's daily deal: how
            # many players of this bot have ({n} is often 1 or small)
            status = tr.ngettext("{n} player has played today's daily deal", "{n} players have played today's daily "
                                 "deal", standing.players).format(n=standing.players)
        return View(header=title, status=status, buttons=((play_button(day, tr),),))
    # TRANSLATORS: /leaderboard in a private chat: the player's place among everyone who played today's daily deal
    # on this bot ({place} 1 the best, {n} how many played, often 1 or small)
    lines = [tr.ngettext("Your place today: {place} of {n} player", "Your place today: {place} of {n} players",
                         standing.players).format(place=standing.place, n=standing.players)]
    if standing.players > 1:
        # TRANSLATORS: under "Your place today: …": the share of the other players ranked below, such as 70%
        lines.append(tr.gettext("You are ahead of {share} of them").format(
            share=format_percent(standing.ahead_of, locale=tr.babel_locale)))
    return View(header=title, status="\n".join(lines))


def recap_lines(recap: Recap, tr: Translator) -> list[str]:
    """The day before's deal in a daily post: its code (anyone can replay it now) and par, then how many played it in
    the community and the best result, with whose it is."""
    # TRANSLATORS: in today's daily post: the daily deal of the day before, by its code (public now that its day is
    # over, so anyone can replay it)
    first = tr.gettext("Yesterday's deal: {code}").format(code=recap.code)
    if recap.par is not None:
        first += " · " + tr.gettext("par {score}").format(score=recap.par)
    best = recap.best
    if best is None:
        # TRANSLATORS: in today's daily post: nobody in this group or server played yesterday's daily deal
        return [first, tr.gettext("Nobody here played it")]
    # TRANSLATORS: in today's daily post: how many here played yesterday's daily deal ({n}, often 1 or small) and
    # the best score, with the player who made it
    return [first, tr.ngettext("{n} player here, best: {score} ({name})", "{n} players here, best: {score} ({name})",
                               recap.players).format(n=recap.players, score=best.score,
                                                     name=owner_name(best.name or "?", RECAP_NAME_COLUMNS))]
