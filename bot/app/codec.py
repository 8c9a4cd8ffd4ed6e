"""Button payloads: short, prefixed, typed strings that fit Telegram's 64-byte callback_data and Discord's
100-character custom_id.

>>> p = GamePayload(game_id=42, version=7, command="12")
>>> p.encode()
'tp:g:42:7:12'
>>> decode_payload("tp:g:42:7:12") == p
True
>>> decode_payload("tp:daily:2026-11-29")
DailyPayload(day=datetime.date(2026, 11, 29))
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from bot.app.errors import BadPayload
from core.game import Action

PREFIX = "tp"
#: Game commands beyond the engine's actions: ``h`` hint, ``n`` a new game with the same rules.
HINT = "h"
NEW_GAME = "n"
_GAME_RE = re.compile(r"^tp:g:(\d{1,18}):(\d{1,9}):(\d{1,2}|[dunh])$")
_DAILY_RE = re.compile(r"^tp:daily:(\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True)
class GamePayload:
    """A tap on a game message: the game, the version the message showed, and what was tapped (a slot 0-27,
    ``d`` draw, ``u`` undo, ``h`` hint, ``n`` new game)."""

    game_id: int
    version: int
    command: str

    def encode(self) -> str:
        return f"{PREFIX}:g:{self.game_id}:{self.version}:{self.command}"

    def action(self) -> Action | None:
        """The engine action, or None for ``h`` and ``n``."""
        return None if self.command in (HINT, NEW_GAME) else Action.parse(self.command)


@dataclass(frozen=True)
class DailyPayload:
    """The Play button under a posted daily deal."""

    day: dt.date

    def encode(self) -> str:
        return f"{PREFIX}:daily:{self.day.isoformat()}"


Payload = GamePayload | DailyPayload


def decode_payload(text: str) -> Payload:
    """Read a payload; raise :class:`BadPayload` for anything malformed or tampered with."""
    match = _GAME_RE.match(text)
    if match:
        command = match.group(3)
        if command.isdigit() and int(command) > 27:
            raise BadPayload(f"no slot {command}")
        return GamePayload(int(match.group(1)), int(match.group(2)), command)
    match = _DAILY_RE.match(text)
    if match:
        try:
            return DailyPayload(dt.date.fromisoformat(match.group(1)))
        except ValueError:
            raise BadPayload(f"bad date in {text!r}") from None
    raise BadPayload(f"not a TriPeaks payload: {text[:80]!r}")
