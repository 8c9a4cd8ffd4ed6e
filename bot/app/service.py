"""The game service: how every adapter (Discord, Telegram, the console) starts, plays, resumes and counts games.

Every public method is a coroutine that runs one database transaction (a hint runs two, around the solver) and
returns frozen values from :mod:`bot.app.model`. A result is returned only after its transaction has committed, so
whatever an adapter shows a player is on disk.

The version check
-----------------
Every game row has a ``version`` that each applied action (and the abandonment of the game) increments; a game
message carries the version it shows. An action:

1. reads the game row joined with its owner (one SELECT), and checks that the game exists (else
   :class:`GameNotFound`), that the tapping player owns it (else :class:`NotYourGame`) and that the version matches
   (else :class:`StaleGame`, carrying the game as it stands, for the adapter to refresh the message);
2. applies the action to the engine. A refused action (a card that does not fit) writes nothing: the snapshot's
   ``outcome`` says why and the version stays;
3. writes the new state with ``UPDATE games ... SET version = version + 1 WHERE id = :id AND version = :seen``
   and commits. If that updates no row, another action committed in between: nothing is written and the caller
   gets :class:`StaleGame`.

On PostgreSQL (read committed) the UPDATE of a second, racing transaction waits for the first one's row lock and
then re-checks its WHERE against the committed row, so of two actions that read the same version exactly one
applies. On SQLite every transaction starts with ``BEGIN IMMEDIATE`` (see :mod:`bot.store.engine`), which serialises
whole transactions across processes; inside one process an ``asyncio.Lock`` queues them first, so they wait their
turn in order instead of polling SQLite's lock. Either way no two actions are ever applied to the same old state.

Group commit
------------
Taps (cards, draw, undo) are committed in batches: each tap joins a queue, and one task of the process takes
every tap queued while the previous batch was committing into one transaction: one SELECT of their games (on
PostgreSQL ``FOR UPDATE``, in id order, so the versions it reads stay until the commit), the checks and the engine
as above, tap by tap, one UPDATE statement with a parameter set per applied action (each still ``WHERE version =
:seen``), and one commit, after which every tap of the batch is answered. A batch holds at most one tap a game (a
second one waits for the next batch, so it is checked against the first one's committed version), and a batch that
fails is retried one transaction a tap, so one bad tap fails alone. At a light load a batch is a single tap; under
load, one commit (one ``fsync`` on SQLite) serves many taps, which is what lets a process answer several hundred
taps a second (``bench/load.py``). The engine of each game a process wrote last is kept, so the next tap on it
skips replaying its stored state when that is unchanged.

The solver
----------
Hints and verdicts are CPU-bound, so they run outside the event loop and outside any transaction: in worker
processes by default (a thread would hold the GIL the event loop needs), each with a time budget. A hint is
answered within about a second whatever the solver does. What the solver says of a deal from its start (the
verdict: winnable or not, and the best possible score) is computed in the background as soon as a game starts and
stored in the game's row when known, so the tap that ends a game never waits for it; the snapshot of an ended game
carries it once it is known, and :meth:`GameService.wait_for_verdict` waits for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import importlib
import logging
import multiprocessing
import re
import secrets
from collections.abc import AsyncIterator, Callable, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, cast

from sqlalchemy import CursorResult, Row, Select, bindparam, case, func, insert, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from bot.app.codec import HINT, NEW_GAME
from bot.app.errors import (
    BadGameCode,
    BadPayload,
    BotError,
    GameNotFound,
    NotYourGame,
    NoWinnableDeal,
    StaleGame,
)
from bot.app.model import DealVerdict, GameSnapshot, Hint, PlayerKey, Settings, Stats
from bot.store.database import open_database
from bot.store.engine import Database
from bot.store.schema import (
    ABANDONED,
    BLOCKED,
    PLAYING,
    POST_CLAIMED,
    POST_FAILED,
    POST_SENT,
    WON,
    daily_posts,
    daily_subscriptions,
    games,
    players,
    utcnow,
)
from core import solver
from core.deal import DEAL_COUNT, GameCode, Rules
from core.errors import TriPeaksError
from core.game import Action, Game, Outcome, Reason

log = logging.getLogger(__name__)

#: What a hint may take beyond its budget (handing the position to a worker and back) before the tap gives up.
HINT_GRACE = 0.25
#: At most this many verdicts wait for the solver at once; more games start without one being computed early.
MAX_PENDING_VERDICTS = 32
#: At most this many taps are committed in one transaction.
MAX_BATCH = 64
#: How many games' engines a process keeps to skip replaying their stored state on the next tap.
GAME_CACHE_SIZE = 4096

_COMMAND_RE = re.compile(r"^(?:\d{1,2}|[dunh])$")
_LANGUAGE_RE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8}){0,2}$")
_NO_HINT = Hint(None, None, None)


# --- the solver, behind two small functions run in a worker -------------------------------------------------------

def solver_hint(state: str, budget: float) -> Hint:
    """The solver's next move for the position ``state`` (``Game.to_text()``), searched for ``budget`` seconds."""
    found = solver.hint(Game.from_text(state), time_budget=budget)
    return Hint(found.action, found.winnable, found.best_score)


