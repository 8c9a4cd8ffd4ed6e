"""Games: starting one (random, by code, winnable-only, the daily deal, a replay), acting on it from its board,
playing a card by name, and reading a player's games.

Every method returns a frozen :class:`~bot.app.model.GameSnapshot` only after its transaction has committed, so
whatever an adapter shows a player is on disk.

Taps and versions: every game row has a ``version`` that each applied action (and the end of the game as current)
increments, and a board carries the version it shows. A card tapped on any board of the player's current game
applies when it is legal now (two quick taps from one keyboard both apply); Draw, Undo, Hint and New game must
come from the board as it stands (:class:`StaleGame` otherwise, with the game as it stands), so a double tap applies
once. A tap on the board of a game that is no longer the player's latest raises :class:`NotCurrentGame`: the
board never turns into another game. The new state is written with ``WHERE version = :seen``, so of two actions
that read the same version exactly one applies, on SQLite (``BEGIN IMMEDIATE``) and PostgreSQL (row locks) alike.

Starting a game abandons the player's game in progress; with ``ask`` a game with at least one move is not
abandoned without the player's confirmation (:class:`ConfirmAbandon`), and a confirmed start names the game it
abandons, which must still be the player's latest (so a double tap of Yes starts one game).
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime as dt
import secrets
from collections.abc import Callable, Sequence

from bot.app import daily
from bot.app.batcher import TapBatcher
from bot.app.commands import (
    AskHint,
    ConfirmStart,
    DailyDeal,
    DealByCode,
    GameCommand,
    Move,
    NewGame,
    RandomDeal,
    Replay,
    Review,
    Share,
    StartRequest,
)
from bot.app.errors import (
    BadPayload,
    CardNotInPlay,
    ConfirmAbandon,
    DailyCodeLocked,
    GameNotFound,
    NoActiveGame,
    NotACard,
    NotCurrentGame,
    NotYourGame,
    NoWinnableDeal,
    StaleGame,
)
from bot.app.model import BoardRef, GameSnapshot, PlayerKey
from bot.app.records import (
    load_checked,
    load_game,
    load_owned,
    owner_of,
    parse_code,
    snapshot_of,
    stale_error,
)
from bot.app.solver_pool import INTERACTIVE, DailyCodeFunction, SolverPool
from bot.app.solving import Solving
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store.engine import Database
from bot.store.games import GameRecord, StateWrite
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, utcnow
from core.cards import Card
from core.deal import DEAL_COUNT, GameCode, Rules
from core.errors import TriPeaksError
from core.game import Action, Game, Outcome, Reason, Tap, Undo

#: How many games' engines a process keeps to skip replaying their stored state on the next tap.
GAME_CACHE_SIZE = 4096
#: The daily deal's search may take this long (it is done once a day and then remembered).
DAILY_CODE_BUDGET = 30.0
_NAME_MAX = 100

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


class Games(Solving):
    """The game use cases; :class:`bot.app.service.GameService` brings them together with the others."""

    db: Database
    solver: SolverPool
    clock: Clock
    daily_code_function: DailyCodeFunction
    winnable_budget: float

    def _init_games(self) -> None:
        self._daily_codes: dict[dt.date, GameCode] = {}
        self._taps: TapBatcher[_Tap, GameSnapshot] = TapBatcher(self._apply_taps)
        # the engine of games this process wrote last, by id, to skip replaying their state on the next tap
        self._engines: dict[int, tuple[str, Game]] = {}

    # --- starting games -------------------------------------------------------------------------------------

    async def start(self, player: PlayerKey, name: str, request: StartRequest | ConfirmStart, *,
                    chat_id: str | None = None, board: str | None = None, ask: bool = True) -> GameSnapshot:
        """Start what the player asked for (a random deal, a code, the daily deal), or what they confirmed."""
        abandoning = None
        if isinstance(request, ConfirmStart):
            abandoning, request = request.abandon, request.request
            async with self.db.transaction() as tx:
                await load_owned(tx, player, abandoning)  # a Yes is for the player who was asked
        match request:
            case RandomDeal(rules, winnable):
                return await self.new_game(player, name, rules=rules, winnable=winnable, chat_id=chat_id, ask=ask,
                                           abandoning=abandoning)
            case DealByCode(code):
                return await self.new_game(player, name, code=code, chat_id=chat_id, ask=ask, abandoning=abandoning)
            case DailyDeal(day):
                return await self.new_daily_game(player, name, day, chat_id=chat_id, board=board, ask=ask,
                                                 abandoning=abandoning)
        raise BadPayload(f"not a start request: {request!r}")

    async def new_game(self, player: PlayerKey, name: str, *, code: str | GameCode | None = None,
                       rules: Rules | None = None, winnable: bool | None = None, chat_id: str | None = None,
                       ask: bool = False, abandoning: int | None = None) -> GameSnapshot:
        """Start a game for ``player`` and make it their current one; their game in progress ends as abandoned
        (with ``ask``, a game with moves only when ``abandoning`` names it: else :class:`ConfirmAbandon`).

        - ``code``: that deal (its letter sets the rules); :class:`BadGameCode` if it is not a code, and
          :class:`DailyCodeLocked` for the code of a recent daily deal whose attempt the player has not ended.
        - otherwise a random deal under ``rules`` (default: the player's default rule set), winnable-only when
          ``winnable`` says so (default: the player's setting; :class:`NoWinnableDeal` if none was proved
          winnable within ``winnable_budget``).
        """
        chosen = parse_code(code) if code is not None else None
        if chosen is not None:
            await self._check_daily_lock(player, chosen)
        request = DealByCode(str(chosen)) if chosen is not None else RandomDeal(rules, winnable)
        return await self._start(player, name, code=chosen, rules=rules, daily=None, winnable=winnable,
                                 chat_id=chat_id, ask=ask, abandoning=abandoning, confirmed=abandoning is not None,
                                 request=request)

    async def new_daily_game(self, player: PlayerKey, name: str, day: dt.date | None = None, *,
                             chat_id: str | None = None, board: str | None = None, ask: bool = False,
                             abandoning: int | None = None) -> GameSnapshot:
        """The player's attempt at the daily deal of ``day`` (today when None): started the first time, resumed
        while it is open, and once it has ended a replay that ranks nowhere. ``board`` is the leaderboard the
        attempt counts on (a Discord server or Telegram group; None in a private chat). A day after today (by the
        service's clock) is a tampered request: :class:`BadPayload`."""
        today = self.today()
        if day is None:
            day = today
        elif day > today:
            raise BadPayload(f"daily deal of {day} is in the future")
        code = await self.daily_code(day)
        async with self.db.transaction() as tx:
            attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
        if attempt is not None and attempt.active:
            return snapshot_of(attempt)  # resumed: restarting the attempt is not allowed
        return await self._start(player, name, code=code, rules=None, daily=None if attempt else day,
                                 winnable=False, chat_id=chat_id, board=board, ask=ask, abandoning=abandoning,
                                 confirmed=abandoning is not None, request=DailyDeal(day))

    def today(self) -> dt.date:
        """Today's date (UTC) by the service's clock: the day of the daily deal."""
        return daily.today(self.clock())

    async def daily_code(self, day: dt.date) -> GameCode:
        """The daily deal of ``day``, searched for in the solver pool the first time and remembered."""
        code = self._daily_codes.get(day)
        if code is None:
            code = await self.solver.run(INTERACTIVE, DAILY_CODE_BUDGET, self.daily_code_function, day)
            if code is None:
                raise NoWinnableDeal(f"the daily deal of {day} could not be found in time")
            self._daily_codes[day] = code
        return code

    async def _check_daily_lock(self, player: PlayerKey, code: GameCode) -> None:
        """Today's or yesterday's daily deal is no practice game until the player's attempt at it has ended."""
        if code.rules is not Rules.EASY:
            return
        today = self.today()
        for day in (today, today - dt.timedelta(days=1)):
            if await self.daily_code(day) == code:
                async with self.db.transaction() as tx:
                    attempt = await stored_games.daily_attempt(tx, player.platform, player.user_id, day)
                if attempt is None or attempt.active:
                    raise DailyCodeLocked(day)

    async def _start(self, player: PlayerKey, name: str, *, code: GameCode | None, rules: Rules | None,
                     daily: dt.date | None, winnable: bool | None, chat_id: str | None, ask: bool,
                     abandoning: int | None, board: str | None = None, confirmed: bool = False,
                     request: StartRequest | None = None) -> GameSnapshot:
        """Start a game. ``abandoning`` names the game this start replaces, which must still be the player's
        latest (so a double tap starts one game); with ``ask`` a game being played with moves is only abandoned
        when ``confirmed`` (else :class:`ConfirmAbandon`, carrying ``request`` for the question's Yes)."""

        def must_ask(latest: GameRecord | None) -> bool:
            return (ask and latest is not None and latest.status == PLAYING and latest.moves > 0
                    and not (confirmed and latest.id == abandoning))

        async with self.db.transaction() as tx:  # asked before any search for a winnable deal
            latest = await stored_games.latest_of(tx, player.platform, player.user_id)
        if must_ask(latest):
            assert latest is not None
            raise ConfirmAbandon(snapshot_of(latest), request)
        if code is None:
            async with self.db.transaction() as tx:
                found = await stored_players.find(tx, player.platform, player.user_id)
            rules = rules or (Rules(found.default_rules) if found is not None else Rules.EASY)
            if winnable is None:
                winnable = (found.winnable_only if found is not None and found.winnable_only is not None
                            else rules is Rules.CLASSIC)
            if winnable:
                code = await self._winnable_code(rules)
        else:
            winnable = False
        now = utcnow()
        async with self.db.transaction() as tx:
            # The upsert comes first: on PostgreSQL it locks the player's row, so two new games of one player
            # queue here rather than both ending the same old game.
            owner = await stored_players.upsert(tx, player.platform, player.user_id, _name_change(name), now)
            latest = await stored_games.latest_of(tx, player.platform, player.user_id)
            if abandoning is not None and (latest is None or latest.id != abandoning):
                raise NotCurrentGame(snapshot_of(latest) if latest is not None else None)
            if must_ask(latest):
                assert latest is not None
                raise ConfirmAbandon(snapshot_of(latest), request)
            chosen = code is not None and not winnable
            if code is None:
                code = GameCode(rules or Rules(owner.default_rules), secrets.randbelow(DEAL_COUNT))
            await stored_games.end_active(tx, owner.id, now)
            replaced = None
            if latest is not None:
                replaced = await stored_games.load(tx, latest.id)
            verdict: tuple[bool | None, int | None, dt.datetime | None] = (True if winnable else None, None, None)
            if chosen:
                # a chosen deal (a daily one above all) may have been solved for someone else already
                verdict = await stored_games.known_verdict(tx, str(code)) or verdict
            game = Game.from_code(code)
            state = game.to_text()
            game_id = await stored_games.insert_game(
                tx, player_id=owner.id, code=str(code), rules=code.rules.value, state=state, version=0,
                status=PLAYING, active=True, score=game.score, moves=game.moves, daily=daily,
                dealt_winnable=bool(winnable), hints_used=0, undos_used=0, started_at=now, updated_at=now,
                finished_at=None, verdict_winnable=verdict[0], verdict_best_score=verdict[1],
                verdict_at=verdict[2], chat_id=chat_id, board=board)
        record = GameRecord(
            id=game_id, code=str(code), rules=code.rules.value, state=state, version=0, status=PLAYING,
            active=True, moves=0, daily=daily, dealt_winnable=bool(winnable), hints_used=0, undos_used=0,
            verdict_winnable=verdict[0], verdict_best_score=verdict[1], verdict_at=verdict[2], chat_id=chat_id,
            message_id=None, owner_id=owner.id, platform=player.platform, user_id=player.user_id,
            owner_name=owner.display_name, language=owner.language, explain_refusals=owner.explain_refusals,
            default_rules=owner.default_rules, winnable_only=owner.winnable_only)
        if record.verdict_at is None:
            self._schedule_verdict(record.code)
        return snapshot_of(record, game, replaced=snapshot_of(replaced) if replaced is not None else None)

    async def _winnable_code(self, rules: Rules) -> GameCode:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.winnable_budget
        while (remaining := deadline - loop.time()) > 0:
            code = GameCode(rules, secrets.randbelow(DEAL_COUNT))
            verdict = await self.solver.run(INTERACTIVE, remaining, self._verdict_function, str(code), remaining,
                                            False)
            if verdict is not None and verdict.winnable:
                return code
        raise NoWinnableDeal(f"no {rules.value} deal proved winnable within {self.winnable_budget:g} s")

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
                if tap.name and tap.name[:_NAME_MAX] != record.owner_name:
                    await stored_players.rename(tx, record.owner_id, tap.name[:_NAME_MAX])
                    record = dataclasses.replace(record, owner_name=tap.name[:_NAME_MAX])
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

    async def keep_playing(self, player: PlayerKey, game_id: int) -> GameSnapshot:
        """No on "abandon your game in progress?": the game goes on (:class:`NotYourGame` for anyone else)."""
        async with self.db.transaction() as tx:
            return snapshot_of(await load_owned(tx, player, game_id))

    async def show_board(self, game_id: int, where: BoardRef) -> None:
        """Note where the game's live board now is (the adapter that sent or moved it says so), so that it can be
        edited when the game is played by name or replaced."""
        async with self.db.transaction() as tx:
            await stored_games.set_board(tx, game_id, where.chat_id, where.message_id)

def _name_change(name: str) -> dict[str, object]:
    return {"display_name": name[:_NAME_MAX]} if name else {}
