"""Games: starting one (random, by code, winnable-only, the daily deal), acting on it from its message, playing a
card by name, hints, and reading a player's current game.

Every method returns a frozen :class:`~bot.app.model.GameSnapshot` only after its transaction has committed, so
whatever an adapter shows a player is on disk.

The version check: every game row has a ``version`` that each applied action (and the end of the game as current)
increments, and a game message carries the version it shows. A tap is checked against the game as stored: the
game exists (else :class:`GameNotFound`), the tapping player owns it (:class:`NotYourGame`) and the version matches
(:class:`StaleGame`, carrying the game as it stands). A refused action (a card that does not fit) writes nothing: the
snapshot's ``outcome`` says why. The new state is written with ``WHERE version = :seen``, so of two actions that
read the same version exactly one applies, on SQLite (``BEGIN IMMEDIATE``) and PostgreSQL (row locks) alike.

Taps go through the :class:`~bot.app.batcher.TapBatcher` (group commit); the engine of each game this process
wrote last is kept, so the next tap skips replaying its stored state when that is unchanged. What the solver says of
a deal from its start (the verdict) is computed in the background once a game starts and stored in its row.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import logging
import secrets
from collections.abc import Callable, Sequence

from bot.app import daily
from bot.app.batcher import TapBatcher
from bot.app.commands import AskHint, GameCommand, Move, NewGame
from bot.app.errors import (
    BadGameCode,
    BadPayload,
    CardNotInPlay,
    GameNotFound,
    NoActiveGame,
    NotACard,
    NotYourGame,
    NoWinnableDeal,
    StaleGame,
)
from bot.app.model import DealVerdict, GameSnapshot, Hint, PlayerKey, Settings
from bot.app.solver_pool import (
    BACKGROUND,
    INTERACTIVE,
    DailyCodeFunction,
    HintFunction,
    SolverPool,
    VerdictFunction,
)
from bot.store import games as stored_games
from bot.store import players as stored_players
from bot.store.engine import Database, Transaction
from bot.store.games import GameRecord, StateWrite
from bot.store.schema import ABANDONED, BLOCKED, PLAYING, WON, utcnow
from core.cards import Card
from core.deal import DEAL_COUNT, GameCode, Rules
from core.errors import TriPeaksError
from core.game import Action, Game, Outcome, Reason, Undo

log = logging.getLogger(__name__)

#: What a hint may take beyond its budget (handing the position to a worker and back) before the tap gives up.
HINT_GRACE = 0.25
#: At most this many verdicts wait for the solver at once; more games start without one being computed early.
MAX_PENDING_VERDICTS = 32
#: How many games' engines a process keeps to skip replaying their stored state on the next tap.
GAME_CACHE_SIZE = 4096
#: The daily deal's search may take this long (it is done once a day and then remembered).
DAILY_CODE_BUDGET = 30.0
_NAME_MAX = 100
_NO_HINT = Hint(None, None, None)

Clock = Callable[[], dt.datetime]


def parse_code(code: str | GameCode) -> GameCode:
    """A game code from a player, or :class:`BadGameCode`."""
    if isinstance(code, GameCode):
        return code
    if not isinstance(code, str):
        raise BadGameCode(repr(code), f"not a game code: {code!r}")
    try:
        return GameCode.parse(code)
    except TriPeaksError as error:
        raise BadGameCode(code, str(error)) from None


def settings_of(language: str | None, explain_refusals: bool, default_rules: str) -> Settings:
    return Settings(language=language, explain_refusals=bool(explain_refusals), default_rules=Rules(default_rules))


def verdict_of(record: GameRecord) -> DealVerdict | None:
    if record.verdict_at is None and record.verdict_winnable is None:
        return None
    return DealVerdict(record.verdict_winnable, record.verdict_best_score)


def snapshot_of(record: GameRecord, game: Game | None = None, *, outcome: Outcome | None = None,
                hint: Hint | None = None) -> GameSnapshot:
    return GameSnapshot(
        game_id=record.id, version=record.version, owner=PlayerKey(record.platform, record.user_id),
        owner_name=record.owner_name, game=game if game is not None else Game.from_text(record.state),
        daily=record.daily, outcome=outcome, hint=hint,
        verdict=verdict_of(record) if record.status in (WON, BLOCKED) else None,
        hints_used=record.hints_used, abandoned=record.status == ABANDONED,
        settings=settings_of(record.language, record.explain_refusals, record.default_rules))


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


class Games:
    """The game use cases; :class:`bot.app.service.GameService` brings them together with the others."""

    db: Database
    solver: SolverPool
    clock: Clock
    daily_code_function: DailyCodeFunction
    hint_budget: float
    verdict_budget: float
    winnable_budget: float

    def _init_games(self, hint_function: HintFunction, verdict_function: VerdictFunction,
                    daily_code_function: DailyCodeFunction) -> None:
        self._hint_function = hint_function
        self._verdict_function = verdict_function
        self.daily_code_function = daily_code_function
        self._daily_codes: dict[dt.date, GameCode] = {}
        self._verdict_jobs: dict[str, asyncio.Task[None]] = {}
        self._closed = False
        self._taps: TapBatcher[_Tap, GameSnapshot] = TapBatcher(self._apply_taps)
        # the engine of games this process wrote last, by id, to skip replaying their state on the next tap
        self._engines: dict[int, tuple[str, Game]] = {}

    async def _close_games(self) -> None:
        self._closed = True
        await self._taps.drain()  # the taps already queued are committed and answered
        jobs = list(self._verdict_jobs.values())
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)

    # --- starting games -------------------------------------------------------------------------------------

    async def new_game(self, player: PlayerKey, name: str, *, code: str | GameCode | None = None,
                       rules: Rules | None = None, winnable: bool = False,
                       chat_id: str | None = None) -> GameSnapshot:
        """Start a game for ``player`` and make it their current one; a game they were still playing ends as
        abandoned.

        - ``code``: that deal (its letter sets the rules; ``rules`` is then ignored); :class:`BadGameCode` if it
          is not a code.
        - otherwise a random deal under ``rules`` (default: the player's default rule set); with ``winnable`` one
          the solver proved winnable (:class:`NoWinnableDeal` if it found none within ``winnable_budget``).
        """
        chosen = parse_code(code) if code is not None else None
        return await self._start(player, name, code=chosen, rules=rules, daily=None,
                                 winnable=winnable and chosen is None, chat_id=chat_id)

    async def new_daily_game(self, player: PlayerKey, name: str, day: dt.date | None = None, *,
                             chat_id: str | None = None, board: str | None = None) -> GameSnapshot:
        """Start the daily deal of ``day`` (today when None) for ``player``. ``board`` is the leaderboard the game
        counts on: the Discord server or Telegram group it is played in, None in a private chat. A day after today
        (by the service's clock) is a tampered request: :class:`BadPayload`."""
        today = self.today()
        if day is None:
            day = today
        elif day > today:
            raise BadPayload(f"daily deal of {day} is in the future")
        return await self._start(player, name, code=await self.daily_code(day), rules=None, daily=day,
                                 winnable=False, chat_id=chat_id, board=board)

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

    async def _start(self, player: PlayerKey, name: str, *, code: GameCode | None, rules: Rules | None,
                     daily: dt.date | None, winnable: bool, chat_id: str | None,
                     replacing: tuple[int, int] | None = None, board: str | None = None) -> GameSnapshot:
        if winnable:
            if rules is None:
                async with self.db.transaction() as tx:
                    found = await stored_players.find(tx, player.platform, player.user_id)
                rules = Rules(found.default_rules) if found is not None else Rules.EASY
            code = await self._winnable_code(rules)
        now = utcnow()
        async with self.db.transaction() as tx:
            # The upsert comes first: on PostgreSQL it locks the player's row, so two new games of one player
            # queue here rather than both ending the same old game.
            owner = await stored_players.upsert(tx, player.platform, player.user_id, _name_change(name), now)
            if replacing is not None:
                await self._load_checked(tx, player, *replacing)
            chosen = code is not None and not winnable
            if code is None:
                code = GameCode(rules or Rules(owner.default_rules), secrets.randbelow(DEAL_COUNT))
            await stored_games.end_active(tx, owner.id, now)
            verdict: tuple[bool | None, int | None, dt.datetime | None] = (True if winnable else None, None, None)
            if chosen:
                # a chosen deal (a daily one above all) may have been solved for someone else already
                verdict = await stored_games.known_verdict(tx, str(code)) or verdict
            game = Game.from_code(code)
            state = game.to_text()
            game_id = await stored_games.insert_game(
                tx, player_id=owner.id, code=str(code), rules=code.rules.value, state=state, version=0,
                status=PLAYING, active=True, score=game.score, moves=game.moves, daily=daily,
                dealt_winnable=winnable, hints_used=0, undos_used=0, started_at=now, updated_at=now,
                finished_at=None, verdict_winnable=verdict[0], verdict_best_score=verdict[1],
                verdict_at=verdict[2], chat_id=chat_id, board=board)
        record = GameRecord(
            id=game_id, code=str(code), rules=code.rules.value, state=state, version=0, status=PLAYING, daily=daily,
            dealt_winnable=winnable, hints_used=0, undos_used=0, verdict_winnable=verdict[0],
            verdict_best_score=verdict[1], verdict_at=verdict[2], chat_id=chat_id, owner_id=owner.id,
            platform=player.platform, user_id=player.user_id, owner_name=owner.display_name,
            language=owner.language, explain_refusals=owner.explain_refusals, default_rules=owner.default_rules)
        if record.verdict_at is None:
            self._schedule_verdict(record.code)
        return snapshot_of(record, game)

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

    async def act(self, player: PlayerKey, name: str, command: GameCommand) -> GameSnapshot:
        """Apply a tap on a game message. A hint or a new game returns that; a move the game as it now stands.

        Raises :class:`GameNotFound`, :class:`NotYourGame` or :class:`StaleGame`. A refused move is not an error:
        the snapshot's ``outcome`` says why, and the version stays.
        """
        match command:
            case AskHint(game_id, version):
                return await self._hint(player, game_id, version)
            case NewGame(game_id, version):
                return await self._new_like(player, name, game_id, version)
            case Move(game_id, version, action):
                return await self._taps.submit(_Tap(player, name, game_id, version, action))
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
        return await self._taps.submit(_Tap(player, name, current.game_id, current.version, Action.parse(str(slot))))

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
                if PlayerKey(record.platform, record.user_id) != tap.player:
                    results.append(NotYourGame(record.owner_name))
                    continue
                if record.version != tap.version:
                    results.append(StaleGame(snapshot_of(record)))
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
                writes.append(StateWrite(record.id, record.version, game.to_text(), game.status.value, game.score,
                                         game.moves, undos, now))
                if tap.name and tap.name[:_NAME_MAX] != record.owner_name:
                    await stored_players.rename(tx, record.owner_id, tap.name[:_NAME_MAX])
                    record = dataclasses.replace(record, owner_name=tap.name[:_NAME_MAX])
                record = dataclasses.replace(record, state=writes[-1].state, version=record.version + 1,
                                             status=writes[-1].status, undos_used=undos)
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

    async def _hint(self, player: PlayerKey, game_id: int, version: int) -> GameSnapshot:
        async with self.db.transaction() as tx:
            record = await self._load_checked(tx, player, game_id, version)
        game = Game.from_text(record.state)
        if record.status == ABANDONED:
            return snapshot_of(record, game, hint=_NO_HINT)
        if record.status == WON:
            return snapshot_of(record, game, hint=Hint(None, True, game.score))
        hint = await self.solver.run(INTERACTIVE, self.hint_budget + HINT_GRACE, self._hint_function, record.state,
                                     self.hint_budget) or _NO_HINT
        if hint.action is None:
            return snapshot_of(record, game, hint=hint)  # nothing to suggest: not counted as a hint used
        async with self.db.transaction() as tx:
            if not await stored_games.count_hint(tx, game_id, version):
                raise StaleGame(await self._reload(tx, game_id))
        return snapshot_of(dataclasses.replace(record, hints_used=record.hints_used + 1), game, hint=hint)

    async def _new_like(self, player: PlayerKey, name: str, game_id: int, version: int) -> GameSnapshot:
        async with self.db.transaction() as tx:
            record = await self._load_checked(tx, player, game_id, version)
        return await self._start(player, name, code=None, rules=Rules(record.rules), daily=None,
                                 winnable=record.dealt_winnable, chat_id=record.chat_id, replacing=(game_id, version))

    # --- reading ----------------------------------------------------------------------------------------------

    async def current_game(self, player: PlayerKey) -> GameSnapshot | None:
        """The player's game in progress (playing, or blocked and so still open to undo), or None."""
        async with self.db.transaction() as tx:
            record = await stored_games.active_of(tx, player.platform, player.user_id)
        return None if record is None else snapshot_of(record)

    async def game(self, game_id: int) -> GameSnapshot:
        """Any game as it stands, whoever owns it (to redraw a message); :class:`GameNotFound` if none."""
        async with self.db.transaction() as tx:
            return await self._reload(tx, game_id)

    async def wait_for_verdict(self, game_id: int, timeout: float | None = None) -> DealVerdict | None:
        """The solver's verdict on the game's deal, waiting up to ``timeout`` seconds for one being computed."""
        async with self.db.transaction() as tx:
            record = await self._load(tx, game_id)
        if record.verdict_at is not None:
            return verdict_of(record)
        job = self._verdict_jobs.get(record.code)
        if job is None:
            self._schedule_verdict(record.code)
            job = self._verdict_jobs.get(record.code)
        if job is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(job), timeout)
        async with self.db.transaction() as tx:
            return verdict_of(await self._load(tx, game_id))

    # --- helpers -------------------------------------------------------------------------------------------------

    async def _load(self, tx: Transaction, game_id: int) -> GameRecord:
        record = await stored_games.load(tx, game_id)
        if record is None:
            raise GameNotFound(game_id)
        return record

    async def _reload(self, tx: Transaction, game_id: int) -> GameSnapshot:
        return snapshot_of(await self._load(tx, game_id))

    async def _load_checked(self, tx: Transaction, player: PlayerKey, game_id: int, version: int) -> GameRecord:
        record = await self._load(tx, game_id)
        if PlayerKey(record.platform, record.user_id) != player:
            raise NotYourGame(record.owner_name)
        if record.version != version:
            raise StaleGame(snapshot_of(record))
        return record

    def _schedule_verdict(self, code: str) -> None:
        if self._closed or code in self._verdict_jobs or len(self._verdict_jobs) >= MAX_PENDING_VERDICTS:
            return
        job = asyncio.get_running_loop().create_task(self._compute_verdict(code))
        self._verdict_jobs[code] = job
        job.add_done_callback(lambda _: self._verdict_jobs.pop(code, None))

    async def _compute_verdict(self, code: str) -> None:
        """Solve the deal ``code`` from its start and store the verdict in every game of it still without one."""
        verdict = await self.solver.run(BACKGROUND, self.verdict_budget * 2 + 5, self._verdict_function, code,
                                        self.verdict_budget, True)
        if verdict is None:
            return
        try:
            async with self.db.transaction() as tx:
                await stored_games.store_verdict(tx, code, verdict.winnable, verdict.best_score, utcnow())
        except Exception:
            log.exception("could not store the verdict on %s", code)


def _name_change(name: str) -> dict[str, object]:
    return {"display_name": name[:_NAME_MAX]} if name else {}
