"""Button payloads: the one place that turns a :mod:`bot.app.commands` value into the short, prefixed string a
button carries, and back. The strings fit Telegram's 64-byte callback_data and Discord's 100-character custom_id.

>>> from core.game import Tap
>>> encode(Move(42, 7, Tap(12)))
'tp:g:42:7:12'
>>> decode("tp:g:42:7:12")
Move(game_id=42, version=7, action=Tap(slot=12))
>>> decode("tp:daily:2026-11-29")
PlayDaily(day=datetime.date(2026, 11, 29))
>>> decode("tp:set:lang:uk")
Language(locale='uk')
>>> decode("tp:g:42:7:99")
Traceback (most recent call last):
...
bot.app.errors.BadPayload: no slot 99
"""

from __future__ import annotations

import datetime as dt
import re

from bot.app.commands import (
    AskHint,
    Command,
    DefaultRules,
    ExplainRefusals,
    GameCommand,
    Language,
    Move,
    NewGame,
    PlayDaily,
)
from bot.app.errors import BadPayload
from bot.i18n import SUPPORTED_LOCALES
from core.deal import Rules
from core.errors import TriPeaksError
from core.game import Action, Draw, Tap, Undo

PREFIX = "tp"
#: The words after a game payload's version: a slot ``0``-``27``, ``d`` draw, ``u`` undo, ``h`` hint, ``n`` new game.
HINT = "h"
NEW_GAME = "n"
_GAME_RE = re.compile(r"^tp:g:(\d{1,18}):(\d{1,9}):(\d{1,2}|[dunh])$")
_DAILY_RE = re.compile(r"^tp:daily:(\d{4}-\d{2}-\d{2})$")
_SETTING_RE = re.compile(r"^tp:set:(explain|rules|lang):([A-Za-z_]{2,8})$")
_MAX_ID = 2**62


def game_command(game_id: int, version: int, word: str) -> GameCommand:
    """The command a game button's word stands for (``12``, ``d``, ``u``, ``h``, ``n``) on the message showing
    ``game_id`` at ``version``; :class:`BadPayload` for anything else.

    >>> game_command(3, 0, "d")
    Move(game_id=3, version=0, action=Draw())
    """
    for name, value in (("game id", game_id), ("version", version)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < _MAX_ID:
            raise BadPayload(f"bad {name}: {value!r}")
    if word == HINT:
        return AskHint(game_id, version)
    if word == NEW_GAME:
        return NewGame(game_id, version)
    if not isinstance(word, str) or not re.fullmatch(r"\d{1,2}|[du]", word):
        raise BadPayload(f"not a game command: {word!r}")
    try:
        action = Action.parse(word)
    except TriPeaksError:
        raise BadPayload(f"no slot {word}") from None
    assert isinstance(action, Tap | Draw | Undo)
    return Move(game_id, version, action)


def encode(command: Command) -> str:
    """The payload string of ``command``."""
    match command:
        case Move(game_id, version, action):
            return f"{PREFIX}:g:{game_id}:{version}:{action}"
        case AskHint(game_id, version):
            return f"{PREFIX}:g:{game_id}:{version}:{HINT}"
        case NewGame(game_id, version):
            return f"{PREFIX}:g:{game_id}:{version}:{NEW_GAME}"
        case PlayDaily(day):
            return f"{PREFIX}:daily:{day.isoformat()}"
        case ExplainRefusals(on):
            return f"{PREFIX}:set:explain:{'on' if on else 'off'}"
        case DefaultRules(rules):
            return f"{PREFIX}:set:rules:{rules.value}"
        case Language(locale):
            return f"{PREFIX}:set:lang:{locale or 'auto'}"
    raise TypeError(f"not a command: {command!r}")


def decode(text: str) -> Command:
    """The command a payload carries; :class:`BadPayload` for anything malformed or tampered with."""
    if not isinstance(text, str):
        raise BadPayload(f"not a payload: {text!r}")
    match = _GAME_RE.match(text)
    if match:
        return game_command(int(match.group(1)), int(match.group(2)), match.group(3))
    match = _DAILY_RE.match(text)
    if match:
        try:
            return PlayDaily(dt.date.fromisoformat(match.group(1)))
        except ValueError:
            raise BadPayload(f"bad date in {text!r}") from None
    match = _SETTING_RE.match(text)
    if match:
        return _setting(match.group(1), match.group(2))
    raise BadPayload(f"not a TriPeaks payload: {text[:80]!r}")


def _setting(key: str, value: str) -> Command:
    if key == "explain" and value in ("on", "off"):
        return ExplainRefusals(value == "on")
    if key == "rules" and value in (rules.value for rules in Rules):
        return DefaultRules(Rules(value))
    if key == "lang" and (value == "auto" or value in SUPPORTED_LOCALES):
        return Language(None if value == "auto" else value)
    raise BadPayload(f"not a setting: {key}:{value}")


# --- the payload classes the renderer still builds buttons with (switched to encode() with the render split) ----

from dataclasses import dataclass  # noqa: E402


@dataclass(frozen=True)
class GamePayload:
    game_id: int
    version: int
    command: str

    def encode(self) -> str:
        return encode(game_command(self.game_id, self.version, self.command))


@dataclass(frozen=True)
class DailyPayload:
    day: dt.date

    def encode(self) -> str:
        return encode(PlayDaily(self.day))
