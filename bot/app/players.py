"""Players: their settings (language, refusal explanations, default rules) and their statistics."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping

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
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store.engine import Database
from bot.store.schema import utcnow
from core.deal import Rules
from core.errors import TriPeaksError

_LANGUAGE_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,2}$")


def name_columns(name: str) -> dict[str, object]:
    """The columns that record the name a player now goes by (cleaned; none when the platform gave no name)."""
    name = clean_name(name)
    return {"display_name": name} if name else {}


def _settings(record: stored_players.PlayerRecord) -> Settings:
    return Settings(language=record.language, explain_refusals=record.explain_refusals,
                    default_rules=Rules(record.default_rules), winnable_only=record.winnable_only,
                    board=BoardStyle(record.board_style), four_colour=record.four_colour)


def _columns(changes: Mapping[str, object]) -> dict[str, object]:
    """Column values for validated setting changes; :class:`BadPayload` for a bad value."""
    known = {field.name for field in dataclasses.fields(Settings)}
    unknown = set(changes) - known
    if unknown:
        raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
    values: dict[str, object] = {}
    if "language" in changes:
        language = changes["language"]
        if language is not None and not (isinstance(language, str) and _LANGUAGE_RE.match(language.strip())):
            raise BadPayload(f"not a language tag: {language!r}")
        values["language"] = language.strip() if isinstance(language, str) else None
    if "explain_refusals" in changes:
        explain = changes["explain_refusals"]
        if not isinstance(explain, bool):
            raise BadPayload(f"explain_refusals must be true or false, not {explain!r}")
        values["explain_refusals"] = explain
    if "default_rules" in changes:
        rules = changes["default_rules"]
        if isinstance(rules, str):
            try:
                rules = Rules.parse(rules)
            except TriPeaksError as error:
                raise BadPayload(str(error)) from None
        if not isinstance(rules, Rules):
            raise BadPayload(f"not a rule set: {rules!r}")
        values["default_rules"] = rules.value
    if "winnable_only" in changes:
        winnable = changes["winnable_only"]
        if winnable is not None and not isinstance(winnable, bool):
            raise BadPayload(f"winnable_only must be true, false or None, not {winnable!r}")
        values["winnable_only"] = winnable
    if "board" in changes:
        board = changes["board"]
        try:
            values["board_style"] = BoardStyle(board.value if isinstance(board, BoardStyle) else board).value
        except ValueError:
            raise BadPayload(f"board must be picture or text, not {board!r}") from None
    if "four_colour" in changes:
        four = changes["four_colour"]
        if not isinstance(four, bool):
            raise BadPayload(f"four_colour must be true or false, not {four!r}")
        values["four_colour"] = four
    return values


def setting_changes(change: SettingChange) -> dict[str, object]:
    """A settings button's choice as the settings it changes."""
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
    raise TypeError(f"not a setting change: {change!r}")


class Players:
    """The settings and statistics of players."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def get_settings(self, player: PlayerKey) -> Settings:
        """The player's settings (the defaults for a player never seen)."""
        async with self.db.reading() as tx:
            record = await stored_players.find(tx, player.platform, player.user_id)
        return Settings() if record is None else _settings(record)

    async def update_settings(self, player: PlayerKey, *, name: str = "", **changes: object) -> Settings:
        """Change some of ``language`` (None: follow the platform), ``explain_refusals``, ``default_rules``
        (a :class:`Rules` or its name), ``winnable_only``, ``board`` (a :class:`BoardStyle` or its name) and
        ``four_colour`` in one statement; returns the settings now in force. :class:`BadPayload`
        for a bad value."""
        values = _columns(changes) | name_columns(name)
        async with self.db.transaction() as tx:
            record = await stored_players.upsert(tx, player.platform, player.user_id, values, utcnow())
        return _settings(record)

    async def change_setting(self, player: PlayerKey, name: str, change: SettingChange) -> Settings:
        """Apply a tap on the settings message; returns the settings now in force."""
        return await self.update_settings(player, name=name, **setting_changes(change))

    async def stats(self, player: PlayerKey) -> Stats:
        """Games played (won, blocked, or abandoned after at least one move: a deal left untouched is no game),
        wins, the best score of a game played to its end (won or blocked), and the current and longest runs of
        consecutive wins by the time games ended (an abandoned game ends a run); counted by the database."""
        async with self.db.reading() as tx:
            tally = await stored_games.tally_of(tx, player.platform, player.user_id)
        return Stats(games=tally.games, wins=tally.wins, best_score=tally.best_score,
                     current_streak=tally.current_streak, longest_streak=tally.longest_streak)
