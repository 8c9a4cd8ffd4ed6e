"""Games: acting on one from its board (cards, Draw, Undo, Hint, New game, Replay), playing a card by name, and
reading a player's games. Starting them: :mod:`bot.app.starts`.

Every method returns a frozen :class:`~bot.app.model.GameSnapshot` only after its transaction has committed, so
whatever an adapter shows a player is on disk.

Taps and versions: every game row has a ``version`` that each applied action (and the end of the game as current)
increments, and a board carries the version it shows. A card tapped on any board of the player's current game
applies when it is legal now (two quick taps from one keyboard both apply); Draw, Undo, Hint and New game must
come from the board as it stands (:class:`StaleGame` otherwise, with the game as it stands), so a double tap applies
once. A tap on the board of a game that is no longer the player's latest raises :class:`NotCurrentGame`: the
board never turns into another game. The new state is written with ``WHERE version = :seen``, so of two actions
that read the same version exactly one applies, on SQLite (``BEGIN IMMEDIATE``) and PostgreSQL (row locks) alike.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Sequence

from bot.app.batcher import TapBatcher
from bot.app.commands import (
    AskHint,
    DealByCode,
    GameCommand,
    Move,
    NewGame,
    RandomDeal,
    Replay,
    Review,
    Share,
)
from bot.app.errors import (
    BadPayload,
    CardNotInPlay,
    GameNotFound,
    NoActiveGame,
    NotACard,
    NotYourGame,
    StaleGame,
)
from bot.app.model import BoardRef, GameSnapshot, PlayerKey, clean_name
from bot.app.records import (
    load_checked,
    load_game,
    load_owned,
    owner_of,
    snapshot_of,
    stale_error,
)
from bot.app.solver_pool import DailyCodeFunction, SolverPool
from bot.app.starts import Starts
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store.engine import Database
from bot.store.games import GameRecord, StateWrite
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, utcnow
from core.cards import Card
from core.deal import GameCode, Rules
from core.errors import TriPeaksError
from core.game import Action, Game, Outcome, Reason, Tap, Undo

#: How many games' engines a process keeps to skip replaying their stored state on the next tap.
GAME_CACHE_SIZE = 4096
#: The daily deal's search may take this long (it is done once a day and then remembered).
DAILY_CODE_BUDGET = 30.0

Clock = Callable[[], dt.datetime]


@dataclasses.dataclass
class _Tap:
    """A move waiting for its batch."""

    player: PlayerKey
    name: str
    game_id: int
    version: int
    action: Action


class _Retry(Exception):
    """A batch met a row changed under it: its taps are retried one transaction each."""


class Games(Starts):
    """The game use cases; :class:`bot.app.service.GameService` brings them together with the others."""

    db: Database
    solver: SolverPool
    clock: Clock
    daily_code_function: DailyCodeFunction
    winnable_budget: float

    def _init_games(self) -> None:
        self._init_starts()
        self._taps: TapBatcher[_Tap, GameSnapshot] = TapBatcher(self._apply_taps)
        # the engine of games this process wrote last, by id, to skip replaying their state on the next tap
        self._engines: dict[int, tuple[str, Game]] = {}

    # --- playing ----------------------------------------------------------------------------------------------

    async def act(self, player: PlayerKey, name: str, command: GameCommand, *, ask: bool = False) -> GameSnapshot:
        """Apply a tap on a board: a move returns the game as it now stands; a hint the game with the advice;
        New game and Replay the new game (with ``ask``, :class:`ConfirmAbandon` first when they would abandon a
        game with moves); Share and Review the finished game (the review itself: :meth:`review`).

        Raises :class:`GameNotFound`, :class:`NotYourGame`, :class:`NotCurrentGame` or :class:`StaleGame`. A
        refused move is not an error: the snapshot's ``outcome`` says why, and the version stays.
        """
        match command:
            case Move(game_id, version, action):
                return await self._taps.submit(_Tap(player, name, game_id, version, action))
            case AskHint(game_id, version):
                return await self._hint(player, game_id, version)
            case NewGame(game_id, version):
                async with self.db.transaction() as tx:
                    record = await load_checked(tx, player, game_id, version)
                rules = Rules(record.rules)
                return await self._start(player, name, code=None, rules=rules, daily=None,
                                         winnable=record.dealt_winnable, chat_id=record.chat_id, ask=ask,
                                         abandoning=game_id, request=RandomDeal(rules, record.dealt_winnable))
            case Replay(game_id):
                async with self.db.transaction() as tx:
                    record = await load_owned(tx, player, game_id)
                return await self._start(player, name, code=GameCode.parse(record.code), rules=None, daily=None,
                                         winnable=False, chat_id=record.chat_id, ask=ask, abandoning=game_id,
                                         request=DealByCode(record.code))
            case Review(game_id) | Share(game_id):
                return await self.game(game_id)
        raise BadPayload(f"not a game command: {command!r}")

    async def play_card(self, player: PlayerKey, name: str, text: str) -> GameSnapshot:
        """Tap, in the player's current game, the card named ``text`` (``7h``, ``10♥``, ``qs``).

        :class:`NoActiveGame` without a current game, :class:`NotACard` for text that names no card,
        :class:`CardNotInPlay` for a card that is not face up on the table (typing a card reveals nothing hidden).
        """
        current = await self.current_game(player)
        if current is None:
            raise NoActiveGame()
        try:
            card = Card.parse(text)
        except TriPeaksError:
            raise NotACard(text) from None
        slot = current.game.visible_slot(card)
        if slot is None:
            raise CardNotInPlay(str(card))
        return await self._taps.submit(_Tap(player, name, current.game_id, current.version, Tap(slot)))

    async def _apply_taps(self, batch: Sequence[_Tap]) -> list[GameSnapshot | Exception]:
        """One transaction for ``batch`` (taps on distinct games): one SELECT of their games (locking their rows on
        PostgreSQL, in id order), the engine in memory, one UPDATE statement for every applied action with the
        version check, one commit. A result is an exception for a tap that is refused as an error."""
        results: list[GameSnapshot | Exception] = []
        writes: list[StateWrite] = []
        written: list[tuple[GameRecord, Game]] = []
        now = utcnow()
        async with self.db.transaction() as tx:
            # SQLite's BEGIN IMMEDIATE already holds the write lock
            records = await stored_games.load_for_update(tx, [tap.game_id for tap in batch],
                                                         lock_rows=not self.db.is_sqlite)
            for tap in batch:
                record = records.get(tap.game_id)
                if record is None:
                    results.append(GameNotFound(tap.game_id))
                    continue
                if owner_of(record) != tap.player:
                    results.append(NotYourGame(record.owner_name))
                    continue
                if record.version != tap.version and not (isinstance(tap.action, Tap) and record.active
                                                          and record.status == PLAYING):
                    results.append(await stale_error(tx, record))
                    continue
                game = self._engine_of(record)
                if record.status == ABANDONED:
                    results.append(snapshot_of(record, game, outcome=Outcome(tap.action, Reason.GAME_OVER)))
                    continue
                outcome = game.apply(tap.action)
                if not outcome.ok:
                    results.append(snapshot_of(record, game, outcome=outcome))
                    continue
                undos = record.undos_used + isinstance(tap.action, Undo)
                status = game.status.value
                writes.append(StateWrite(record.id, record.version, game.to_text(), status, game.score,
                                         game.moves, undos, now))
                name = clean_name(tap.name)
                if name and name != record.owner_name:
                    await stored_players.rename(tx, record.owner_id, name)
                    record = dataclasses.replace(record, owner_name=name)
                record = dataclasses.replace(record, state=writes[-1].state, version=record.version + 1,
                                             status=status, active=status in (PLAYING, BLOCKED),
                                             moves=game.moves, undos_used=undos)
                written.append((record, game))
                results.append(snapshot_of(record, game, outcome=outcome))
            if writes and not await stored_games.write_states(tx, writes):
                # another action committed in between (only possible without the row locks above)
                if len(batch) > 1:
                    raise _Retry()
                reloaded = await stored_games.load(tx, batch[0].game_id)
                raise StaleGame(snapshot_of(reloaded)) if reloaded else GameNotFound(batch[0].game_id)
        for record, game in written:
            self._remember(record, game)
            if record.status != PLAYING and record.verdict_at is None:
                self._schedule_verdict(record.code)
        return results

    def _engine_of(self, record: GameRecord) -> Game:
        """The engine at ``record``'s state: a copy of the one this process last wrote, else read from the text."""
        known = self._engines.get(record.id)
        if known is not None and known[0] == record.state:
            return known[1].copy()
        return Game.from_text(record.state)

    def _remember(self, record: GameRecord, game: Game) -> None:
        engines = self._engines
        engines.pop(record.id, None)
        if record.status in (PLAYING, BLOCKED):
            engines[record.id] = (record.state, game.copy())
            if len(engines) > GAME_CACHE_SIZE:
                del engines[next(iter(engines))]

    # --- reading ----------------------------------------------------------------------------------------------

    async def current_game(self, player: PlayerKey) -> GameSnapshot | None:
        """The player's game in progress (playing, or blocked and so still open to undo), or None."""
        async with self.db.transaction() as tx:
            record = await stored_games.active_of(tx, player.platform, player.user_id)
        return None if record is None else snapshot_of(record)

    async def game(self, game_id: int) -> GameSnapshot:
        """Any game as it stands, whoever owns it (to redraw a board); :class:`GameNotFound` if none."""
        async with self.db.transaction() as tx:
            return snapshot_of(await load_game(tx, game_id))

    async def show_board(self, game_id: int, where: BoardRef) -> None:
        """Note where the game's live board now is (the adapter that sent or moved it says so), so that it can be
        edited when the game is played by name or replaced."""
        async with self.db.transaction() as tx:
            await stored_games.set_board(tx, game_id, where.chat_id, where.message_id)
