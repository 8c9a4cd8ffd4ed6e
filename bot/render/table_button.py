"""The button under a game in a chat that opens the table in the browser (:mod:`bot.adapters.web`), and the line
on a board in a busy group that offers the player a board of their own (:func:`with_own_pace_offer`)."""

from __future__ import annotations

import dataclasses

from bot.i18n import translator
from bot.render.view import Button, View

#: The Telegram bot's menu button, one for every private chat: a label of no language (the game's name), which reads
#: right whatever the player's language.
MENU_LABEL = "🃏 TriPeaks"


def open_table_label(locale: str) -> str:
    # TRANSLATORS: the button under a game in the chat that opens its board as a page in the app, where the player
    # taps the cards themselves. Short: a phone's row, at most 20 columns
    return translator(locale).gettext("Open the board")


def with_table_button(view: View, locale: str, url: str, *, web_app: bool) -> View:
    """``view`` (a game's board) with the button opening the table at ``url`` on a row of its own under its buttons
    (``web_app``: opened inside the chat app, a Telegram Mini App; else a link)."""
    button = Button(open_table_label(locale), None, url=url, web_app=web_app)
    return dataclasses.replace(view, buttons=(*view.buttons, (button,)))


def board_link_view(locale: str, url: str) -> View:
    """The private answer to ``/tripeaks board``: the player's own link to the board in the browser."""
    # TRANSLATORS: the private answer with the player's own link to their game's board in the browser (the link
    # names them: no one else may use it, and it works for 15 minutes)
    text = translator(locale).gettext("This link is yours alone and opens your board for the next 15 minutes")
    return View(header=text, buttons=((Button(open_table_label(locale), None, url=url),),))


def with_own_pace_offer(view: View, locale: str, private_link: str | None) -> View:
    """``view`` (a player's board in a busy group, where every board catches up at the group's shared limit) with a
    line offering a board where that limit does not apply: the table's button, which the board has (``private_link``
    None), else a button opening the player's private chat with the bot at ``private_link`` (their game there)."""
    tr = translator(locale)
    buttons = view.buttons
    if private_link is None:
        label = open_table_label(locale)
    else:
        label = tr.pgettext("button", "Play in private")
        buttons = (*buttons, (Button(label, None, url=private_link),))
    # TRANSLATORS: a line on a player's board in a busy group chat: Telegram lets a bot change a group's messages
    # about 20 times a minute, shared by every board there, so each board shows its moves late. {button} is the
    # label of the button that opens the player's own board (in the app, or in the private chat with the bot),
    # which shows every move at once. An offer, never an order: shown once in a while
    text = tr.gettext("This group is busy, so boards here catch up slowly. “{button}” lets you play at your own "
                      "pace").format(button=label)
    return dataclasses.replace(view, status=f"{view.status}\n{text}" if view.status else text, buttons=buttons)
