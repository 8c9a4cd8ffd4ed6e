"""The renderer's :class:`~bot.render.view.View` mapped one to one onto a Discord Components V2 message.

A view becomes one :class:`discord.ui.LayoutView`: a container holding the header, the board, the status lines and
the renderer's rows of buttons, in that order; on a game's board the status lines and the counters come under the
buttons (:func:`under_buttons`), so the cards' buttons keep their place through the game. The board is the picture (a media gallery showing the attached
``board.png``, its description the board in words for screen readers: :func:`files_of` draws it, in a worker
thread) for a player who has the picture board, else the tableau as a code block. Nothing is added, dropped or reworded here: every
text and every button comes from the renderer. See ``docs/discord.md`` for why Components V2 rather than an embed.

Every button's ``custom_id`` is the renderer's command encoded (:func:`bot.app.codec.encode`); a select menu (the
languages on the settings message) has each option's value its command encoded. The bot keeps nothing in memory
for a message: :func:`bot.adapters.discord.interactions.on_component` reads every click from the ``custom_id`` (or
the option chosen) alone, on any message the bot ever sent, also after a restart, and also when the message has
been redrawn since the player saw it (a quick second tap: Discord sends the message as it is now, whose buttons
carry a newer version).
"""

from __future__ import annotations

import asyncio
import io
import re
from typing import Any

import discord
from discord.utils import escape_markdown

from bot.app.codec import encode
from bot.render.picture import draw_table
from bot.render.platforms import ShownButton, ShownMenu, discord_header, discord_rows
from bot.render.view import Button, View

#: The felt green of a card table, down the left edge of every message the bot sends.
ACCENT = discord.Colour(0x1E7A46)

#: A select menu's ``custom_id``: this and its place among the message's menus (what it asks for is in the value
#: of the option chosen).
MENU_PREFIX = "tpm:"

#: The colour names of :func:`bot.render.platforms.discord_rows`: blurple the suggested move, green a card that
#: fits or a chosen setting.
_STYLES = {
    "primary": discord.ButtonStyle.primary,
    "secondary": discord.ButtonStyle.secondary,
    "success": discord.ButtonStyle.success,
    "danger": discord.ButtonStyle.danger,
}


def menu_item(menu: ShownMenu, index: int) -> discord.ui.Select[Any]:
    """The select menu for one of :func:`bot.render.platforms.discord_rows`' menus, the ``index``-th of its
    message (``custom_id`` ``tpm:<index>``): each option's value its command encoded, the chosen one the menu's
    default."""
    return discord.ui.Select(custom_id=f"{MENU_PREFIX}{index}",
                             options=[discord.SelectOption(label=option.label, value=encode(option.command),
                                                           default=option.chosen, emoji=menu.emoji)
                                      for option in menu.options])


def button_item(button: Button | ShownButton) -> discord.ui.Button[Any]:
    """The item for one of the renderer's buttons: a link button for one with a ``url``, else a button whose
    ``custom_id`` is its command encoded."""
    if isinstance(button, Button):
        button = ShownButton(button.label, button.command, button.style.value, button.disabled, button.url)
    if button.url is not None:
        return discord.ui.Button(label=button.label, url=button.url, disabled=button.disabled)
    if button.command is None:
        raise ValueError(f"the button {button.label!r} has neither a command nor a link")
    return discord.ui.Button(label=button.label, custom_id=encode(button.command),
                             style=_STYLES[button.style or "secondary"], disabled=button.disabled)


def plain(text: str) -> str:
    r"""Renderer text (plain) made safe for Discord markdown: ``*``, ``_``, ``~``, `````, ``|`` and ``>`` escaped, and
    a leading ``#``, ``-`` or ``1.`` of a line kept from turning it into a heading or a list. Discord takes a
    backslash only before the markdown character itself, so a numbered line is written ``1\. Alice`` (shown as
    "1. Alice"); ``\1. Alice`` would show the backslash.

    >>> plain("1. Alice\n12. Bob: 3 * 4\n- x\n# y")
    '1\\. Alice\n12\\. Bob: 3 \\* 4\n\\- x\n\\# y'
    """
    lines = []
    for line in escape_markdown(text).split("\n"):
        numbered = re.match(r"^(\d+)\.\s", line)
        if numbered:
            line = numbered.group(1) + "\\" + line[len(numbered.group(1)):]
        elif re.match(r"^(#|-)\s", line):
            line = "\\" + line
        lines.append(line)
    return "\n".join(lines)


def code_block(text: str) -> str:
    """A monospace block; the renderer's tableau holds no backticks, and any that slipped in are neutralised."""
    return "```\n" + text.replace("`", "\u02cb") + "\n```"


