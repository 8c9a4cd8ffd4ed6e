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
>>> decode("tp:y:42:c:TP1-E-AAAAAAB")
ConfirmStart(abandon=42, request=DealByCode(code='TP1-E-AAAAAAB'))
>>> decode("tp:b:x:42:byzbw5c72yfvwb4m")
Begin(request=ChallengeDeal(game_id=42, key='byzbw5c72yfvwb4m'))
>>> decode("tp:bk:42")
BackToBoard(game_id=42)
>>> encode(WatchRound(7)), decode("tp:w:7")
('tp:w:7', WatchRound(round_id=7))
>>> decode("tp:y:42:r:41")
ConfirmStart(abandon=42, request=ReplayDeal(game_id=41))
>>> decode("tp:g:42:7:99")
Traceback (most recent call last):
...
bot.app.errors.BadPayload: no slot 99
"""

from __future__ import annotations

import datetime as dt
import re
from typing import assert_never

from bot.app.commands import (
    AskHint,
    BackToBoard,
    Begin,
    Blank,
    BoardChoice,
    ButtonCommand,
    ChallengeDeal,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    DefaultRules,
    ExplainRefusals,
    FourColour,
    GameCommand,
    Invite,
    KeepPlaying,
    Language,
    Move,
    NewGame,
    PlayDaily,
    RandomDeal,
    Replay,
    ReplayDeal,
    Resume,
    Review,
    RoundDeal,
    Share,
    ShowRules,
    StartRequest,
    WatchRound,
    WinnableOnly,
)
from bot.app.errors import BadPayload as BadPayload  # what decoding a tampered payload raises
from bot.app.model import BoardStyle
from bot.i18n import SUPPORTED_LOCALES
from core.deal import Rules
from core.errors import TriPeaksError
from core.game import Action, Draw, Tap, Undo

PREFIX = "tp"
#: The words after a game payload's version: a slot ``0``-``27``, ``d`` draw, ``u`` undo, ``h`` hint, ``n`` new game,
#: ``r`` replay, ``v`` review, ``s`` share.
HINT = "h"
NEW_GAME = "n"
_FINISHED_WORDS: dict[str, type[Replay] | type[Review] | type[Share]] = {"r": Replay, "v": Review, "s": Share}
_GAME_RE = re.compile(r"^tp:g:(\d{1,18}):(\d{1,9}):(\d{1,2}|[dunhrvs])$")
#: A challenge's key (:func:`bot.app.challenges.challenge_key`), or the code an older challenge carried.
_KEY = r"[a-z2-7]{16}|TP1-[A-Z]-[A-Z]{1,7}"
_REQUEST = (rf"(?:n:([ec-]):([01-])|c:(TP1-[A-Z]-[A-Z]{{1,7}})|d:(\d{{4}}-\d{{2}}-\d{{2}}|-)|x:(\d{{1,18}}):({_KEY}|-)"
            r"|r:(\d{1,18})|o:(\d{1,18}))")
_CONFIRM_RE = re.compile(rf"^tp:y:(\d{{1,18}}):{_REQUEST}$")
_KEEP_RE = re.compile(r"^tp:k:(\d{1,18})$")
_BACK_RE = re.compile(r"^tp:bk:(\d{1,18})$")
_WATCH_RE = re.compile(r"^tp:w:(\d{1,18})$")
_BEGIN_RE = re.compile(rf"^tp:b:{_REQUEST}$")
_RULES = "tp:rules"
_RESUME = "tp:resume"
_BLANK_RE = re.compile(r"^tp:-:(\d{1,2})$")
_DAILY_RE = re.compile(r"^tp:daily:(\d{4}-\d{2}-\d{2})$")
_SETTING_RE = re.compile(r"^tp:set:(explain|rules|lang|winnable|board|four):([A-Za-z_]{2,8})$")
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
    if word in _FINISHED_WORDS:
        return _FINISHED_WORDS[word](game_id)
    if not isinstance(word, str) or not re.fullmatch(r"\d{1,2}|[du]", word):
        raise BadPayload(f"not a game command: {word!r}")
    try:
        action = Action.parse(word)
    except TriPeaksError:
        raise BadPayload(f"no slot {word}") from None
    assert isinstance(action, Tap | Draw | Undo)
    return Move(game_id, version, action)


def encode(command: ButtonCommand) -> str:
    """The payload string of ``command``."""
    match command:
        case Move(game_id, version, action):
            return f"{PREFIX}:g:{game_id}:{version}:{action}"
        case AskHint(game_id, version):
            return f"{PREFIX}:g:{game_id}:{version}:{HINT}"
        case NewGame(game_id, version):
            return f"{PREFIX}:g:{game_id}:{version}:{NEW_GAME}"
        case Replay(game_id) | Review(game_id) | Share(game_id):
            word = {Replay: "r", Review: "v", Share: "s"}[type(command)]
            return f"{PREFIX}:g:{game_id}:0:{word}"
        case ConfirmStart(abandon, request):
            return f"{PREFIX}:y:{abandon}:{_request_text(request)}"
        case KeepPlaying(game_id):
            return f"{PREFIX}:k:{game_id}"
        case BackToBoard(game_id):
            return f"{PREFIX}:bk:{game_id}"
        case WatchRound(round_id):
            return f"{PREFIX}:w:{round_id}"
        case Begin(request):
            return f"{PREFIX}:b:{_request_text(request)}"
        case ShowRules():
            return _RULES
        case Resume():
            return _RESUME
        case Blank(place):
            return f"{PREFIX}:-:{place}"
        case PlayDaily(day):
            return f"{PREFIX}:daily:{day.isoformat()}"
        case ExplainRefusals(on):
            return f"{PREFIX}:set:explain:{'on' if on else 'off'}"
        case DefaultRules(rules):
            return f"{PREFIX}:set:rules:{rules.value}"
        case Language(locale):
            return f"{PREFIX}:set:lang:{locale or 'auto'}"
        case WinnableOnly(on):
            return f"{PREFIX}:set:winnable:{'on' if on else 'off'}"
        case BoardChoice(style):
            return f"{PREFIX}:set:board:{style.value}"
        case FourColour(on):
            return f"{PREFIX}:set:four:{'on' if on else 'off'}"
        case unhandled:
            assert_never(unhandled)


def decode(text: str) -> ButtonCommand:
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
    match = _CONFIRM_RE.match(text)
    if match:
        return ConfirmStart(int(match.group(1)), _request(match))
    match = _KEEP_RE.match(text)
    if match:
        return KeepPlaying(int(match.group(1)))
    match = _BACK_RE.match(text)
    if match:
        return BackToBoard(int(match.group(1)))
    match = _WATCH_RE.match(text)
    if match:
        return WatchRound(int(match.group(1)))
    match = _BEGIN_RE.match(text)
    if match:
        return Begin(_request(match))
    if text == _RULES:
        return ShowRules(play=True)  # the welcome's Rules button: with Play under them
    if text == _RESUME:
        return Resume()
    match = _BLANK_RE.match(text)
    if match:
        return Blank(int(match.group(1)))
    raise BadPayload(f"not a TriPeaks payload: {text[:80]!r}")


#: A challenge in a bot link's start parameter (Telegram's ``t.me/<bot>?start=...``: letters, digits, _ and -).
#: Today's daily deal, whichever it is, in a link's start parameter (a link that gives away no card).
DAILY_START = "daily"
#: The game in progress, in a bot link's start parameter: the private chat's link that brings a player's game there
#: from a busy group (:data:`bot.app.commands.Resume`).
RESUME_START = "resume"
_START_CHALLENGE_RE = re.compile(rf"^x(\d{{1,18}})_({_KEY}|daily)$")


#: A review in a bot link's start parameter: the private chat's link to a review asked for in a group.
_REVIEW_START_RE = re.compile(r"^review-(\d{1,18})$")


#: Telegram's inline query that Share on a finished board opens: that game's challenge, not the player's latest.
_SHARE_QUERY_RE = re.compile(r"^#(\d{1,18})$")


def share_query(game_id: int) -> str:
    """The inline query Share on the board of ``game_id`` opens (Telegram's ``switch_inline_query``).

    >>> share_query(42), invite_of(share_query(42)), invite_of(""), invite_of("anything")
    ('#42', Invite(game_id=42), Invite(game_id=None), Invite(game_id=None))
    """
    return f"#{game_id}"


def invite_of(query: str) -> Invite:
    """The invitations an inline query asks for: those of the game Share was tapped under, else the latest game's."""
    match = _SHARE_QUERY_RE.match(query)
    return Invite(int(match.group(1)) if match is not None else None)


def review_parameter(game_id: int) -> str:
    """The start parameter of the link that shows the review of ``game_id`` in the private chat.

    >>> review_parameter(42), review_of("review-42"), review_of("review-" + "9" * 40), review_of("review-²")
    ('review-42', 42, None, None)
    """
    return f"review-{game_id}"


def review_of(parameter: str) -> int | None:
    """The game whose review a start parameter asks for, or None when it asks for none."""
    match = _REVIEW_START_RE.fullmatch(parameter)
    return int(match.group(1)) if match is not None else None


#: A round in a bot link's start parameter: ``round-<id>``, joining it.
_ROUND_START_RE = re.compile(r"^round-(\d{1,18})$")
_WATCH_START_RE = re.compile(r"^watch-(\d{1,18})$")


def watch_parameter(round_id: int) -> str:
    """The start parameter of a link that opens the table watching the round ``round_id`` (a Mini App's
    ``startapp``).

    >>> watch_parameter(12), watched_round("watch-12"), watched_round("round-12")
    ('watch-12', 12, None)
    """
    return f"watch-{round_id}"


def watched_round(text: str) -> int | None:
    """The round a start parameter asks to watch (:func:`watch_parameter`), if it asks that."""
    asked = _WATCH_START_RE.match(text)
    return int(asked.group(1)) if asked else None


def start_parameter(request: ChallengeDeal | DealByCode | DailyDeal | RoundDeal) -> str:
    """What a link that opens the bot starts, as its start parameter (64 characters at most): a challenge (by
    reference: the game and its key), a deal by its code, or today's daily deal (whichever it is: the link names no
    deal).

    >>> start_parameter(ChallengeDeal(42, "byzbw5c72yfvwb4m"))
    'x42_byzbw5c72yfvwb4m'
    >>> start_request("x42_byzbw5c72yfvwb4m")
    ChallengeDeal(game_id=42, key='byzbw5c72yfvwb4m')
    >>> start_request("TP1-E-AAAAAAB")
    DealByCode(code='TP1-E-AAAAAAB')
    >>> start_request("x42_TP1-E-AAAAAAB"), start_request("x42_daily")  # links made before challenges had keys
    (DealByCode(code='TP1-E-AAAAAAB'), ChallengeDeal(game_id=42, key=None))
    >>> start_request(start_parameter(DailyDeal()))
    DailyDeal(day=None)
    >>> start_parameter(RoundDeal(7)), start_request("round-7")
    ('round-7', RoundDeal(round_id=7))
    """
    match request:
        case RoundDeal(round_id):
            return f"round-{round_id}"
        case ChallengeDeal(game_id, key):
            return f"x{game_id}_{key or DAILY_START}"
        case DealByCode(code):
            return code
        case DailyDeal(day):
            if day is not None:
                raise TypeError(f"no link starts {request!r}")  # only today's: a link names no day
            return DAILY_START
        case unhandled:
            assert_never(unhandled)


def start_request(text: str) -> ChallengeDeal | DealByCode | DailyDeal | RoundDeal:
    """What a link's start parameter asks: a challenge, today's daily deal (:data:`DAILY_START`), a round, else the
    deal of a code (checked when it starts)."""
    if text == DAILY_START:
        return DailyDeal()
    joined = _ROUND_START_RE.match(text)
    if joined:
        return RoundDeal(int(joined.group(1)))
    match = _START_CHALLENGE_RE.match(text)
    if match:
        return _challenge(match.group(1), None if match.group(2) == DAILY_START else match.group(2))
    return DealByCode(text)


def _challenge(game_id: str, key: str | None) -> ChallengeDeal | DealByCode:
    """A challenge of ``game_id`` with ``key``; a key that is a code (a link made before challenges had keys)
    deals that code and challenges nobody, so it never opens another player's game."""
    if key is not None and key.startswith("TP1-"):
        return DealByCode(key)
    return ChallengeDeal(int(game_id), key)


def _request_text(request: StartRequest) -> str:
    match request:
        case RandomDeal(rules, winnable):
            letter = rules.letter.lower() if rules is not None else "-"
            return f"n:{letter}:{'-' if winnable is None else int(winnable)}"
        case DealByCode(code):
            return f"c:{code}"
        case DailyDeal(day):
            return f"d:{day.isoformat() if day is not None else '-'}"
        case ChallengeDeal(game_id, key):
            return f"x:{game_id}:{key or '-'}"
        case ReplayDeal(game_id):
            return f"r:{game_id}"
        case RoundDeal(round_id):
            return f"o:{round_id}"
        case unhandled:
            assert_never(unhandled)


def _request(match: re.Match[str]) -> StartRequest:
    """The start request in a confirmation's or a start button's payload (the groups after its prefix)."""
    groups = match.groups()
    rules_letter, winnable, code, day, challenged, challenge_key, replayed, round_id = groups[-8:]
    if round_id is not None:
        return RoundDeal(int(round_id))
    if replayed is not None:
        return ReplayDeal(int(replayed))
    if challenged is not None:
        return _challenge(challenged, None if challenge_key == "-" else challenge_key)
    if code is not None:
        return DealByCode(code)
    if day is not None:
        try:
            return DailyDeal(None if day == "-" else dt.date.fromisoformat(day))
        except ValueError:
            raise BadPayload(f"bad date {day!r}") from None
    rules = None if rules_letter == "-" else Rules.parse(rules_letter.upper())
    return RandomDeal(rules, None if winnable == "-" else winnable == "1")


def _setting(key: str, value: str) -> ButtonCommand:
    if key == "explain" and value in ("on", "off"):
        return ExplainRefusals(value == "on")
    if key == "rules" and value in (rules.value for rules in Rules):
        return DefaultRules(Rules(value))
    if key == "lang" and (value == "auto" or value in SUPPORTED_LOCALES):
        return Language(None if value == "auto" else value)
    if key == "winnable" and value in ("on", "off"):
        return WinnableOnly(value == "on")
    if key == "board" and value in (style.value for style in BoardStyle):
        return BoardChoice(BoardStyle(value))
    if key == "four" and value in ("on", "off"):
        return FourColour(value == "on")
    raise BadPayload(f"not a setting: {key}:{value}")
