"""What the deployment's owner is told of their commands (:mod:`bot.app.owner`), and the notice players are shown."""

from __future__ import annotations

from typing import assert_never

from babel.numbers import format_decimal

from bot.app.owner import BlockChanged, NoticeSet, OwnerFigures, OwnerResult
from bot.i18n import Translator, translator


def notice_line(notice: str, tr: Translator) -> str:
    """The owner's maintenance notice as players see it, under a board."""
    # TRANSLATORS: a line under every board while the bot's owner (who runs it) has a maintenance notice set;
    # {notice} is the owner's own words, in their language
    return tr.gettext("📢 Notice from the bot's owner: {notice}").format(notice=notice)


def owner_text(result: OwnerResult, locale: str) -> str:
    """What an owner command did, in ``locale``: a few short lines."""
    tr = translator(locale)
    match result:
        case OwnerFigures():
            return _figures(result, tr, locale)
        case NoticeSet(None):
            # TRANSLATORS: to the bot's owner: /owner notice off cleared the maintenance notice
            return tr.gettext("The notice is off: players no longer see it.")
        case NoticeSet(text):
            # TRANSLATORS: to the bot's owner: the maintenance notice set, as players see it on the next line
            return tr.gettext("Players see this under their boards from now on:") + "\n" + notice_line(text or "", tr)
        case BlockChanged(account, on, changed):
            name = f"{account.platform}:{account.user_id}"
            if on and changed:
                # TRANSLATORS: to the bot's owner: /owner block; {account} is like telegram:123
                return tr.gettext("{account} is blocked: its commands are refused.").format(account=name)
            if on:
                # TRANSLATORS: to the bot's owner: /owner block of an account blocked before
                return tr.gettext("{account} was blocked already.").format(account=name)
            if changed:
                # TRANSLATORS: to the bot's owner: /owner unblock; {account} is like telegram:123
                return tr.gettext("{account} is unblocked.").format(account=name)
            # TRANSLATORS: to the bot's owner: /owner unblock of an account that was not blocked
            return tr.gettext("{account} was not blocked.").format(account=name)
        case unhandled:
            assert_never(unhandled)


def _figures(figures: OwnerFigures, tr: Translator, locale: str) -> str:
    def n(value: int) -> str:
        return format_decimal(value, locale=locale)

    lines = [
        # TRANSLATORS: /owner stats, its title: the whole bot's figures, for its owner
        tr.gettext("The bot in figures"),
        # TRANSLATORS: /owner stats: everyone who ever used the bot
        tr.gettext("Players: {count}").format(count=n(figures.players)),
        # TRANSLATORS: /owner stats: games started today (UTC), and ever
        tr.gettext("Games today: {today}, in all: {total}").format(today=n(figures.games_today),
                                                                   total=n(figures.games_total)),
        # TRANSLATORS: /owner stats: games won, ever
        tr.gettext("Games won: {count}").format(count=n(figures.wins)),
        # TRANSLATORS: /owner stats: players who played today's daily deal
        tr.gettext("Daily deals played today: {count}").format(count=n(figures.dailies_today)),
        # TRANSLATORS: /owner stats: live rounds being played now
        tr.gettext("Live rounds now: {count}").format(count=n(figures.live_rounds)),
        # TRANSLATORS: /owner stats: messages waiting to be delivered to chats (the outbox)
        tr.gettext("Messages waiting: {count}").format(count=n(figures.outbox_backlog)),
        # TRANSLATORS: /owner stats: accounts the owner blocked
        tr.gettext("Blocked accounts: {count}").format(count=n(figures.blocked)),
    ]
    if figures.notice is None:
        # TRANSLATORS: /owner stats: no maintenance notice is set
        lines.append(tr.gettext("No notice is shown."))
    else:
        lines.append(notice_line(figures.notice, tr))
    return "\n".join(lines)
