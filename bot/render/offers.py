"""Invitations a player sends to any chat (Telegram's inline mode: ``@<bot>`` in a message): a challenge with their
current or last deal (its result when finished), a new deal proved winnable, and today's daily deal (its date and a
link, nothing that gives its cards away). Each is a title and a line for the list the player picks from, and the
message the chat gets, whose one button is a link that opens the bot with that deal.

The platform says how a link opens the bot with what it starts (Telegram: :func:`bot.app.codec.start_parameter`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from bot.app.commands import ChallengeDeal, DailyDeal, DealByCode
from bot.app.model import Offers
from bot.i18n import translator
from bot.render.endings import challenge_of, deal_name, render_share, share_line, shared_day
from bot.render.game import RULE_NAMES
from bot.render.replies import render_daily
from bot.render.view import Button, ButtonStyle, View


@dataclass(frozen=True)
class Offer:
    """One invitation: ``key`` tells it from the others (ASCII, at most 64 bytes), ``title`` and ``description``
    are what the player picks it by, ``message`` what the chat gets."""

    key: str
    title: str
    description: str
    message: View


def render_offers(offers: Offers, locale: str,
                  link: Callable[[ChallengeDeal | DealByCode | DailyDeal], str]) -> list[Offer]:
    """The invitations of ``offers`` in ``locale``; ``link`` makes the link that opens the bot and starts what it
    is given."""
    tr = translator(locale)
    # TRANSLATORS: the link button under an invitation to play sent to a chat
    play = tr.pgettext("button", "Play this deal")
    found: list[Offer] = []
    latest = offers.latest
    challenge = challenge_of(latest) if latest is not None else None
    if latest is not None and challenge is not None:
        url = link(challenge)
        game = latest.game
        # TRANSLATORS: Telegram inline mode: the title of the invitation to play the deal of your current or last
        # game; whoever plays it sees how they did against you
        title = tr.gettext("Challenge your friends with this deal")
        if game.is_over:
            message = render_share(latest, locale, replay=url, url=url)
            description = share_line(shared_day(latest), game, latest.hints_used > 0, locale,
                                     undone=latest.undos_used > 0, coded=False)
        else:
            name = " ".join(latest.owner_name.split()) or "TriPeaks"
            # TRANSLATORS: Telegram inline mode: under the title, for a game still being played; {code} its deal
            description = tr.gettext("The deal you are playing: {code}").format(code=deal_name(latest, tr))
            message = View(
                # TRANSLATORS: a challenge sent to a chat: {name} is the player who sent it
                header=tr.gettext("{name} challenges you to a TriPeaks deal").format(name=name),
                status=tr.gettext("Play this deal: {replay}").format(replay=url),
                buttons=((Button(play, None, ButtonStyle.PRIMARY, url=url),),))
        found.append(Offer(f"challenge-{latest.game_id}", title, description, message))
    if offers.fresh is not None:
        code = offers.fresh
        url = link(DealByCode(str(code)))
        rules = tr.gettext(RULE_NAMES[code.rules])
        found.append(Offer(
            f"fresh-{code}",
            # TRANSLATORS: Telegram inline mode: the title of an invitation to a new deal checked to be winnable
            tr.gettext("A new winnable deal"),
            # TRANSLATORS: Telegram inline mode: under the title; {rules} is Easy or Classic; the deal was checked
            # to be winnable before it was offered
            tr.gettext("{rules}, checked to be winnable").format(rules=rules),
            View(
                # TRANSLATORS: an invitation sent to a chat: a deal checked to be winnable; {code} its code
                header=tr.gettext("A winnable TriPeaks deal: {code}").format(code=code),
                status=tr.gettext("Play this deal: {replay}").format(replay=url),
                buttons=((Button(play, None, ButtonStyle.PRIMARY, url=url),),))))
    daily = render_daily(offers.day, locale)  # the link names no deal
    url = link(DailyDeal())
    found.append(Offer(
        f"daily-{offers.day.isoformat()}", daily.header, daily.status or "",
        View(header=daily.header, status=daily.status,
             buttons=((Button(tr.pgettext("button", "Play"), None, ButtonStyle.PRIMARY, url=url),),))))
    return found
