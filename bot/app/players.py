"""Players: their settings (language, refusal explanations, default rules) and their statistics."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import assert_never

from bot.app.commands import (
    BoardChoice,
    DefaultRules,
    ExplainRefusals,
    FourColour,
    Language,
    SettingChange,
    WinnableOnly,
)
from bot.app.errors import BadPayload
from bot.app.model import BoardStyle, PlayerKey, Settings, Stats, clean_name
from bot.store import daily as stored_daily
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store.engine import Database
from bot.store.schema import utcnow
from core.deal import Rules

_LANGUAGE_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,2}$")


def name_columns(name: str) -> dict[str, object]:
    """The columns that record the name a player now goes by (cleaned; none when the platform gave no name)."""
    name = clean_name(name)
    return {"display_name": name} if name else {}


def _settings(record: stored_players.PlayerRecord) -> Settings:
    return Settings(language=record.language, explain_refusals=record.explain_refusals,
                    default_rules=Rules(record.default_rules), winnable_only=record.winnable_only,
                    board=BoardStyle(record.board_style), four_colour=record.four_colour)


def setting_changes(change: SettingChange) -> dict[str, object]:
    """A settings button's choice as the settings (:class:`Settings` fields) it changes.

    >>> setting_changes(BoardChoice(BoardStyle.TEXT)), setting_changes(Language(None))
    ({'board': <BoardStyle.TEXT: 'text'>}, {'language': None})
    """
    match change:
        case ExplainRefusals(on):
            return {"explain_refusals": on}
        case DefaultRules(rules):
            return {"default_rules": rules}
        case Language(locale):
            return {"language": locale}
        case WinnableOnly(on):
            return {"winnable_only": on}
        case BoardChoice(style):
            return {"board": style}
        case FourColour(on):
            return {"four_colour": on}
        case unhandled:
            assert_never(unhandled)


def _columns(change: SettingChange) -> dict[str, object]:
    """The player's columns a setting change writes; :class:`BadPayload` for a language tag that is none."""
    if isinstance(change, Language) and change.locale is not None and not _LANGUAGE_RE.match(change.locale):
        raise BadPayload(f"not a language tag: {change.locale!r}")
    return {("board_style" if field == "board" else field): value.value if isinstance(value, BoardStyle | Rules)
            else value for field, value in setting_changes(change).items()}


#: How many players' last seen locales a process remembers; past that it forgets them all and reads them again.
SEEN_REMEMBERED = 100_000
#: How long (seconds) a process trusts what it last read or wrote of a player's seen locale: another process may
#: have stored another since.
SEEN_FRESH = 300.0


class Players:
    """The settings and statistics of players, and the platform's locale each was last seen with."""

    def __init__(self, db: Database, clock: Callable[[], float] = time.monotonic) -> None:
        self.db = db
        self.clock = clock
        #: the locale each player is stored as last seen with, as this process last read or wrote it, and when
        self._seen: dict[PlayerKey, tuple[str, float]] = {}
        #: the communities each player is stored as seen in, as this process wrote them
        self._members: set[tuple[PlayerKey, str]] = set()

    async def seen(self, player: PlayerKey, locale: str | None, community: str | None = None) -> None:
        """The player acts with the platform's ``locale`` (None: the platform gave none), in ``community`` (a server
        or group; None in a private chat): the locale stored when it is not the one stored, so a tap writes nothing,
        and read at most every :data:`SEEN_FRESH` seconds (so what another process stored meanwhile is seen within
        that time); the community noted once a process, so its leaderboard lists the player's daily attempt,
        wherever it was played."""
        if community is not None and (player, community) not in self._members:
            async with self.db.transaction() as tx:
                known = await stored_daily.seen_in_community(tx, player.platform, player.user_id, community, utcnow())
            if known:  # a player not stored yet is noted by their first game's start
                if len(self._members) >= SEEN_REMEMBERED:
                    self._members.clear()
                self._members.add((player, community))
        locale = locale[:16] if locale else None
        if locale is None:
            return
        known_here = self._seen.get(player)
        if known_here is not None and known_here[0] == locale and self.clock() - known_here[1] < SEEN_FRESH:
            return
        async with self.db.reading() as tx:
            known, stored = await stored_players.seen_locale(tx, player.platform, player.user_id)
        if not known:
            return  # no player yet: their first game's start makes one, and a later command records it
        if stored != locale:
            async with self.db.transaction() as tx:
                await stored_players.seen_with(tx, player.platform, player.user_id, locale)
        if len(self._seen) >= SEEN_REMEMBERED:
            self._seen.clear()
        self._seen[player] = locale, self.clock()

    async def get_settings(self, player: PlayerKey) -> Settings:
        """The player's settings (the defaults for a player never seen)."""
        async with self.db.reading() as tx:
            record = await stored_players.find(tx, player.platform, player.user_id)
        return Settings() if record is None else _settings(record)

    async def change_setting(self, player: PlayerKey, name: str, change: SettingChange) -> Settings:
        """Apply a setting change (a tap on the settings message, ``/winnable``) in one statement, recording the
        name the player goes by; returns the settings now in force."""
        values = _columns(change) | name_columns(name)
        async with self.db.transaction() as tx:
            record = await stored_players.upsert(tx, player.platform, player.user_id, values, utcnow())
        return _settings(record)

    async def stats(self, player: PlayerKey) -> Stats:
        """Games played (won, blocked, or abandoned after at least one move: a deal left untouched is no game),
        wins, the best score of a game played to its end (won or blocked), and the current and longest runs of
        consecutive wins by the time games ended (an abandoned game ends a run); counted by the database."""
        async with self.db.reading() as tx:
            tally = await stored_games.tally_of(tx, player.platform, player.user_id)
        return Stats(games=tally.games, wins=tally.wins, best_score=tally.best_score,
                     current_streak=tally.current_streak, longest_streak=tally.longest_streak)
