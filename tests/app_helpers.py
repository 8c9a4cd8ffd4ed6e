"""Test helpers over the use cases. A tap on a board applied through the use case that answers it, as the flow does (:meth:`bot.app.flow.Flow.handle`
matches the command once; tests that look at one use case's answer call this)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.app.assembly import App
from bot.app.challenges import challenge_key
from bot.app.commands import (
    Actor,
    AskHint,
    BoardChoice,
    ChallengeDeal,
    DefaultRules,
    ExplainRefusals,
    FourColour,
    GameCommand,
    Invite,
    Language,
    Move,
    NewGame,
    Replay,
    Review,
    SettingChange,
    Share,
    WinnableOnly,
)
from bot.app.effects import Answer, OffersOf
from bot.app.model import BoardStyle, GameSnapshot, Offers, PlayerKey, Settings
from bot.app.outcomes import OldBoard, OutOfDate, Start
from core.deal import Rules


async def act(app: App, player: PlayerKey, name: str, command: GameCommand, *,
              ask: bool = False) -> GameSnapshot | Start | OutOfDate | OldBoard:
    """What ``command`` tapped by ``player`` answers: the game as it stands after a move or a hint, the start of New
    game or Replay (asked first with ``ask``), the finished game of Review and Share."""
    match command:
        case Move():
            return await app.moves.move(player, name, command)
        case AskHint(game_id, version):
            return await app.advice.hint(player, game_id, version)
        case NewGame() | Replay():
            return await app.starts.from_board(player, name, command, ask=ask)
        case Review(game_id) | Share(game_id):
            return await app.games.finished_game(player, game_id)


async def offers(app: App, player: PlayerKey) -> Offers:
    """The player's invitations to play, as the one door answers Telegram's inline mode."""
    (answer,) = await app.flow.handle(Actor(player, ""), Invite())
    assert isinstance(answer, Answer) and isinstance(answer.content, OffersOf), answer
    return answer.content.offers


async def set_settings(app: App, player: PlayerKey, *, name: str = "", **changes: object) -> Settings:
    """The settings ``changes`` (``language``, ``explain_refusals``, ``default_rules``, ``winnable_only``,
    ``board``, ``four_colour``) made one by one as the typed changes a player taps; the settings then in force."""
    typed: dict[str, Callable[[Any], SettingChange]] = {
        "language": Language, "explain_refusals": ExplainRefusals, "winnable_only": WinnableOnly,
        "four_colour": FourColour, "default_rules": lambda rules: DefaultRules(Rules(rules)),
        "board": lambda style: BoardChoice(BoardStyle(style))}
    settings = await app.players.get_settings(player)
    for field, value in changes.items():
        settings = await app.players.change_setting(player, name, typed[field](value))
    return settings


async def challenge(app: App, game_id: int) -> ChallengeDeal:
    """The challenge of ``game_id`` as its Share signs it (its key under the deployment's secret)."""
    return ChallengeDeal(game_id, challenge_key(game_id, await app.daily_codes.secret()))


class TapTimes:
    """When taps come, as a test says (the clock :class:`~bot.app.moves.Moves` tells a double tap by): seconds that
    move only when the test waits."""

    def __init__(self, app: App | None = None, start: float = 1_000_000.0) -> None:
        self.now = start
        if app is not None:
            app.moves.clock = self

    def __call__(self) -> float:
        return self.now

    def wait(self, seconds: float) -> None:
        self.now += seconds
