"""The button under a game in a chat that opens the table in the browser (:mod:`bot.adapters.web`)."""

from __future__ import annotations

import dataclasses

from bot.i18n import translator
from bot.render.view import Button, View


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
