"""Views as plain text, for the snapshot tests: what they compare and what a reviewer reads."""

from __future__ import annotations

from bot.app.codec import encode
from bot.render.platforms import ShownButton
from bot.render.view import Button, ButtonStyle, View, strip_variation


def payload_of(button: Button | ShownButton) -> str:
    """A button's command as a platform sends it (:func:`bot.app.codec.encode`); "" for a link button."""
    return encode(button.command) if button.command is not None else ""


def view_as_text(view: View) -> str:
    """A view as plain text: what snapshot tests compare. Each button is ``[label]`` with a mark for its colour
    (``*`` green, ``>`` blue, ``!`` red), ``(off)`` when disabled, and ``-> url`` for a link."""
    parts = [view.header]
    if view.tableau is not None:
        parts.append(view.tableau)
    if view.status:
        parts.append(view.status)
    for row in view.buttons:
        parts.append("  ".join(_button_text(button) for button in row))
    return "\n\n".join(parts)


MARKS = {ButtonStyle.SUCCESS: "*", ButtonStyle.PRIMARY: ">", ButtonStyle.DANGER: "!"}


def _button_text(button: Button) -> str:
    if button.blank:
        return "[ ]"
    link = f" -> {button.url}" if button.url else ""
    return (f"[{strip_variation(button.label)}{MARKS.get(button.style, '')}{' (off)' if button.disabled else ''}"
            f"{link}]")