def solver_verdict(code: str, budget: float, best: bool) -> DealVerdict:
    """Whether the deal ``code`` can be won from its start and, when ``best``, its best possible score."""
    solution = solver.solve(Game.from_code(code), best=best, time_budget=budget)
    return DealVerdict(solution.winnable, solution.best_score if best and solution.winnable else None)


HintFunction = Callable[[str, float], Hint]
VerdictFunction = Callable[[str, float, bool], DealVerdict]


def _warm_up() -> None:
    """Run in a new worker so the first real request does not pay for starting it and importing the solver."""


# --- rows read with a game ----------------------------------------------------------------------------------------

_SELECT_GAME: Select[Any] = select(
    games.c.id, games.c.code, games.c.rules, games.c.state, games.c.version, games.c.status, games.c.daily,
    games.c.dealt_winnable, games.c.hints_used, games.c.verdict_winnable, games.c.verdict_best_score,
    games.c.verdict_at, games.c.chat_id, players.c.id.label("owner_id"), players.c.platform, players.c.user_id,
    players.c.display_name, players.c.language, players.c.explain_refusals, players.c.default_rules,
).join_from(games, players, games.c.player_id == players.c.id)


def _settings(row: Any) -> Settings:
    return Settings(language=row.language, explain_refusals=bool(row.explain_refusals),
                    default_rules=Rules(row.default_rules))


@dataclasses.dataclass(frozen=True)
class _Record:
    """A game row as read (or as just written)."""

    id: int
    code: str
    rules: Rules
    state: str
    version: int
    status: str
    daily: dt.date | None
    dealt_winnable: bool
    hints_used: int
    verdict_winnable: bool | None
    verdict_best_score: int | None
    verdict_at: dt.datetime | None
    chat_id: str | None
    owner_id: int
    owner: PlayerKey
    owner_name: str
    settings: Settings

    @classmethod
    def from_row(cls, row: Row[Any]) -> _Record:
        return cls(
            id=row.id, code=row.code, rules=Rules(row.rules), state=row.state, version=row.version,
            status=row.status, daily=row.daily, dealt_winnable=bool(row.dealt_winnable), hints_used=row.hints_used,
            verdict_winnable=row.verdict_winnable, verdict_best_score=row.verdict_best_score,
            verdict_at=row.verdict_at, chat_id=row.chat_id, owner_id=row.owner_id,
            owner=PlayerKey(row.platform, row.user_id), owner_name=row.display_name, settings=_settings(row),
        )

    def verdict(self) -> DealVerdict | None:
        if self.verdict_at is None and self.verdict_winnable is None:
            return None
        return DealVerdict(self.verdict_winnable, self.verdict_best_score)

    def snapshot(self, game: Game | None = None, *, outcome: Outcome | None = None,
                 hint: Hint | None = None) -> GameSnapshot:
        return GameSnapshot(
            game_id=self.id,
            version=self.version,
            owner=self.owner,
            owner_name=self.owner_name,
            game=game if game is not None else Game.from_text(self.state),
            daily=self.daily,
            outcome=outcome,
            hint=hint,
            verdict=self.verdict() if self.status in (WON, BLOCKED) else None,
            hints_used=self.hints_used,
            abandoned=self.status == ABANDONED,
            settings=self.settings,
        )


def _rowcount(result: Any) -> int:
    return cast(CursorResult[Any], result).rowcount


#: One statement for every action of a batch: each row written only if it is still at the version read.
_UPDATE_GAME = (
    update(games)
    .where(games.c.id == bindparam("b_id"), games.c.version == bindparam("b_version"))
    .values(state=bindparam("state"), version=bindparam("version"), status=bindparam("status"),
            active=bindparam("active"), score=bindparam("score"), moves=bindparam("moves"),
            updated_at=bindparam("updated_at"), finished_at=bindparam("finished_at"))
)


@dataclasses.dataclass
class _Tap:
    """A tap waiting for its batch."""

    player: PlayerKey
    name: str
    game_id: int
    version: int
    action: Action
    future: asyncio.Future[GameSnapshot] | None = None


class _Retry(Exception):
    """A batch met a row changed under it: its taps are retried one transaction each."""