def header_text(header: str, *, board: bool = False) -> str:
    """The header's first line as a small heading, the rest (score, moves, stock) as plain lines under it; lines
    too wide for a phone split between their groups (:func:`bot.render.platforms.discord_header`; ``board``: a
    game's header, whose lines stay through the game)."""
    first, rest = discord_header(header, board=board)
    heading = f"### {plain(first)}"
    return f"{heading}\n{plain(rest)}" if rest else heading


#: What a status line's leading spaces become: Discord's markdown drops a line's leading spaces (a leaderboard
#: entry's second line, a wrapped setting lost their indent), and keeps no-break spaces.
INDENT_SPACE = "\u00a0"


def status_text(status: str) -> str:
    r"""The status lines (a refusal, a cleared peak, the end of the game) as a quote, so they stand apart from the
    score above and the buttons below; a line's indent kept as no-break spaces.

    >>> status_text("1. Ann\n  score 650")
    '> 1\\. Ann\n> \xa0\xa0score 650'
    """
    lines = plain(status).split("\n")
    kept = [INDENT_SPACE * (len(line) - len(line.lstrip(" "))) + line.lstrip(" ") for line in lines]
    return "\n".join(f"> {line}" if line.strip() else ">" for line in kept)


def is_board(view: View) -> bool:
    """Whether ``view`` is a game's board (the tableau, or the picture)."""
    return view.tableau is not None or view.table is not None


def under_buttons(view: View) -> list[str]:
    """The texts a board shows under its buttons: the status lines (a refusal, a cleared peak, a hint, the end of
    the game) and the undo and hint counters, as small text. They come and go during a game: above the buttons they
    pushed the cards' buttons down and back, and a thumb aimed at one card hit another. Any other message keeps its
    status above its buttons (none here)."""
    if not is_board(view):
        return []
    return ([status_text(view.status)] if view.status else []) + ([f"-# {plain(view.tally)}"] if view.tally else [])


def tableau_of(view: View) -> str | None:
    """The tableau a Discord message shows: the narrow one, as Discord's phone app shows only about 23 columns of a
    code block in a message."""
    return view.narrow_tableau or view.tableau


#: The picture board's file name, as the media gallery names its attachment.
IMAGE = "board.png"
#: Discord's longest media description.
DESCRIPTION_MAX = 1024


def description(view: View) -> str:
    return (view.table_alt or "")[:DESCRIPTION_MAX]


async def files_of(view: View) -> list[discord.File]:
    """The files a message for ``view`` attaches: the picture board's PNG, drawn in a worker thread so no
    interaction waits behind a picture (none for a text board or any other message). An edit passes them as its
    ``attachments``, so an edit to a message without a picture also takes an old picture away."""
    if view.table is None:
        return []
    png = await asyncio.to_thread(draw_table, view.table)
    return [discord.File(io.BytesIO(png), filename=IMAGE, description=description(view))]


def layout(view: View) -> discord.ui.LayoutView:
    """The whole message for ``view``: one container, buttons inside it, under the text they act on."""
    container: discord.ui.Container[discord.ui.LayoutView] = discord.ui.Container(accent_colour=ACCENT)
    container.add_item(discord.ui.TextDisplay(header_text(view.header, board=is_board(view))))
    tableau = tableau_of(view)
    if view.table is not None:
        container.add_item(discord.ui.MediaGallery(discord.MediaGalleryItem(f"attachment://{IMAGE}",
                                                                            description=description(view))))
    elif tableau is not None:
        container.add_item(discord.ui.TextDisplay(code_block(tableau)))
    if view.status and not is_board(view):
        container.add_item(discord.ui.TextDisplay(status_text(view.status)))
    for line, board in view.boards:  # a watched round's boards, each under its player's line
        container.add_item(discord.ui.TextDisplay(f"**{plain(line)}**\n{code_block(board)}"))
    menus = 0
    for row in discord_rows(view):
        action_row: discord.ui.ActionRow[discord.ui.LayoutView] = discord.ui.ActionRow()
        if isinstance(row, ShownMenu):
            action_row.add_item(menu_item(row, menus))
            menus += 1
        else:
            for button in row:
                action_row.add_item(button_item(button))
        container.add_item(action_row)
    for text in under_buttons(view):
        container.add_item(discord.ui.TextDisplay(text))
    message = discord.ui.LayoutView(timeout=None)
    message.add_item(container)
    # Every click is read from its custom_id alone (bot.adapters.discord.interactions.on_component), on any message
    # the bot ever sent: a stopped view is one discord.py keeps no state for, and dispatches nothing to.
    message.stop()
    return message
