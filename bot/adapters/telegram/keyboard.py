"""A renderer :class:`~bot.render.view.View` as a Telegram message: HTML text and an inline keyboard.

The header is bold, the tableau a ``<pre>`` block, the status plain (a picture board is a photo instead, the header
and status its caption: :func:`caption_text`); every text is escaped with
:func:`html.escape`, so nothing a player types (a name, a code) can break the markup. The keyboard is
:func:`bot.render.platforms.telegram_rows`: the view's rows split to fit a 360-pixel phone, the colours as the
buttons' ``style``, each command encoded as ``callback_data`` (:mod:`bot.app.codec`); a link button (``url``)
becomes a URL button.

>>> from bot.app.commands import Move
>>> from bot.render.view import Button, ButtonStyle, View
>>> from core.game import Draw, Tap
>>> view = View(header="A & B", tableau="<7♠>", status="ok",
...             buttons=((Button("7♠", Move(1, 0, Tap(20)), ButtonStyle.SUCCESS), Button("Draw", Move(1, 0, Draw()))),))
>>> message_text(view)
'<b>A &amp; B</b>\\n<pre>&lt;7♠&gt;</pre>\\nok'
>>> [[(b.text, b.callback_data, b.style) for b in row] for row in keyboard(view).inline_keyboard]
[[('7♠', 'tp:g:1:0:20', 'success'), ('Draw', 'tp:g:1:0:d', None)]]
>>> [(b.text, b.url) for b in keyboard(View("x", buttons=((Button("Play", None, url="https://t.me/b?start=TP1-E-AAAAAAB"),),))).inline_keyboard[0]]
[('Play', 'https://t.me/b?start=TP1-E-AAAAAAB')]
"""

from __future__ import annotations

import html

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from telegram.constants import (
    CallbackQueryLimit,
    InlineKeyboardButtonLimit,
    InlineKeyboardMarkupLimit,
    MessageLimit,
)

from bot.app.codec import encode, share_query
from bot.app.commands import Share
from bot.render.platforms import telegram_rows
from bot.render.view import View

ROW_WIDTH = InlineKeyboardMarkupLimit.BUTTONS_PER_ROW  # 8
BUTTONS_MAX = InlineKeyboardMarkupLimit.TOTAL_BUTTON_NUMBER  # 100
CALLBACK_DATA_MAX = InlineKeyboardButtonLimit.MAX_CALLBACK_DATA  # 64 bytes
TEXT_MAX = MessageLimit.MAX_TEXT_LENGTH  # 4096
CAPTION_MAX = MessageLimit.CAPTION_LENGTH  # 1024
TOAST_MAX = CallbackQueryLimit.ANSWER_CALLBACK_QUERY_TEXT_LENGTH  # 200


class ViewTooLarge(ValueError):
    """A view breaks one of Telegram's limits: a renderer bug, reported rather than sent and refused."""


def message_text(view: View) -> str:
    """The message body in Telegram HTML: bold header, ``<pre>`` tableau, then the status lines."""
    parts = [f"<b>{html.escape(view.header)}</b>"]
    if view.tableau is not None:
        parts.append(f"<pre>{html.escape(_keep_indent(view.tableau))}</pre>")
    if view.status:
        parts.append(html.escape(view.status))
    # Telegram counts the text left after parsing the markup, in UTF-16 code units.
    plain = "\n".join(part for part in (view.header, view.tableau, view.status) if part)
    if len(plain.encode("utf-16-le")) // 2 > TEXT_MAX:
        raise ViewTooLarge(f"message text of {len(plain)} characters")
    return "\n".join(parts)


def caption_text(view: View) -> str:
    """A picture board's caption in Telegram HTML: the bold header, then the status lines (the photo is the board).

    >>> caption_text(View(header="TP1-E-AAAAAAB · Easy", tableau="▒▒", status="Peak cleared: +100!"))
    '<b>TP1-E-AAAAAAB · Easy</b>\\nPeak cleared: +100!'
    """
    parts = [f"<b>{html.escape(view.header)}</b>"]
    if view.status:
        parts.append(html.escape(view.status))
    plain = "\n".join(part for part in (view.header, view.status) if part)
    if len(plain.encode("utf-16-le")) // 2 > CAPTION_MAX:
        raise ViewTooLarge(f"caption of {len(plain)} characters")
    return "\n".join(parts)


def _keep_indent(block: str) -> str:
    r"""The block with the spaces that start it made no-break spaces (as wide in a monospace font): Telegram trims
    whitespace at the start of an entity, which would shift the first row of the peaks out of line.

    >>> _keep_indent("  ▒▒▒\n ▒▒▒")
    '\xa0\xa0▒▒▒\n ▒▒▒'
    """
    rest = block.lstrip(" ")
    return "\u00a0" * (len(block) - len(rest)) + rest


def keyboard(view: View, *, share_inline: bool = False) -> InlineKeyboardMarkup | None:
    """The view's buttons as an inline keyboard (None when it has none), laid out by
    :func:`~bot.render.platforms.telegram_rows`: rows split to fit a phone, never reordered, colours as ``style``.
    Disabled buttons stay: Telegram cannot grey a button out, and a tap on one is refused by the service with its
    explanation. With ``share_inline`` (the bot has inline mode) Share opens the bot's inline mode in a chat the
    player picks (:mod:`bot.adapters.telegram.inline`) rather than calling back."""
    rows: list[list[InlineKeyboardButton]] = []
    total = 0
    for row in telegram_rows(view):
        if len(row) > ROW_WIDTH:
            raise ViewTooLarge(f"{len(row)} buttons in a row (at most {ROW_WIDTH})")
        chunk = []
        for button in row:
            if button.url is not None and button.web_app:  # the table, opened as a Mini App in the chat
                chunk.append(InlineKeyboardButton(button.label, web_app=WebAppInfo(button.url), style=button.style))
                continue
            if button.url is not None:  # a link: Telegram opens it, no callback
                chunk.append(InlineKeyboardButton(button.label, url=button.url, style=button.style))
                continue
            if share_inline and isinstance(button.command, Share):
                chunk.append(InlineKeyboardButton(button.label, switch_inline_query=share_query(button.command.game_id),
                                                  style=button.style))
                continue
            if button.command is None:
                raise ViewTooLarge(f"the button {button.label!r} has neither a command nor a link")
            data = encode(button.command)
            if not 1 <= len(data.encode()) <= CALLBACK_DATA_MAX:
                raise ViewTooLarge(f"callback_data {data!r} is not 1-{CALLBACK_DATA_MAX} bytes")
            chunk.append(InlineKeyboardButton(button.label, callback_data=data, style=button.style))
        total += len(chunk)
        rows.append(chunk)
    if total > BUTTONS_MAX:
        raise ViewTooLarge(f"{total} buttons (at most {BUTTONS_MAX})")
    return InlineKeyboardMarkup(rows) if rows else None


def toast(text: str | None) -> str | None:
    """A callback answer's text, cut to Telegram's 200 characters (the renderer already keeps within them)."""
    if text is None or len(text) <= TOAST_MAX:
        return text
    return text[:TOAST_MAX - 1] + "…"