def _aware(moment: dt.datetime) -> dt.datetime:
    """SQLite returns stored times without their zone; they are UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=dt.UTC)


# --- checking input ---------------------------------------------------------------------------------------------

def _check_ids(game_id: object, version: object) -> None:
    for name, value in (("game id", game_id), ("version", version)):
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**62:
            raise BadPayload(f"bad {name}: {value!r}")


def _check_command(command: object) -> str:
    if not isinstance(command, str) or not _COMMAND_RE.match(command) or (command.isdigit() and int(command) > 27):
        raise BadPayload(f"not a game command: {command!r}")
    return command


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


def _check_settings(changes: Mapping[str, object]) -> dict[str, object]:
    """Column values for validated setting changes."""
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
    return values


# --- the service ---------------------------------------------------------------------------------------------------

class GameService:
    """Games and settings of every player, in one database; see the module docstring for how actions are checked.

    ``executor`` runs the solver (default: two single-worker process pools, one for hints and winnable deals, one
    for background verdicts). ``hint_function`` and ``verdict_function`` are the calls into the solver (module-level
    functions, so a process pool can run them).
    """

    def __init__(
        self,
        db: Database,
        *,
        hint_budget: float = 0.8,
        verdict_budget: float = 5.0,
        winnable_budget: float = 3.0,
        executor: Executor | None = None,
        hint_function: HintFunction = solver_hint,
        verdict_function: VerdictFunction = solver_verdict,
        owns_database: bool = False,
    ) -> None:
        self.db = db
        self._sessions = db.sessions
        self._upsert_dialect = db.engine.dialect.name
        # SQLite: transactions of this process queue here before BEGIN IMMEDIATE (see the module docstring)
        self._lock = asyncio.Lock() if db.is_sqlite else None
        self.hint_budget = hint_budget
        self.verdict_budget = verdict_budget
        self.winnable_budget = winnable_budget
        self._executor = executor
        self._pools: dict[str, ProcessPoolExecutor] = {}
        self._hint_function = hint_function
        self._verdict_function = verdict_function
        self._owns_database = owns_database
        self._verdict_jobs: dict[str, asyncio.Task[None]] = {}
        self._closed = False
        # group commit of taps (see _commit_taps)
        self._taps: list[_Tap] = []
        self._committer: asyncio.Task[None] | None = None
        self._sane_multi_rowcount = db.engine.dialect.supports_sane_multi_rowcount
        # the engine of games this process wrote last, by id, to skip replaying their state on the next tap
        self._games: dict[int, tuple[str, Game]] = {}

    @classmethod
    async def open(cls, url: str | None = None, **options: Any) -> GameService:
        """Open the database at ``url`` (``DATABASE_URL``, else the default SQLite file), upgrading it to the
        latest schema first; :meth:`close` closes it."""
        db = await open_database(url)
        service = cls(db, owns_database=True, **options)
        if service._executor is None:
            for purpose in ("hint", "verdict"):
                service._pool(purpose).submit(_warm_up)
        return service

    async def close(self) -> None:
        """Stop background verdicts, the solver workers and (when opened by :meth:`open`) the database."""
        self._closed = True
        if self._committer is not None:  # the taps already queued are committed and answered
            await asyncio.gather(self._committer, return_exceptions=True)
        jobs = list(self._verdict_jobs.values())
        for job in jobs:
            job.cancel()
        await asyncio.gather(*jobs, return_exceptions=True)
        for pool in self._pools.values():
            pool.shutdown(wait=False, cancel_futures=True)
        self._pools.clear()
        if self._owns_database:
            await self.db.close()

    async def __aenter__(self) -> GameService:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # --- starting games -------------------------------------------------------------------------------------

    async def new_game(
        self,
        player: PlayerKey,
        name: str,
        *,
        code: str | GameCode | None = None,
        rules: Rules | None = None,
        daily: dt.date | None = None,
        winnable: bool = False,
        chat_id: str | None = None,
    ) -> GameSnapshot:
        """Start a game for ``player`` and make it their current one; a game they were still playing ends as
        abandoned.

        - ``code``: that deal (its letter sets the rules; ``rules`` is then ignored); :class:`BadGameCode` if it
          is not a code.
        - otherwise a random deal under ``rules`` (default: the player's default rule set); with ``winnable`` one
          the solver proved winnable (:class:`NoWinnableDeal` if it found none within ``winnable_budget``).
        - ``daily``: marks the game as that day's daily deal; the caller passes the day's ``code`` with it.
        """
        if daily is not None and code is None:
            raise ValueError("a daily game needs the day's code")
        chosen = parse_code(code) if code is not None else None
        return await self._start(player, name, code=chosen, rules=rules, daily=daily,
                                 winnable=winnable and chosen is None, chat_id=chat_id)

    async def _start(
        self,
        player: PlayerKey,
        name: str,
        *,
        code: GameCode | None,
        rules: Rules | None,
        daily: dt.date | None,
        winnable: bool,
        chat_id: str | None,
        replacing: tuple[int, int] | None = None,
        board: str | None = None,
    ) -> GameSnapshot:
        if winnable:
            if rules is None:
                rules = (await self.get_settings(player)).default_rules
            code = await self._winnable_code(rules)
        async with self._transaction() as session:
            # The upsert comes first: on PostgreSQL it locks the player's row, so two new games of one player
            # queue here rather than both ending the same old game.
            owner_id, owner_name, settings = await self._upsert_player(session, player, name)
            if replacing is not None:
                await self._load_checked(session, player, *replacing)
            chosen = code is not None and not winnable
            if code is None:
                code = GameCode(rules or settings.default_rules, secrets.randbelow(DEAL_COUNT))
            now = utcnow()
            await session.execute(
                update(games)
                .where(games.c.player_id == owner_id, games.c.active == true())
                .values(active=False, version=games.c.version + 1, updated_at=now,
                        status=case((games.c.status == PLAYING, ABANDONED), else_=games.c.status),
                        finished_at=func.coalesce(games.c.finished_at, now)))
            verdict: tuple[bool | None, int | None, dt.datetime | None] = (True if winnable else None, None, None)
            if chosen:
                # a chosen deal (a daily one above all) may have been solved for someone else already
                known = (await session.execute(
                    select(games.c.verdict_winnable, games.c.verdict_best_score, games.c.verdict_at)
                    .where(games.c.code == str(code), games.c.verdict_at.is_not(None)).limit(1))).first()
                if known is not None:
                    verdict = (known.verdict_winnable, known.verdict_best_score, known.verdict_at)
            game = Game.from_code(code)
            state = game.to_text()
            game_id = (await session.execute(
                insert(games).values(
                    player_id=owner_id, code=str(code), rules=code.rules.value, state=state, version=0,
                    status=PLAYING, active=True, score=game.score, moves=game.moves, daily=daily,
                    dealt_winnable=winnable, hints_used=0, started_at=now, updated_at=now, finished_at=None,
                    verdict_winnable=verdict[0], verdict_best_score=verdict[1], verdict_at=verdict[2],
                    chat_id=chat_id, board=board,
                ).returning(games.c.id))).scalar_one()
        record = _Record(
            id=game_id, code=str(code), rules=code.rules, state=state, version=0, status=PLAYING, daily=daily,
            dealt_winnable=winnable, hints_used=0, verdict_winnable=verdict[0], verdict_best_score=verdict[1],
            verdict_at=verdict[2], chat_id=chat_id, owner_id=owner_id, owner=player, owner_name=owner_name,
            settings=settings)
        if record.verdict_at is None:
            self._schedule_verdict(record.code)
        return record.snapshot(game)

    async def new_daily_game(self, player: PlayerKey, name: str, day: dt.date, *, chat_id: str | None = None,
                             board: str | None = None) -> GameSnapshot:
        """Start the daily deal of ``day`` for ``player`` (the adapters' one way to do it). ``board`` is the
        leaderboard the game counts on: the Discord server or Telegram group it is played in, None in a private
        chat. Only the player's first finished attempt of a day counts (see :mod:`bot.app.daily`)."""
        daily = importlib.import_module("bot.app.daily")
        # the first request of a day runs the solver to pick the deal: a thread keeps the event loop answering
        code = await asyncio.get_running_loop().run_in_executor(None, daily.daily_code, day)
        return await self._start(player, name, code=parse_code(code), rules=None, daily=day, winnable=False,
                                 chat_id=chat_id, board=board)

    async def daily_leaderboard(self, platform: str, board: str, day: dt.date) -> list[Any]:
        """The ranked :class:`bot.app.daily.DailyResult` of every player whose first finished attempt at ``day``'s deal
        was played on ``board`` (a Discord server or Telegram group of ``platform``)."""
        from bot.app.daily import DailyResult, first_finished, rank

        async with self._transaction() as session:
            rows = (await session.execute(
                select(players.c.id.label("player_id"), players.c.display_name, players.c.user_id, games.c.board,
                       games.c.status, games.c.score, games.c.moves, games.c.hints_used, games.c.started_at,
                       games.c.finished_at)
                .join_from(games, players, games.c.player_id == players.c.id)
                .where(players.c.platform == platform, games.c.daily == day, games.c.status.in_((WON, BLOCKED)),
                       games.c.finished_at.is_not(None))
                .order_by(games.c.finished_at, games.c.id))).all()
        found = [(row.player_id, DailyResult(
            name=row.display_name, user_id=row.user_id, score=row.score, moves=row.moves, won=row.status == WON,
            hinted=row.hints_used > 0, seconds=(_aware(row.finished_at) - _aware(row.started_at)).total_seconds(),
            finished_at=_aware(row.finished_at)), row.board) for row in rows]
        return rank([result for result, where in first_finished(found).values() if where == board])

    # --- daily posts -------------------------------------------------------------------------------------------

    async def subscribe(self, platform: str, channel_id: str, *, board: str | None, locale: str,
                        by: str = "") -> bool:
        """Have the daily deal posted to ``channel_id`` in ``locale``; False if it already was (its language is
        then updated)."""
        async with self._transaction() as session:
            where = (daily_subscriptions.c.platform == platform, daily_subscriptions.c.channel_id == channel_id)
            found = (await session.execute(select(daily_subscriptions.c.id).where(*where))).first()
            if found is not None:
                await session.execute(update(daily_subscriptions).where(*where).values(locale=locale, board=board))
                return False
            await session.execute(insert(daily_subscriptions).values(
                platform=platform, channel_id=channel_id, board=board, locale=locale, created_by=by,
                created_at=utcnow()))
        return True

    async def unsubscribe(self, platform: str, channel_id: str) -> bool:
        """Stop the daily posts to ``channel_id``; False if it was not subscribed."""
        async with self._transaction() as session:
            result = await session.execute(daily_subscriptions.delete().where(
                daily_subscriptions.c.platform == platform, daily_subscriptions.c.channel_id == channel_id))
        return _rowcount(result) > 0

    async def daily_subscriptions(self, platforms: tuple[str, ...] | None = None) -> list[Any]:
        """Every :class:`bot.app.daily.Subscription` (of ``platforms``, when given), oldest first."""
        from bot.app.daily import Subscription

        query = select(daily_subscriptions).order_by(daily_subscriptions.c.id)
        if platforms is not None:
            query = query.where(daily_subscriptions.c.platform.in_(platforms))
        async with self._transaction() as session:
            rows = (await session.execute(query)).all()
        return [Subscription(row.id, row.platform, row.channel_id, row.board, row.locale) for row in rows]

    async def unsent_daily_posts(self, day: dt.date, platforms: tuple[str, ...]) -> list[Any]:
        """The subscriptions of ``platforms`` with no post of ``day`` sent or given up."""
        from bot.app.daily import Subscription

        done = select(daily_posts.c.subscription_id).where(daily_posts.c.day == day,
                                                           daily_posts.c.status != POST_CLAIMED)
        async with self._transaction() as session:
            rows = (await session.execute(
                select(daily_subscriptions)
                .where(daily_subscriptions.c.platform.in_(platforms), daily_subscriptions.c.id.not_in(done))
                .order_by(daily_subscriptions.c.id))).all()
        return [Subscription(row.id, row.platform, row.channel_id, row.board, row.locale) for row in rows]

    async def claim_daily_post(self, subscription_id: int, day: dt.date, now: dt.datetime,
                               lease: dt.timedelta) -> bool:
        """Claim the post of ``day`` to a subscription before sending it: True for the one caller that may send
        it. A claim older than ``lease`` that was never marked sent (its process died) can be claimed again."""
        async with self._transaction() as session:
            values = {"subscription_id": subscription_id, "day": day, "status": POST_CLAIMED, "claimed_at": now}
            if self._upsert_dialect in ("postgresql", "sqlite"):
                dialect = importlib.import_module(f"sqlalchemy.dialects.{self._upsert_dialect}")
                statement = dialect.insert(daily_posts).values(**values).on_conflict_do_nothing(
                    index_elements=[daily_posts.c.subscription_id, daily_posts.c.day])
                if _rowcount(await session.execute(statement)) == 1:
                    return True
            else:
                exists = (await session.execute(select(daily_posts.c.id).where(
                    daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day))).first()
                if exists is None:
                    await session.execute(insert(daily_posts).values(**values))
                    return True
            stale = await session.execute(
                update(daily_posts)
                .where(daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day,
                       daily_posts.c.status == POST_CLAIMED, daily_posts.c.claimed_at < now - lease)
                .values(claimed_at=now))
            return _rowcount(stale) == 1

    async def finish_daily_post(self, subscription_id: int, day: dt.date, now: dt.datetime, *,
                                message_id: str | None = None, error: str | None = None) -> None:
        """Mark a claimed post sent (or, with ``error``, given up for good: the channel is gone or closed)."""
        async with self._transaction() as session:
            await session.execute(
                update(daily_posts)
                .where(daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day)
                .values(status=POST_FAILED if error is not None else POST_SENT, sent_at=now, message_id=message_id,
                        error=error[:200] if error is not None else None))

    async def release_daily_post(self, subscription_id: int, day: dt.date) -> None:
        """Drop a claim whose sending failed for now, so the next round tries again."""
        async with self._transaction() as session:
            await session.execute(daily_posts.delete().where(
                daily_posts.c.subscription_id == subscription_id, daily_posts.c.day == day,
                daily_posts.c.status == POST_CLAIMED))

    async def _winnable_code(self, rules: Rules) -> GameCode:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.winnable_budget
        while (remaining := deadline - loop.time()) > 0:
            code = GameCode(rules, secrets.randbelow(DEAL_COUNT))
            verdict = await self._run_solver("hint", remaining, self._verdict_function, str(code), remaining, False)
            if verdict is not None and verdict.winnable:
                return code
        raise NoWinnableDeal(f"no {rules.value} deal proved winnable within {self.winnable_budget:g} s")

    # --- playing ----------------------------------------------------------------------------------------------

    async def act(self, player: PlayerKey, name: str, game_id: int, version: int, command: str) -> GameSnapshot:
        """Apply a tap on a game message: ``command`` is a slot ``0``-``27``, ``d`` (draw), ``u`` (undo),
        ``h`` (hint) or ``n`` (a new game with the same rules, which returns the new game).

        Raises :class:`BadPayload`, :class:`GameNotFound`, :class:`NotYourGame` or :class:`StaleGame`. A refused
        action is not an error: the snapshot's ``outcome`` says why, and the version stays.
        """
        _check_ids(game_id, version)
        command = _check_command(command)
        if command == HINT:
            return await self._hint(player, game_id, version)
        if command == NEW_GAME:
            return await self._new_like(player, name, game_id, version)
        return await self._queue_tap(_Tap(player, name, game_id, version, Action.parse(command)))

    # --- group commit of taps ---------------------------------------------------------------------------------

    async def _queue_tap(self, tap: _Tap) -> GameSnapshot:
        """Queue ``tap`` for the next batch and wait for its result, which comes only after its batch commits."""
        loop = asyncio.get_running_loop()
        tap.future = loop.create_future()
        self._taps.append(tap)
        if self._committer is None or self._committer.done():
            self._committer = loop.create_task(self._commit_taps())
        return await asyncio.shield(tap.future)

    async def _commit_taps(self) -> None:
        """Apply the queued taps, a batch to a transaction, until none is left. A batch holds every tap queued
        while the previous one was committing (at most :data:`MAX_BATCH`, and one tap a game: a second tap on
        a game waits for the next batch so that it is checked against the first one's committed version)."""
        while self._taps:
            batch: list[_Tap] = []
            later: list[_Tap] = []
            seen: set[int] = set()
            for tap in self._taps:
                if len(batch) < MAX_BATCH and tap.game_id not in seen:
                    seen.add(tap.game_id)
                    batch.append(tap)
                else:
                    later.append(tap)
            self._taps = later
            try:
                results = await self._apply_batch(batch)
            except BaseException as error:  # cancelled (the service is closing): nothing waits forever
                for tap in (*batch, *self._taps):
                    if tap.future is not None and not tap.future.done():
                        tap.future.set_exception(error if isinstance(error, Exception) else BotError("closed"))
                self._taps = []
                raise
            for tap, result in zip(batch, results, strict=True):
                assert tap.future is not None
                if tap.future.done():
                    continue
                if isinstance(result, BaseException):
                    tap.future.set_exception(result)
                else:
                    tap.future.set_result(result)

    async def _apply_batch(self, batch: list[_Tap]) -> list[GameSnapshot | Exception]:
        try:
            return await self._apply_taps(batch)
        except Exception as error:
            if len(batch) == 1:
                return [error]
        # one transaction each, so that a tap that fails the batch fails alone
        results: list[GameSnapshot | Exception] = []
        for tap in batch:
            try:
                results += await self._apply_taps([tap])
            except Exception as error:
                results.append(error)
        return results

    async def _apply_taps(self, batch: list[_Tap]) -> list[GameSnapshot | Exception]:
        """One transaction for ``batch`` (taps on distinct games): one SELECT of their games (locking their rows on
        PostgreSQL, in id order), the engine in memory, one UPDATE statement for every applied action with the
        version check, one commit. A result is an exception for a tap that is refused as an error."""
        results: list[GameSnapshot | Exception] = []
        written: list[dict[str, Any]] = []
        after: list[tuple[int, _Record, Game, Outcome]] = []
        ids = [tap.game_id for tap in batch]
        query = _SELECT_GAME.where(games.c.id.in_(ids)) if len(ids) > 1 else _SELECT_GAME.where(games.c.id == ids[0])
        if not self.db.is_sqlite:
            # SQLite's BEGIN IMMEDIATE already holds the write lock
            query = query.order_by(games.c.id).with_for_update(of=games)
        async with self._connection() as connection:
            rows = {row.id: row for row in (await connection.execute(query))}
            renames: dict[int, str] = {}
            now = utcnow()
            for tap in batch:
                row = rows.get(tap.game_id)
                if row is None:
                    results.append(GameNotFound(tap.game_id))
                    continue
                record = _Record.from_row(row)
                if record.owner != tap.player:
                    results.append(NotYourGame(record.owner_name))
                    continue
                if record.version != tap.version:
                    results.append(StaleGame(record.snapshot()))
                    continue
                game = self._game_of(record)
                if record.status == ABANDONED:
                    results.append(record.snapshot(game, outcome=Outcome(tap.action, Reason.GAME_OVER)))
                    continue
                outcome = game.apply(tap.action)
                if not outcome.ok:
                    results.append(record.snapshot(game, outcome=outcome))
                    continue
                status = game.status.value
                state = game.to_text()
                written.append({
                    "b_id": record.id, "b_version": record.version, "state": state, "version": record.version + 1,
                    "status": status, "active": status != WON, "score": game.score, "moves": game.moves,
                    "updated_at": now, "finished_at": None if status == PLAYING else now})
                if tap.name and tap.name[:100] != record.owner_name:
                    renames[record.owner_id] = tap.name[:100]
                    record = dataclasses.replace(record, owner_name=tap.name[:100])
                record = dataclasses.replace(record, state=state, version=record.version + 1, status=status)
                after.append((len(results), record, game, outcome))
                results.append(record.snapshot(game, outcome=outcome))
            if written:
                result = await connection.execute(_UPDATE_GAME, written)
                checked = len(written) == 1 or self._sane_multi_rowcount
                if checked and _rowcount(result) != len(written):
                    # another action committed in between (only possible without the row locks above)
                    if len(batch) > 1:
                        raise _Retry()
                    raise StaleGame(await self._reload_on(connection, batch[0].game_id))
            for owner_id, name in renames.items():
                await connection.execute(update(players).where(players.c.id == owner_id)
                                         .values(display_name=name))
        for _, record, game, _ in after:
            self._remember(record, game)
            if record.status != PLAYING and record.verdict_at is None:
                self._schedule_verdict(record.code)
        return results

    def _game_of(self, record: _Record) -> Game:
        """The engine at ``record``'s state: a copy of the one this process last wrote, else read from the text."""
        known = self._games.get(record.id)
        if known is not None and known[0] == record.state:
            return known[1].copy()
        return Game.from_text(record.state)

    def _remember(self, record: _Record, game: Game) -> None:
        games_known = self._games
        games_known.pop(record.id, None)
        if record.status in (PLAYING, BLOCKED):
            games_known[record.id] = (record.state, game.copy())
            if len(games_known) > GAME_CACHE_SIZE:
                del games_known[next(iter(games_known))]

    async def _reload_on(self, connection: AsyncConnection, game_id: int) -> GameSnapshot:
        row = (await connection.execute(_SELECT_GAME.where(games.c.id == game_id))).one_or_none()
        if row is None:
            raise GameNotFound(game_id)
        return _Record.from_row(row).snapshot()

    @contextlib.asynccontextmanager
    async def _connection(self) -> AsyncIterator[AsyncConnection]:
        """One transaction on a Core connection (no ORM session), committed on leaving."""
        if self._lock is None:
            async with self.db.engine.begin() as connection:
                yield connection
        else:
            async with self._lock, self.db.engine.begin() as connection:
                yield connection

    async def _hint(self, player: PlayerKey, game_id: int, version: int) -> GameSnapshot:
        async with self._transaction() as session:
            record = await self._load_checked(session, player, game_id, version)
        game = Game.from_text(record.state)
        if record.status == ABANDONED:
            return record.snapshot(game, hint=_NO_HINT)
        if record.status == WON:
            return record.snapshot(game, hint=Hint(None, True, game.score))
        hint = await self._run_solver("hint", self.hint_budget + HINT_GRACE, self._hint_function, record.state,
                                      self.hint_budget) or _NO_HINT
        if hint.action is None:
            return record.snapshot(game, hint=hint)  # nothing to suggest: not counted as a hint used
        async with self._transaction() as session:
            result = await session.execute(
                update(games).where(games.c.id == game_id, games.c.version == version)
                .values(hints_used=games.c.hints_used + 1))
            if _rowcount(result) != 1:
                raise StaleGame(await self._reload(session, game_id))
        return dataclasses.replace(record, hints_used=record.hints_used + 1).snapshot(game, hint=hint)

    async def _new_like(self, player: PlayerKey, name: str, game_id: int, version: int) -> GameSnapshot:
        async with self._transaction() as session:
            record = await self._load_checked(session, player, game_id, version)
        return await self._start(player, name, code=None, rules=record.rules, daily=None,
                                 winnable=record.dealt_winnable, chat_id=record.chat_id,
                                 replacing=(game_id, version))

    # --- reading ----------------------------------------------------------------------------------------------

    async def current_game(self, player: PlayerKey) -> GameSnapshot | None:
        """The player's game in progress (playing, or blocked and so still open to undo), or None."""
        async with self._transaction() as session:
            row = (await session.execute(_SELECT_GAME.where(
                players.c.platform == player.platform, players.c.user_id == player.user_id,
                games.c.active == true()))).one_or_none()
        return None if row is None else _Record.from_row(row).snapshot()

    async def game(self, game_id: int) -> GameSnapshot:
        """Any game as it stands, whoever owns it (to redraw a message); :class:`GameNotFound` if none."""
        _check_ids(game_id, 0)
        async with self._transaction() as session:
            return await self._reload(session, game_id)

    async def wait_for_verdict(self, game_id: int, timeout: float | None = None) -> DealVerdict | None:
        """The solver's verdict on the game's deal, waiting up to ``timeout`` seconds for one being computed."""
        _check_ids(game_id, 0)
        async with self._transaction() as session:
            record = await self._load(session, game_id)
        if record.verdict_at is not None:
            return record.verdict()
        job = self._verdict_jobs.get(record.code)
        if job is None:
            self._schedule_verdict(record.code)
            job = self._verdict_jobs.get(record.code)
        if job is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(job), timeout)
        async with self._transaction() as session:
            return (await self._load(session, game_id)).verdict()

    async def get_settings(self, player: PlayerKey) -> Settings:
        """The player's settings (the defaults for a player never seen)."""
        async with self._transaction() as session:
            row = (await session.execute(
                select(players.c.language, players.c.explain_refusals, players.c.default_rules).where(
                    players.c.platform == player.platform, players.c.user_id == player.user_id))).one_or_none()
        return Settings() if row is None else _settings(row)

    async def update_settings(self, player: PlayerKey, *, name: str = "", **changes: object) -> Settings:
        """Change some of ``language`` (None: follow the platform), ``explain_refusals`` and ``default_rules``
        (a :class:`Rules` or its name); returns the settings now in force. :class:`BadPayload` for a bad value."""
        values = _check_settings(changes)
        async with self._transaction() as session:
            _, _, settings = await self._upsert_player(session, player, name, values)
        return settings

    async def stats(self, player: PlayerKey) -> Stats:
        """Games ended (won, blocked or abandoned), wins, the best score of a game played to its end (won or
        blocked), and the current and longest runs of consecutive wins by the time games ended."""
        async with self._transaction() as session:
            rows = (await session.execute(
                select(games.c.status, games.c.score)
                .join_from(games, players, games.c.player_id == players.c.id)
                .where(players.c.platform == player.platform, players.c.user_id == player.user_id,
                       games.c.status != PLAYING)
                .order_by(games.c.finished_at, games.c.id))).all()
        wins = best_run = run = 0
        best: int | None = None
        for status, score in rows:
            if status == WON:
                wins += 1
                run += 1
                best_run = max(best_run, run)
            else:
                run = 0
            if status in (WON, BLOCKED):
                best = score if best is None else max(best, score)
        return Stats(games=len(rows), wins=wins, best_score=best, current_streak=run, longest_streak=best_run)

    # --- helpers -------------------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def _transaction(self) -> AsyncIterator[AsyncSession]:
        """One transaction, committed on leaving (rolled back on an error)."""
        if self._lock is None:
            async with self._sessions.begin() as session:
                yield session
        else:
            async with self._lock, self._sessions.begin() as session:
                yield session

    async def _load(self, session: AsyncSession, game_id: int) -> _Record:
        row = (await session.execute(_SELECT_GAME.where(games.c.id == game_id))).one_or_none()
        if row is None:
            raise GameNotFound(game_id)
        return _Record.from_row(row)

    async def _reload(self, session: AsyncSession, game_id: int) -> GameSnapshot:
        return (await self._load(session, game_id)).snapshot()

    async def _load_checked(self, session: AsyncSession, player: PlayerKey, game_id: int, version: int) -> _Record:
        record = await self._load(session, game_id)
        if record.owner != player:
            raise NotYourGame(record.owner_name)
        if record.version != version:
            raise StaleGame(record.snapshot())
        return record

    async def _upsert_player(self, session: AsyncSession, player: PlayerKey, name: str,
                             changes: Mapping[str, object] | None = None) -> tuple[int, str, Settings]:
        """Create the player if new, apply ``name`` (when given) and ``changes``; return id, name, settings."""
        changes = dict(changes or {})
        if name:
            changes["display_name"] = name[:100]
        returning = (players.c.id, players.c.display_name, players.c.language, players.c.explain_refusals,
                     players.c.default_rules)
        values: dict[str, object] = {
            "platform": player.platform, "user_id": player.user_id, "display_name": "", "language": None,
            "explain_refusals": True, "default_rules": Rules.EASY.value, "created_at": utcnow(), **changes}
        if self._upsert_dialect in ("postgresql", "sqlite"):
            dialect = importlib.import_module(f"sqlalchemy.dialects.{self._upsert_dialect}")
            statement = dialect.insert(players).values(**values)
            # a no-op update when nothing changes, so the row is returned (and, on PostgreSQL, locked)
            statement = statement.on_conflict_do_update(
                index_elements=[players.c.platform, players.c.user_id],
                set_={key: statement.excluded[key] for key in changes} or {"platform": statement.excluded.platform})
            row = (await session.execute(statement.returning(*returning))).one()
        else:
            where = (players.c.platform == player.platform, players.c.user_id == player.user_id)
            found = (await session.execute(select(*returning).where(*where).with_for_update())).one_or_none()
            if found is None:
                await session.execute(insert(players).values(**values))
            elif changes:
                await session.execute(update(players).where(*where).values(**changes))
            row = (await session.execute(select(*returning).where(*where))).one()
        return row.id, row.display_name, _settings(row)

    # --- the solver ----------------------------------------------------------------------------------------------

    def _pool(self, purpose: str) -> Executor:
        if self._executor is not None:
            return self._executor
        pool = self._pools.get(purpose)
        if pool is None:
            pool = self._pools[purpose] = ProcessPoolExecutor(
                max_workers=1, mp_context=multiprocessing.get_context("spawn"))
        return pool

    async def _run_solver(self, purpose: str, timeout: float, function: Callable[..., Any], *args: Any) -> Any:
        """``function(*args)`` in a solver worker; None if it fails or takes longer than ``timeout``."""
        pool = self._pool(purpose)
        future = asyncio.get_running_loop().run_in_executor(pool, function, *args)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            log.warning("the solver took longer than %.2f s", timeout)
        except BrokenProcessPool:
            log.exception("a solver worker died; starting a new one")
            if self._pools.get(purpose) is pool:
                del self._pools[purpose]
                self._pool(purpose).submit(_warm_up)
        except Exception:
            log.exception("the solver failed")
        return None

    def _schedule_verdict(self, code: str) -> None:
        if self._closed or code in self._verdict_jobs or len(self._verdict_jobs) >= MAX_PENDING_VERDICTS:
            return
        job = asyncio.get_running_loop().create_task(self._compute_verdict(code))
        self._verdict_jobs[code] = job
        job.add_done_callback(lambda _: self._verdict_jobs.pop(code, None))

    async def _compute_verdict(self, code: str) -> None:
        """Solve the deal ``code`` from its start and store the verdict in every game of it still without one."""
        verdict = await self._run_solver("verdict", self.verdict_budget * 2 + 5, self._verdict_function, code,
                                         self.verdict_budget, True)
        if verdict is None:
            return
        values: dict[str, object] = {"verdict_best_score": verdict.best_score, "verdict_at": utcnow()}
        if verdict.winnable is not None:
            values["verdict_winnable"] = verdict.winnable
        try:
            async with self._transaction() as session:
                await session.execute(update(games).where(games.c.code == code, games.c.verdict_at.is_(None))
                                      .values(**values))
        except Exception:
            log.exception("could not store the verdict on %s", code)
